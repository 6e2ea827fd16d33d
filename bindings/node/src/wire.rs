//! The JSON handed to JavaScript: the facade's wire types (`rectify::wire`, what `rectify …
//! --output json` prints and the Python package returns), serialised to text. Every result
//! crosses into JavaScript as one JSON text: `JSON.parse` builds the objects faster than
//! setting their properties one by one through N-API.

use rectify::engine::Outcome;
use rectify::flow::RunSummary;
use rectify::wire::{AskWire, CheckWire, DiagnosticWire, RunWire};
use rectify::{Diagnostic, Location, Repair, Severity};
use serde::Serialize;
use serde_json::Value;

use crate::config::failure;

fn text<T: Serialize + ?Sized>(wire: &T) -> napi::Result<String> {
    serde_json::to_string(wire).map_err(|e| failure(format!("cannot write the result: {e}")))
}

/// `rectify check --output json` ([`CheckWire`]): `{valid, diagnostics, repairs}`.
pub fn check(valid: bool, diagnostics: &[Diagnostic]) -> napi::Result<String> {
    text(&CheckWire::new(valid, diagnostics, &[]))
}

/// `rectify repair --output json` (the fields of [`rectify::wire::RepairWire`]): `{valid,
/// value, diagnostics, repairs}`, with the value's JSON text put in as the repair wrote it
/// (no `serde_json::Value` of a large document is built).
pub fn repair(
    valid: bool,
    value_json: Option<&str>,
    diagnostics: &[Diagnostic],
    repairs: &[Repair],
) -> napi::Result<String> {
    let diagnostics: Vec<DiagnosticWire<'_>> =
        diagnostics.iter().map(DiagnosticWire::from).collect();
    Ok(format!(
        r#"{{"valid":{valid},"value":{},"diagnostics":{},"repairs":{}}}"#,
        value_json.unwrap_or("null"),
        text(&diagnostics)?,
        text(repairs)?,
    ))
}

/// `rectify ask --output json` ([`AskWire`]): `status`, `value`, `diagnostics`, `repairs`,
/// `message`, `best_attempt`, `limit`, `provider_error`, `attempts`, `totals`.
pub fn outcome(outcome: &Outcome<Value>) -> napi::Result<String> {
    text(&AskWire::new(outcome))
}

/// `rectify run --output json` ([`RunWire`]); `workdir` goes into the `continue` commands.
pub fn run(summary: &RunSummary, workdir: &str) -> napi::Result<String> {
    text(&RunWire::new(summary, workdir))
}

/// A problem a JavaScript validator reported (`message`, and optionally `pointer`, `code`,
/// `severity`, `expected`, `received`) as a diagnostic.
pub fn diagnostic_from_js(v: &Value) -> Diagnostic {
    let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let message = text("message").unwrap_or_else(|| "the validator reported a problem".into());
    let location = Location::from_pointer(&text("pointer").unwrap_or_default());
    let code = text("code").unwrap_or_else(|| "validator.failed".into());
    let mut d = if text("severity").as_deref() == Some("warning") {
        Diagnostic::warning(code, location, message)
    } else {
        Diagnostic::error(code, location, message)
    };
    d.expected = text("expected");
    d.received = text("received");
    d
}

/// True when `ds` holds an error (not only warnings).
pub fn has_error(ds: &[Diagnostic]) -> bool {
    ds.iter().any(|d| d.severity == Severity::Error)
}
