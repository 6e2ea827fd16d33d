//! What tools are configured with: schemas, rules files and their reference documents, read
//! only from beneath the root. Anything wrong here is a tool error naming the file.

use std::collections::BTreeMap;
use std::path::Path;

use rectify::check::{CompiledSchema, RefAccess, References, RuleSet, SchemaSet};
use rectify::flow::beneath::{self, BeneathError};
use rectify::parse::Limits;
use rectify::{Document, Format};

use crate::Root;
use crate::tools::ToolError;

/// Reads the file `given` names beneath the root, at most the input limit.
pub fn read_file(root: &Root, given: &str, limits: &Limits) -> Result<Vec<u8>, ToolError> {
    read_resolved(root, &root.resolve(given)?, given, limits)
}

/// Reads `path` (already resolved beneath the root), which the client named `given`, opened
/// beneath the root at the moment of access (`rectify::flow::beneath`, the workflow engine's
/// `openat2(RESOLVE_BENEATH)`): a directory on the way swapped for a symbolic link out of the
/// root after [`Root::resolve`] checked it is refused by the kernel, and nothing is read.
fn read_resolved(
    root: &Root,
    path: &Path,
    given: &str,
    limits: &Limits,
) -> Result<Vec<u8>, ToolError> {
    let leads_out = || {
        ToolError::new(format!(
            "`{given}` leads out of the server's root `{}` through a symbolic link",
            root.path().display()
        ))
    };
    let rel = path.strip_prefix(root.path()).map_err(|_| leads_out())?;
    let limit = u64::try_from(limits.max_bytes).unwrap_or(u64::MAX);
    match beneath::read(root.path(), rel, limit) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(ToolError::new(format!(
            "cannot read `{given}`: it does not exist"
        ))),
        Err(BeneathError::Escapes(_)) => Err(leads_out()),
        Err(BeneathError::NotAFile(_)) if path.is_dir() => {
            Err(ToolError::new(format!("`{given}` is a directory")))
        }
        Err(e) => Err(ToolError::new(format!("cannot read `{given}`: {e}"))),
    }
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
    let bytes = read_resolved(root, &path, given, limits)?;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// The race the check-then-open order left open: a directory checked by
    /// [`Root::resolve`], then swapped for a symbolic link out of the root before the read.
    #[test]
    fn a_directory_swapped_for_a_symlink_after_the_check_is_not_read() {
        let base = tempfile::tempdir().unwrap();
        let root_dir = base.path().join("root");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(root_dir.join("docs")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root_dir.join("docs/a.json"), "{}").unwrap();
        std::fs::write(outside.join("a.json"), "SECRET").unwrap();
        let root = Root::new(&root_dir).unwrap();
        let limits = Limits::default();

        let path = root.resolve("docs/a.json").unwrap();
        std::fs::rename(root_dir.join("docs"), root_dir.join("old")).unwrap();
        std::os::unix::fs::symlink(&outside, root_dir.join("docs")).unwrap();

        let err = read_resolved(&root, &path, "docs/a.json", &limits).unwrap_err();
        assert!(err.message().contains("leads out"), "{}", err.message());
        assert!(!err.message().contains("SECRET"));
        // Resolved now, the same name is refused before anything is opened.
        assert!(read_file(&root, "docs/a.json", &limits).is_err());
    }

    #[test]
    fn a_file_beneath_the_root_is_read_and_a_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/x.json"), "[1]").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let limits = Limits::default();
        assert_eq!(read_file(&root, "d/x.json", &limits).unwrap(), b"[1]");
        let err = read_file(&root, "d", &limits).unwrap_err();
        assert!(
            err.message().contains("is a directory"),
            "{}",
            err.message()
        );
    }
}
