//! Schemas, rules files and reference documents from the options JavaScript passes, and the
//! errors that say which of them is wrong.

use std::collections::HashMap;
use std::path::Path;

use napi::{Error, Status};
use rectify::check::{Checker, CompiledSchema, References, RuleSet, SchemaSet};
use rectify::{Diagnostic, Format};
use serde_json::Value;

/// A configuration error: JavaScript sees `code: "InvalidArg"` and the TypeScript layer raises
/// a `ConfigError`.
pub fn config_error(message: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, message.to_string())
}

/// Any other failure (the run store, the runtime): a plain `Error` in JavaScript.
pub fn failure(message: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, message.to_string())
}

/// A format by name.
pub fn format_named(name: &str) -> napi::Result<Format> {
    match name {
        "json" => Ok(Format::Json),
        "yaml" => Ok(Format::Yaml),
        "markdown" => Ok(Format::Markdown),
        other => Err(config_error(format!(
            "unknown format `{other}` (use json, yaml or markdown)"
        ))),
    }
}

/// Reads a configuration file (schema, rules file, reference document) as a document.
pub fn read_config(path: &str, what: &str) -> napi::Result<rectify::Document> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| config_error(format!("cannot read the {what} `{path}`: {e}")))?;
    let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&text));
    let parsed = rectify::read_str(&text, format);
    match parsed.document {
        Some(doc) if !parsed.diagnostics.iter().any(Diagnostic::is_error) => Ok(doc),
        _ => {
            let why: Vec<String> = parsed
                .diagnostics
                .iter()
                .map(|d| d.message.clone())
                .collect();
            Err(config_error(format!(
                "the {what} `{path}` cannot be read: {}",
                why.join("; ")
            )))
        }
    }
}

/// Parses JSON text JavaScript produced with `JSON.stringify`.
pub fn parse_json(text: &str, what: &str) -> napi::Result<Value> {
    serde_json::from_str(text).map_err(|e| config_error(format!("the {what} is not JSON: {e}")))
}

/// The schema of the options: JSON Schema text (`schema`) or a file (`schema_path`), compiled.
pub fn compile_schema(
    json: Option<&str>,
    path: Option<&str>,
) -> napi::Result<Option<(Value, CompiledSchema)>> {
    if let Some(text) = json {
        let value = parse_json(text, "schema")?;
        let compiled = CompiledSchema::compile(&value)
            .map_err(|e| config_error(format!("the schema is not valid: {e}")))?;
        return Ok(Some((value, compiled)));
    }
    let Some(path) = path else {
        return Ok(None);
    };
    let doc = read_config(path, "schema")?;
    let compiled = CompiledSchema::compile_file(Path::new(path))
        .map_err(|e| config_error(format!("cannot use the schema `{path}`: {e}")))?;
    Ok(Some((doc.value, compiled)))
}

/// The checker of a schema, a rules file and reference documents (`refs`: name → path).
pub fn build_checker(
    schema: Option<CompiledSchema>,
    rules: Option<&str>,
    refs: Option<&HashMap<String, String>>,
) -> napi::Result<Checker> {
    let mut schemas = SchemaSet::new();
    if let Some(s) = schema {
        schemas.push(s);
    }
    let mut builder = Checker::builder().schemas(schemas);
    let mut documents = References::new();
    for (name, path) in refs.into_iter().flatten() {
        let doc = read_config(path, &format!("reference document `{name}`"))?;
        documents.insert(name.clone(), doc);
    }
    if let Some(path) = rules {
        let doc = read_config(path, "rules file")?;
        let set = RuleSet::from_document(&doc, Path::new(path).parent())
            .map_err(|e| config_error(format!("the rules file `{path}` is not valid: {e}")))?;
        for (name, doc_path) in set.documents() {
            if !documents.contains_key(name) {
                let doc = read_config(
                    &doc_path.to_string_lossy(),
                    &format!("reference document `{name}`"),
                )?;
                documents.insert(name.clone(), doc);
            }
        }
        builder = builder.rules(set);
    }
    builder.references(documents).build().map_err(config_error)
}
