//! The validate/repair pair's first half: read an output with its format, repair it
//! deterministically (schema-guided), and check it with its schema, rules and references.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rectify_check::{Checker, CompiledSchema, RefAccess, References, RuleSet};
use rectify_core::{Diagnostic, Format, Location, Repair};
use rectify_parse::Limits;
use rectify_repair::RepairOptions;
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

/// What checking one text found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The value read (after repair), when one could be read.
    pub value: Option<Value>,
    /// Every problem (errors make it invalid).
    pub diagnostics: Vec<Diagnostic>,
    /// Repairs applied.
    pub repairs: Vec<Repair>,
    /// The repaired text, when repair changed it (to be written back).
    pub repaired_text: Option<String>,
}

impl Checked {
    /// The number of errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// A compiled schema and its value (which guides repair and is sent to providers).
#[derive(Debug)]
pub struct SchemaEntry {
    /// Compiled once.
    pub compiled: CompiledSchema,
    /// The schema as read.
    pub value: Value,
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
        let entry = Arc::new(SchemaEntry { compiled, value });
        entries.insert(path.to_path_buf(), Arc::clone(&entry));
        Ok(entry)
    }
}

/// A built checker and the schema (which also guides repair).
pub struct Prepared {
    checker: Checker,
    schema: Option<Arc<SchemaEntry>>,
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
    let mut builder = Checker::builder();
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
            builder = builder.rules(rules).references(refs);
        }
    }
    let checker = builder.build().map_err(|e| e.to_string())?;
    let format = spec
        .format
        .or_else(|| Format::from_path(path_hint))
        .unwrap_or(Format::Json);
    Ok((
        Prepared {
            checker,
            schema,
            format,
        },
        problems,
    ))
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
        self.unfenced(text)
            .unwrap_or_else(|| self.check_as_written(text))
    }

    /// A Markdown document wrapped whole in a ```` ```markdown ```` fence (with a line of
    /// prose around it) checked as the fence's content, the unwrapping recorded as repairs and
    /// the content as the repaired text.
    fn unfenced(&self, text: &str) -> Option<Checked> {
        if self.format != Format::Markdown {
            return None;
        }
        let found = rectify_repair::unwrap_markdown(text)?;
        let document = found.document(text);
        let mut checked = self.check_as_written(document);
        checked.repairs.splice(0..0, found.repairs);
        checked.repaired_text = Some(document.to_owned());
        Some(checked)
    }

    fn check_as_written(&self, text: &str) -> Checked {
        let parsed = rectify_parse::read(text.to_owned(), self.format, &Limits::default());
        let read_errors = parsed.diagnostics.iter().any(Diagnostic::is_error);
        let strict = match (&parsed.document, read_errors) {
            (Some(doc), false) => {
                let mut diagnostics = parsed.diagnostics.clone();
                diagnostics.extend(self.check(doc));
                Some(Checked {
                    value: Some(doc.value.clone()),
                    diagnostics,
                    ..Checked::default()
                })
            }
            _ => None,
        };
        if strict.as_ref().is_some_and(|c| c.errors() == 0) || !self.repairable() {
            return strict.unwrap_or_else(|| Checked {
                diagnostics: parsed.diagnostics,
                ..Checked::default()
            });
        }
        let repaired = self.repair(text);
        match (strict, repaired) {
            (Some(s), Some(r)) if r.errors() < s.errors() => r,
            (Some(s), _) => s,
            (None, Some(r)) => r,
            (None, None) => Checked {
                diagnostics: parsed.diagnostics,
                ..Checked::default()
            },
        }
    }

    /// The schema, then the rules.
    fn check(&self, doc: &rectify_core::Document) -> Vec<Diagnostic> {
        let mut out = match &self.schema {
            Some(s) => s.compiled.check(doc),
            None => Vec::new(),
        };
        out.extend(self.checker.check(doc));
        out
    }

    fn repairable(&self) -> bool {
        matches!(self.format, Format::Json | Format::Yaml)
    }

    fn repair(&self, text: &str) -> Option<Checked> {
        let mut options = RepairOptions::default().with_format(Some(self.format));
        if let Some(schema) = &self.schema {
            options = options.with_schema(schema.value.clone());
        }
        let repaired = rectify_repair::repair(text, &options);
        if repaired.repairs.is_empty() {
            return None;
        }
        // Written back in the output's own format, so the file stays YAML (a minimal edit
        // where possible) and locations point into what was written.
        let new_text = match self.format {
            Format::Yaml => repaired.to_yaml()?,
            _ => repaired.to_json_pretty()? + "\n",
        };
        let parsed = rectify_parse::read(new_text.clone(), self.format, &Limits::default());
        let doc = parsed.document?;
        let mut diagnostics: Vec<Diagnostic> = repaired
            .diagnostics
            .into_iter()
            .filter(|d| d.code != "repair.schema_mismatch")
            .collect();
        diagnostics.extend(self.check(&doc));
        Some(Checked {
            value: Some(doc.value),
            diagnostics,
            repairs: repaired.repairs,
            repaired_text: Some(new_text),
        })
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
            schema_summary(p.schema.as_ref().map(|s| &s.value)),
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
