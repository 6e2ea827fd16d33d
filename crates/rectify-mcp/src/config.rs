//! What tools are configured with: schemas, rules files and their reference documents, read
//! only from beneath the root. Anything wrong here is a tool error naming the file.

use std::collections::BTreeMap;
use std::path::Path;

use rectify::check::{CompiledSchema, RefAccess, References, RuleSet, SchemaSet};
use rectify::parse::Limits;
use rectify::{Document, Format};

use crate::Root;
use crate::tools::ToolError;

/// Reads the file `given` names beneath the root, at most the input limit.
pub fn read_file(root: &Root, given: &str, limits: &Limits) -> Result<Vec<u8>, ToolError> {
    read_resolved(&root.resolve(given)?, given, limits)
}

/// Reads `path` (already resolved beneath the root), which the client named `given`.
fn read_resolved(path: &Path, given: &str, limits: &Limits) -> Result<Vec<u8>, ToolError> {
    if path.is_dir() {
        return Err(ToolError::new(format!("`{given}` is a directory")));
    }
    rectify::parse::read_file_bytes(path, limits)
        .map_err(|e| ToolError::new(format!("cannot read `{given}`: {e}")))
}

/// Reads a configuration document (schema, rules, reference): a problem names the file and
/// the line.
pub fn document(
    root: &Root,
    given: &str,
    what: &str,
    limits: &Limits,
) -> Result<(Document, std::path::PathBuf), ToolError> {
    let path = root.resolve(given)?;
    let bytes = read_resolved(&path, given, limits)?;
    let format = match rectify::parse::detect_format(given, &bytes, None) {
        Format::Markdown | Format::Text => Format::Yaml,
        f => f,
    };
    let parsed = rectify::parse::read_bytes(bytes, format, limits);
    if let Some(d) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        let at = d
            .location
            .span
            .map(|s| format!("line {}, column {}: ", s.line, s.column))
            .unwrap_or_default();
        return Err(ToolError::new(format!(
            "the {what} `{given}` is not valid: {at}{}",
            d.message
        )));
    }
    let doc = parsed
        .document
        .ok_or_else(|| ToolError::new(format!("the {what} `{given}` could not be read")))?;
    Ok((doc, path))
}

/// Reads and compiles the schema `given`; its `$ref`s read only files under its own
/// directory (symbolic links resolved), which is beneath the root.
pub fn schema(
    root: &Root,
    given: &str,
    limits: &Limits,
) -> Result<(serde_json::Value, CompiledSchema), ToolError> {
    let (doc, path) = document(root, given, "schema", limits)?;
    let compiled =
        CompiledSchema::compile_named_with(&doc.value, given, Some(&path), RefAccess::SchemaDir)
            .map_err(|e| ToolError::new(format!("cannot use the schema `{given}`: {e}")))?;
    Ok((doc.value, compiled))
}

/// Reads the rules file `given` and the documents it names (each beneath the root), with
/// `refs` (name → path) overriding them.
pub fn rules(
    root: &Root,
    given: &str,
    refs: &BTreeMap<String, String>,
    limits: &Limits,
) -> Result<(RuleSet, References), ToolError> {
    let (doc, path) = document(root, given, "rules file", limits)?;
    let rules = RuleSet::from_document(&doc, path.parent())
        .map_err(|e| ToolError::new(format!("the rules file `{given}` is not valid: {e}")))?;
    let mut documents = References::new();
    for (name, doc_path) in rules.documents() {
        if !refs.contains_key(name) {
            documents.insert(name.clone(), reference(root, name, doc_path, limits)?);
        }
    }
    for (name, doc_path) in refs {
        documents.insert(
            name.clone(),
            reference(root, name, Path::new(doc_path), limits)?,
        );
    }
    Ok((rules, documents))
}

fn reference(root: &Root, name: &str, path: &Path, limits: &Limits) -> Result<Document, ToolError> {
    let given = path.to_string_lossy();
    Ok(document(
        root,
        &given,
        &format!("reference document `{name}`"),
        limits,
    )?
    .0)
}

/// The judge of the schemas and rules, reading a file (located diagnostics, no repair).
pub fn judge(
    root: &Root,
    schemas: &[String],
    rules: Option<&str>,
    refs: &BTreeMap<String, String>,
    limits: &Limits,
) -> Result<rectify::Validator, ToolError> {
    let mut set = SchemaSet::new();
    for given in schemas {
        set.push(schema(root, given, limits)?.1);
    }
    let mut builder = rectify::Validator::builder()
        .schemas(set)
        .repair(rectify::RepairPolicy::Off)
        .reading(rectify::Reading::File);
    if let Some(given) = rules {
        let (rules, references) = self::rules(root, given, refs, limits)?;
        builder = builder.rules(rules, references);
    }
    builder.build().map_err(|e| ToolError::new(e.to_string()))
}
