//! Schemas, rules files and reference documents from the options JavaScript passes, and the
//! errors that say which of them is wrong.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use napi::{Error, Status};
use rectify::Format;
use rectify::check::{Checker, CompiledSchema};
use rectify::parse::Limits;
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
    name.parse().map_err(config_error)
}

/// A configuration file the checker reads cannot be used (`rectify::setup`'s words).
fn setup_error(e: rectify::setup::SetupError) -> Error {
    config_error(e.message)
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
    let access = rectify::check::RefAccess::SchemaDir;
    rectify::setup::schema(Path::new(path), &Limits::default(), access)
        .map(Some)
        .map_err(setup_error)
}

/// The checker of a schema, a rules file and reference documents (`refs`: name → path), built
/// by `rectify::setup` as the command-line tool builds it.
pub fn build_checker(
    schema: Option<CompiledSchema>,
    rules: Option<&str>,
    refs: Option<&HashMap<String, String>>,
) -> napi::Result<Checker> {
    let given: Vec<(String, PathBuf)> = refs
        .into_iter()
        .flatten()
        .map(|(name, path)| (name.clone(), PathBuf::from(path)))
        .collect();
    let limits = Limits::default();
    let rules = rules
        .map(|path| rectify::setup::rules(Path::new(path), &given, &limits))
        .transpose()
        .map_err(setup_error)?;
    rectify::setup::checker(schema, rules).map_err(setup_error)
}
