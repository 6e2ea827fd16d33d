//! The validate/repair pair's first half for workflows: build the judge of an output or an
//! answer (rectify-judge's [`Validator`]: its format, schema, rules and references) and judge
//! its text. The judging itself is the one every caller shares.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rectify_check::{CompiledSchema, RefAccess, References, RuleSet};
use rectify_core::{Diagnostic, Format, Location};
use rectify_judge::{Reading, Validator};
use rectify_parse::Limits;
use serde_json::Value;

/// How one output or answer is checked (paths already rendered).
#[derive(Clone, Debug, Default)]
pub struct CheckSpec {
    /// The format (`None`: from the path, else JSON).
    pub format: Option<Format>,
    /// The schema file.
    pub schema: Option<std::path::PathBuf>,
    /// The rules file.
    pub rules: Option<std::path::PathBuf>,
    /// Named documents for the rules, as paths inside the working directory.
    pub refs: BTreeMap<String, std::path::PathBuf>,
    /// The working directory: paths in messages are shown relative to it.
    pub workdir: Option<std::path::PathBuf>,
}

/// What checking one text found (the judge's [`rectify_judge::Judgement`]).
pub type Checked = rectify_judge::Judgement;

/// A compiled schema and its value (which guides repair and is sent to providers).
pub type SchemaEntry = rectify_judge::Schema;

/// The checks of every output of one producer run.
#[derive(Debug, Default)]
pub(crate) struct UnitCheck {
    /// Per file (relative path, or `""` for an answer): its current text and what was found.
    pub files: Vec<(String, Option<String>, Checked)>,
    /// Problems not tied to one file (agent failure, confinement).
    pub other: Vec<Diagnostic>,
    /// The answer's value or text, for answer steps.
    pub value: Option<Value>,
}

impl UnitCheck {
    pub(crate) fn errors(&self) -> usize {
        self.files.iter().map(|(_, _, c)| c.errors()).sum::<usize>()
            + self.other.iter().filter(|d| d.is_error()).count()
    }

    /// A streamed answer stopped early: its errors are why (`why`), not what the cut text
    /// lacks because it had not arrived yet. Warnings and problems of the call stay.
    pub(crate) fn only_why_stopped(&mut self, why: Vec<Diagnostic>) {
        if let Some((_, _, checked)) = self.files.iter_mut().find(|(rel, _, _)| rel.is_empty()) {
            checked.diagnostics.retain(|d| !d.is_error());
            checked.diagnostics.extend(why);
        }
    }

    pub(crate) fn all_diagnostics(&self) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self.other.clone();
        for (_, _, c) in &self.files {
            out.extend(c.diagnostics.iter().cloned());
        }
        out
    }

    pub(crate) fn by_file(&self) -> Vec<(String, Vec<Diagnostic>)> {
        let mut out = vec![(String::new(), self.other.clone())];
        out.extend(
            self.files
                .iter()
                .map(|(f, _, c)| (f.clone(), c.diagnostics.clone())),
        );
        out
    }
}

/// Schemas compiled once, by path: filled when the workflow is loaded (which checks them) and
/// shared by its runs (a workflow's schemas do not change while it runs).
#[derive(Debug, Default)]
pub struct SchemaCache {
    entries: std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, Arc<SchemaEntry>>>,
    /// The directory the schemas' `$ref`s may read under (the workflow's); `None`: each
    /// schema's own directory.
    root: Option<std::path::PathBuf>,
}

impl SchemaCache {
    /// A cache whose schemas' `$ref`s may read files under `root` (the workflow's directory,
    /// so that schemas can share definitions from a sibling directory).
    pub fn under(root: &Path) -> SchemaCache {
        SchemaCache {
            root: Some(root.to_path_buf()),
            ..SchemaCache::default()
        }
    }

