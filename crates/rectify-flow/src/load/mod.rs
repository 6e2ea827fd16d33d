//! Loading a workflow file: read, deserialize, and check everything that can be checked
//! before any model is called. Every mistake is a [`Problem`] with its file, line and column.

mod agents;
mod checks;
mod problem;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rectify_core::{Document, Format};
use rectify_parse::Limits;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use crate::graph;
use crate::spec::{AgentSpec, WorkflowSpec};

pub(crate) use checks::escapes as escapes_text;
pub use problem::{LoadError, Problem};

/// A workflow that passed every load-time check, ready to run.
#[derive(Clone, Debug)]
pub struct Workflow {
    /// The file as written.
    pub spec: WorkflowSpec,
    /// The workflow file.
    pub path: PathBuf,
    /// Its directory: schemas, rules and agents are relative to it.
    pub dir: PathBuf,
    /// The file's text (pinned with the run).
    pub source: String,
    /// SHA-256 of the workflow file and every agent file it names.
    pub hash: String,
    /// The agents by name.
    pub agents: BTreeMap<String, AgentSpec>,
    /// For each step (by index), the steps it needs (by index).
    pub deps: Vec<Vec<usize>>,
    /// The schemas compiled while loading, shared by the workflow's runs (each schema file
    /// is read and compiled once, not once per run).
    pub(crate) schemas: std::sync::Arc<crate::engine::check::SchemaCache>,
}

impl Workflow {
    /// The index of the step `id`.
    pub fn step_index(&self, id: &str) -> Option<usize> {
        self.spec.steps.iter().position(|s| s.id == id)
    }

    /// Steps grouped in levels that may run in parallel, in order.
    pub fn levels(&self) -> Vec<Vec<&str>> {
        graph::levels(&self.deps)
            .into_iter()
            .map(|level| {
                level
                    .into_iter()
                    .map(|i| self.spec.steps[i].id.as_str())
                    .collect()
            })
            .collect()
    }

    /// A path of the workflow's own files (schemas, rules, agents), relative to its directory.
    pub fn resolve(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }
}

/// Loads and checks the workflow file at `path`.
pub fn load(path: &Path) -> Result<Workflow, LoadError> {
    let bytes =
        rectify_parse::read_file_bytes(path, &Limits::default()).map_err(|e| LoadError {
            problems: vec![Problem::new(
                path,
                format!("cannot read the workflow file: {e}"),
            )],
        })?;
    let limit = Limits::default().max_bytes;
    if bytes.len() > limit {
        return Err(LoadError {
            problems: vec![Problem::new(
                path,
                format!("the workflow file is larger than the {limit}-byte limit"),
            )],
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| LoadError {
        problems: vec![Problem::new(
            path,
            format!(
                "the workflow file is not UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )],
    })?;
    load_str(path, text)
}

/// Loads a workflow from its text; `path` locates problems and relative files.
pub fn load_str(path: &Path, text: String) -> Result<Workflow, LoadError> {
    let doc = read_yaml(path, text.clone(), Format::Yaml)?;
    let (spec, mut problems) = deserialize_all::<WorkflowSpec>(path, &doc);
    let Some(spec) = spec else {
        return Err(LoadError { problems });
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let (agents, agent_texts) = agents::load(&spec, &dir, path, &doc, &mut problems);
    // Every check runs even after a problem: a person fixes them all in one go. (Unknown
    // `needs` are left out of the graph, and ancestors tolerate a cycle.)
    let deps = checks::dependencies(&spec, path, &doc, &mut problems);
    // The schemas compiled by the checks are kept for the runs.
    let schemas = checks::all(&spec, &agents, &deps, &dir, path, &doc, &mut problems);
    if !problems.is_empty() {
        problems.sort_by_key(|p| (p.file.clone(), p.line, p.column));
        problems.dedup();
        return Err(LoadError { problems });
    }
    let mut hasher = Sha256::new();
    hasher.update(text.as_bytes());
    for t in &agent_texts {
        hasher.update(t.as_bytes());
    }
    Ok(Workflow {
        spec,
        path: path.to_path_buf(),
        dir,
        source: text,
        hash: hex(&hasher.finalize()),
        agents,
        deps,
        schemas: std::sync::Arc::new(schemas),
    })
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Reads YAML (or Markdown front matter) into a document; read errors are located problems.
fn read_yaml(path: &Path, text: String, format: Format) -> Result<Document, LoadError> {
    let parsed = rectify_parse::read(text, format, &Limits::default());
    let errors: Vec<Problem> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| Problem {
            line: d.location.span.map(|s| s.line),
            column: d.location.span.map(|s| s.column),
            ..Problem::new(path, d.message.clone())
        })
        .collect();
    match parsed.document {
        Some(doc) if errors.is_empty() => Ok(doc),
        _ => Err(LoadError {
            problems: if errors.is_empty() {
                vec![Problem::new(path, "the file could not be read")]
            } else {
                errors
            },
        }),
    }
}

/// Deserializes the document's value, locating every mistake it can: after a mistake in an
/// object member (an unknown key, a value of the wrong type) the member is set aside and
/// deserialization goes on, so one run reports them all. Array elements are never set aside
/// (later locations would shift); a mistake there, or a missing field, ends the search.
fn deserialize<T: DeserializeOwned>(path: &Path, doc: &Document) -> Result<T, LoadError> {
    match deserialize_all(path, doc) {
        (Some(value), problems) if problems.is_empty() => Ok(value),
        (_, problems) => Err(LoadError { problems }),
    }
}

/// [`deserialize`], returning the value read with the faulty members set aside too.
fn deserialize_all<T: DeserializeOwned>(path: &Path, doc: &Document) -> (Option<T>, Vec<Problem>) {
    let mut value = doc.value.clone();
    let mut problems = Vec::new();
    for _ in 0..64 {
        let error = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(found) => return (Some(found), problems),
            Err(e) => e,
        };
        let pointer = pointer_of(error.path());
        let message = error.inner().to_string();
        let unknown_key = message.starts_with("unknown field");
        let shown = if pointer.is_empty() {
            message
        } else {
            format!("{}: {message}", rectify_core::pointer_to_path(&pointer))
        };
        let problem = if unknown_key {
            Problem::at_key(path, doc, &pointer, shown)
        } else {
            Problem::at(path, doc, &pointer, shown)
        };
        let repeated = problems.contains(&problem);
        problems.push(problem);
        if repeated || !set_aside(&mut value, &pointer) {
            break;
        }
    }
    problems.dedup();
    (None, problems)
}

/// Removes the object member at `pointer`; false when it is not an object member.
fn set_aside(value: &mut serde_json::Value, pointer: &str) -> bool {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return false;
    };
    let key = key.replace("~1", "/").replace("~0", "~");
    match value.pointer_mut(parent) {
        Some(serde_json::Value::Object(map)) => map.shift_remove(&key).is_some(),
        _ => false,
    }
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    let mut pointer = String::new();
    for segment in path {
        match segment {
            serde_path_to_error::Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            serde_path_to_error::Segment::Map { key } => {
                rectify_core::push_pointer(&mut pointer, key);
            }
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    pointer
}
