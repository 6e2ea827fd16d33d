//! `check` and `repair`: the judge `rectify check` uses, and the repair of `rectify repair`.

use rectify::Format;
use rectify::parse::Limits;
use rectify::repair::RepairOptions;

use super::schemas::{CheckParams, RepairParams};
use super::{ToolError, ToolResult, to_value};
use crate::{Root, config};
use rectify::wire::{CheckWire, RepairWire};

/// The document's name (for format detection) and bytes: `file` beneath the root, or
/// `content`.
fn source(
    root: &Root,
    file: Option<&str>,
    content: Option<&str>,
    limits: &Limits,
) -> Result<(String, Vec<u8>), ToolError> {
    match (file, content) {
        (Some(file), None) => Ok((file.to_owned(), config::read_file(root, file, limits)?)),
        (None, Some(text)) if text.len() <= limits.max_bytes => {
            Ok(("<content>".to_owned(), text.as_bytes().to_vec()))
        }
        (None, Some(_)) => Err(ToolError::new(format!(
            "`content` is larger than the input limit of {} bytes",
            limits.max_bytes
        ))),
        _ => Err(ToolError::new("give either `file` or `content`")),
    }
}

/// Runs `check`: the schemas and rules compiled into one judge, the document read as
/// `rectify check` reads it (the same call: located diagnostics; a Markdown document wrapped
/// whole in a fence is judged as its content, located in the whole file), nothing repaired.
pub fn check(root: &Root, p: &CheckParams) -> ToolResult {
    let limits = Limits::default();
    let judge = config::judge(root, &p.schema, p.rules.as_deref(), &p.refs, &limits)?;
    let (name, bytes) = source(root, p.file.as_deref(), p.content.as_deref(), &limits)?;
    let format = rectify::parse::detect_format(&name, &bytes, p.format.map(Format::from));
    let checked = rectify::check_file(&judge, bytes, format, &limits);
    to_value(&CheckWire::new(
        checked.valid,
        &checked.diagnostics,
        &checked.repairs,
    ))
}

/// Runs `repair`.
pub fn repair(root: &Root, p: &RepairParams) -> ToolResult {
    let limits = Limits::default();
    let (name, bytes) = source(root, p.file.as_deref(), p.content.as_deref(), &limits)?;
    let format = p
        .format
        .map(Format::from)
        .or_else(|| match Format::from_path(&name) {
            Some(f @ (Format::Json | Format::Yaml)) => Some(f),
            _ => None,
        });
    let mut options = RepairOptions::default()
        .with_unsafe(p.allow_unsafe)
        .with_strict(p.strict)
        .with_format(format);
    if let Some(given) = &p.schema {
        options = options.with_schema(config::document(root, given, "schema", &limits)?.0.value);
    }
    let repaired = rectify::repair::repair_bytes(&bytes, &options);
    to_value(&RepairWire::from(&repaired))
}