    /// The schema at `path`, compiled on first use.
    pub fn get(&self, path: &Path) -> Result<Arc<SchemaEntry>, String> {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = entries.get(path) {
            return Ok(Arc::clone(found));
        }
        let access = self
            .root
            .clone()
            .map_or(RefAccess::SchemaDir, RefAccess::Under);
        let compiled =
            CompiledSchema::compile_file_with(path, access).map_err(|e| e.to_string())?;
        let doc =
            rectify_parse::read_file(path, None, &Limits::default()).map_err(|e| e.to_string())?;
        let value = doc.document.map(|d| d.value).unwrap_or_default();
        let entry = Arc::new(SchemaEntry {
            compiled: Arc::new(compiled),
            value,
        });
        entries.insert(path.to_path_buf(), Arc::clone(&entry));
        Ok(entry)
    }
}

/// The judge of one output or answer.
pub struct Prepared {
    judge: Validator,
    format: Format,
}

/// Builds the checker for `spec`; a reference document that is missing or unreadable is a
/// diagnostic (the output it belongs to is then invalid and routed), a broken schema or rules
/// file an `Err` (it was checked at load time, so this means it changed since).
pub fn prepare(
    spec: &CheckSpec,
    path_hint: &str,
    schemas: &SchemaCache,
) -> Result<(Prepared, Vec<Diagnostic>), String> {
    let limits = Limits::default();
    let mut builder = Validator::builder();
    let schema = spec.schema.as_deref().map(|p| schemas.get(p)).transpose()?;
    let mut problems = Vec::new();
    if let Some(path) = &spec.rules {
        let rules = RuleSet::from_file(path).map_err(|e| e.to_string())?;
        let mut refs = References::new();
        for (name, doc_path) in rules.documents() {
            if !spec.refs.contains_key(name) {
                match read_reference(doc_path, spec.workdir.as_deref(), &limits) {
                    Ok(doc) => {
                        refs.insert(name.clone(), doc);
                    }
                    Err(d) => problems.push(d),
                }
            }
        }
        for (name, doc_path) in &spec.refs {
            match read_reference(doc_path, spec.workdir.as_deref(), &limits) {
                Ok(doc) => {
                    refs.insert(name.clone(), doc);
                }
                Err(d) => problems.push(d),
            }
        }
        if problems.is_empty() {
            builder = builder.rules(rules, refs);
        }
    }
    let format = spec
        .format
        .or_else(|| Format::from_path(path_hint))
        .unwrap_or(Format::Json);
    let judge = builder
        .schema(schema)
        .reading(Reading::File)
        .format(Some(format))
        .build()
        .map_err(|e| e.to_string())?;
    Ok((Prepared { judge, format }, problems))
}

#[allow(clippy::result_large_err)] // built once per reference, not on a hot path
fn read_reference(
    path: &Path,
    workdir: Option<&Path>,
    limits: &Limits,
) -> Result<rectify_core::Document, Diagnostic> {
    let shown = workdir.map_or_else(|| path.to_path_buf(), |w| relative(path, w));
    let missing = |why: String| {
        Diagnostic::error(
            "flow.reference",
            Location::root(),
            format!("the reference document `{}` {why}", shown.display()),
        )
        .source("rules")
    };
    let parsed = rectify_parse::read_file(path, None, limits)
        .map_err(|e| missing(format!("cannot be read: {}", unreadable(&e))))?;
    match parsed.document {
        Some(doc) if !parsed.diagnostics.iter().any(Diagnostic::is_error) => Ok(doc),
        _ => Err(missing("is not valid (fix it first)".to_owned())),
    }
}

/// `path` relative to `base` (with `..` when it is outside), for messages.
fn relative(path: &Path, base: &Path) -> std::path::PathBuf {
    let (mut p, mut b) = (path.components().peekable(), base.components().peekable());
    if p.peek() != b.peek() {
        return path.to_path_buf();
    }
    while p.peek().is_some() && p.peek() == b.peek() {
        p.next();
        b.next();
    }
    b.map(|_| std::path::Component::ParentDir)
        .chain(p)
        .collect()
}

