//! Building a checker from files: a schema, a rules file and the reference documents its rules
//! name, read within [`Limits`]. The one way the command-line tool and
//! the Python and TypeScript packages do it (docs/architecture.md, "What is decided where"),
//! so a file that one of them refuses, every one refuses with the same words.
//!
//! Anything wrong here is a configuration error ([`SetupError`]), never a diagnostic: the
//! document being checked is not at fault.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("rectify-setup-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let schema = dir.join("n.schema.json");
//! std::fs::write(&schema, r#"{"type": "object", "required": ["n"]}"#).unwrap();
//! let limits = rectify::parse::Limits::default();
//! let (_, compiled) = rectify::setup::schema(&schema, &limits, rectify::check::RefAccess::SchemaDir).unwrap();
//! let checker = rectify::setup::checker(Some(compiled), None).unwrap();
//! assert_eq!(checker.check_value(&serde_json::json!({}))[0].code, "schema.required");
//!
//! let err = rectify::setup::rules(&dir.join("missing.yaml"), &[], &limits).unwrap_err();
//! assert!(err.to_string().starts_with("cannot load the rules file"), "{err}");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::path::{Path, PathBuf};

use rectify_check::{
    Checker, CompiledSchema, ConfigError, RefAccess, References, RuleSet, SchemaSet,
};
use rectify_core::{Diagnostic, Document, Format};
use rectify_parse::Limits;
use serde_json::Value;

/// Why a schema, a rules file or a reference document cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct SetupError {
    /// What is wrong, naming the file (and the line, where the file could be read).
    pub message: String,
    /// What it is about, for a front end that adds its own hint.
    pub kind: SetupErrorKind,
}

/// What a [`SetupError`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetupErrorKind {
    /// The file could not be read (missing, a directory, over the size limit).
    Read,
    /// The file was read but is not a valid schema, rules file or document.
    Invalid,
    /// A schema's `$ref` names a file outside the schema's directory.
    RefOutside,
    /// A rule names a reference document that was not given.
    MissingDocument {
        /// The document's name.
        name: String,
    },
}

impl SetupError {
    fn new(kind: SetupErrorKind, message: String) -> SetupError {
        SetupError { message, kind }
    }
}

/// Reads a configuration document (`what` names it in errors: `"schema"`, `"rules file"`):
/// JSON or YAML by extension, else by content (a document that looks like neither is read as
/// YAML). Any problem names the file, and the line and column where it could be read.
pub fn read_document(path: &Path, what: &str, limits: &Limits) -> Result<Document, SetupError> {
    let name = path.display().to_string();
    let read_error = |why: String| {
        SetupError::new(
            SetupErrorKind::Read,
            format!("cannot load the {what}: {why}"),
        )
    };
    let bytes =
        rectify_parse::read_file_bytes(path, limits).map_err(|e| read_error(e.to_string()))?;
    if bytes.len() > limits.max_bytes {
        return Err(read_error(format!(
            "`{name}` is larger than the input limit of {} bytes ({} MiB); nothing was read past it",
            limits.max_bytes,
            limits.max_bytes / (1024 * 1024)
        )));
    }
    let format = match rectify_parse::detect_format(&name, &bytes, None) {
        Format::Markdown | Format::Text => Format::Yaml,
        f => f,
    };
    let parsed = rectify_parse::read_bytes(bytes, format, limits);
    let invalid = |why: String| {
        SetupError::new(
            SetupErrorKind::Invalid,
            format!("the {what} `{name}` is not valid: {why}"),
        )
    };
    if let Some(d) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        return Err(invalid(describe(d)));
    }
    parsed
        .document
        .ok_or_else(|| invalid("it could not be read".to_owned()))
}

/// Reads and compiles the schema at `path`; returns its value too. Its `$ref`s read files as
/// `access` allows.
pub fn schema(
    path: &Path,
    limits: &Limits,
    access: RefAccess,
) -> Result<(Value, CompiledSchema), SetupError> {
    let doc = read_document(path, "schema", limits)?;
    let name = path.display().to_string();
    let compiled = CompiledSchema::compile_named_with(&doc.value, &name, Some(path), access)
        .map_err(|e| {
            let text = e.to_string();
            let kind = if text.contains("outside the schema's directory") {
                SetupErrorKind::RefOutside
            } else {
                SetupErrorKind::Invalid
            };
            SetupError::new(kind, format!("cannot use the schema `{name}`: {text}"))
        })?;
    Ok((doc.value, compiled))
}

/// Reads the rules file at `path` and the documents it names; `refs` (name, path) are read in
/// place of (or beside) the ones the file names.
pub fn rules(
    path: &Path,
    refs: &[(String, PathBuf)],
    limits: &Limits,
) -> Result<(RuleSet, References), SetupError> {
    let doc = read_document(path, "rules file", limits)?;
    let rules = RuleSet::from_document(&doc, path.parent()).map_err(|e| {
        SetupError::new(
            SetupErrorKind::Invalid,
            format!("the rules file `{}` is not valid: {e}", path.display()),
        )
    })?;
    let mut documents = References::new();
    for (name, doc_path) in rules.documents() {
        if !refs.iter().any(|(given, _)| given == name) {
            documents.insert(name.clone(), reference(name, doc_path, limits)?);
        }
    }
    for (name, doc_path) in refs {
        documents.insert(name.clone(), reference(name, doc_path, limits)?);
    }
    Ok((rules, documents))
}

/// Reads the reference documents `refs` (name, path) for rules given some other way.
pub fn references(refs: &[(String, PathBuf)], limits: &Limits) -> Result<References, SetupError> {
    let mut documents = References::new();
    for (name, path) in refs {
        documents.insert(name.clone(), reference(name, path, limits)?);
    }
    Ok(documents)
}

fn reference(name: &str, path: &Path, limits: &Limits) -> Result<Document, SetupError> {
    read_document(path, &format!("reference document `{name}`"), limits)
}

/// The checker of a compiled schema and rules with their documents.
pub fn checker(
    schema: Option<CompiledSchema>,
    rules: Option<(RuleSet, References)>,
) -> Result<Checker, SetupError> {
    let mut schemas = SchemaSet::new();
    if let Some(s) = schema {
        schemas.push(s);
    }
    let mut builder = Checker::builder().schemas(schemas);
    if let Some((rules, documents)) = rules {
        builder = builder.rules(rules).references(documents);
    }
    builder.build().map_err(|e| config_error(&e))
}

/// A checker's configuration error as a [`SetupError`] (a missing document is its own kind).
pub fn config_error(error: &ConfigError) -> SetupError {
    let kind = match &error {
        ConfigError::MissingDocument { name, .. } => {
            SetupErrorKind::MissingDocument { name: name.clone() }
        }
        _ => SetupErrorKind::Invalid,
    };
    SetupError::new(kind, error.to_string())
}

fn describe(d: &Diagnostic) -> String {
    match &d.location.span {
        Some(span) => format!("line {}, column {}: {}", span.line, span.column, d.message),
        None => d.message.clone(),
    }
}
