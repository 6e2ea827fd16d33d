//! Reading schema, rules and reference files: one reader, the same limits and format
//! detection as every other file rectify reads (`rectify_parse::read_file`).

use std::path::Path;

use rectify_core::{Diagnostic, Document};
use rectify_parse::{Limits, ReadError};

/// Why a configuration file could not be used.
pub(crate) enum Failure {
    /// The file could not be read at all.
    Read(ReadError),
    /// The file was read but is not a valid document: the first error, with its position.
    Invalid(String),
}

/// Reads the document at `path` (format from the extension, else from the content).
pub(crate) fn read_document(path: &Path) -> Result<Document, Failure> {
    let parsed = rectify_parse::read_file(path, None, &Limits::default()).map_err(Failure::Read)?;
    if let Some(d) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        return Err(Failure::Invalid(describe(d)));
    }
    parsed
        .document
        .ok_or_else(|| Failure::Invalid("no document".to_owned()))
}

fn describe(d: &Diagnostic) -> String {
    match d.location.span {
        Some(s) => format!("{} (line {}, column {})", d.message, s.line, s.column),
        None => d.message.clone(),
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Read(e) => e.fmt(f),
            Failure::Invalid(message) => f.write_str(message),
        }
    }
}