/// Why a file could not be read, without its path (the message names it already).
fn unreadable(e: &rectify_parse::ReadError) -> String {
    match e {
        rectify_parse::ReadError::Io { source, .. } => source.to_string(),
        rectify_parse::ReadError::Directory { .. } => "it is a directory, not a file".to_owned(),
        other => other.to_string(),
    }
}

impl Prepared {
    /// The format outputs are read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Reads `text`, repairs it when reading or checking fails (keeping the repair only when
    /// it leaves fewer errors), and checks it. Valid input is returned unchanged.
    pub fn check_text(&self, text: &str) -> Checked {
        self.judge.validate(text)
    }
}

/// The first line of the schema's `title` or `description`, for the producer's file list.
pub fn schema_summary(schema: Option<&Value>) -> Option<String> {
    let s = schema?;
    let text = s.get("title").or_else(|| s.get("description"))?.as_str()?;
    Some(text.lines().next().unwrap_or_default().trim().to_owned()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn prepared(dir: &Path, format: Format) -> Prepared {
        let schema = dir.join("s.json");
        std::fs::write(
            &schema,
            json!({"title": "A thing", "type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}).to_string(),
        )
        .unwrap();
        let spec = CheckSpec {
            format: Some(format),
            schema: Some(schema),
            ..CheckSpec::default()
        };
        prepare(&spec, "x", &SchemaCache::default()).unwrap().0
    }

    #[test]
    fn valid_text_is_unchanged_and_broken_text_is_repaired() {
        let dir = tempfile::tempdir().unwrap();
        let p = prepared(dir.path(), Format::Json);
        let ok = p.check_text("{\"n\": 1}");
        assert_eq!(ok.errors(), 0);
        assert!(ok.repaired_text.is_none() && ok.repairs.is_empty());
        let fixed = p.check_text("{\"n\": 1,}");
        assert_eq!(fixed.errors(), 0, "{:?}", fixed.diagnostics);
        assert!(fixed.repaired_text.is_some());
        assert_eq!(fixed.repairs[0].code, "json.trailing_comma");
        let wrong = p.check_text("{\"m\": 1}");
        assert_eq!(wrong.diagnostics[0].code, "schema.required");
        assert_eq!(
            schema_summary(p.judge.schema().map(|s| &s.value)),
            Some("A thing".to_owned())
        );
    }

    #[test]
    fn yaml_is_checked_with_locations() {
        let dir = tempfile::tempdir().unwrap();
        let p = prepared(dir.path(), Format::Yaml);
        let bad = p.check_text("m: 1\nn: x\n");
        let d = bad
            .diagnostics
            .iter()
            .find(|d| d.code == "schema.type")
            .unwrap();
        assert_eq!(d.location.span.unwrap().line, 2);
    }

    #[test]
    fn missing_references_are_diagnostics() {
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join("r.yaml");
        std::fs::write(
            &rules,
            "rules:\n  - id: r\n    each: \"$.a[*]\"\n    in: \"plan:$.ids[*]\"\n",
        )
        .unwrap();
        let spec = CheckSpec {
            rules: Some(rules),
            refs: [("plan".to_owned(), dir.path().join("nope.yaml"))].into(),
            ..CheckSpec::default()
        };
        let (_, problems) = prepare(&spec, "x.yaml", &SchemaCache::default()).unwrap();
        assert_eq!(problems[0].code, "flow.reference");
    }

    #[test]
    fn reference_paths_are_shown_relative_to_the_working_directory() {
        let work = Path::new("/srv/project");
        assert_eq!(
            relative(Path::new("/srv/project/specs/plan.yaml"), work),
            Path::new("specs/plan.yaml")
        );
        assert_eq!(
            relative(Path::new("/srv/flows/plan.json"), work),
            Path::new("../flows/plan.json")
        );
        assert_eq!(
            relative(Path::new("plan.json"), work),
            Path::new("plan.json")
        );
    }
}
