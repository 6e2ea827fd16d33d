//! The `--output json` wire format of `rectify check` (docs/architecture.md, "Wire formats and exit
//! codes").

use rectify::{Diagnostic, Repair};
use serde::Serialize;

/// One diagnostic on the wire: location fields flattened.
#[derive(Debug, Serialize)]
pub struct WireDiagnostic<'a> {
    severity: rectify::Severity,
    code: &'a str,
    path: &'a str,
    pointer: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    message: &'a str,
    expected: Option<&'a str>,
    received: Option<&'a str>,
    source: &'a str,
}

impl<'a> From<&'a Diagnostic> for WireDiagnostic<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        WireDiagnostic {
            severity: d.severity,
            code: &d.code,
            path: &d.location.path,
            pointer: &d.location.pointer,
            line: d.location.span.map(|s| s.line),
            column: d.location.span.map(|s| s.column),
            message: &d.message,
            expected: d.expected.as_deref(),
            received: d.received.as_deref(),
            source: &d.source,
        }
    }
}

/// The result of `rectify check --output json`.
#[derive(Debug, Serialize)]
pub struct CheckOutput<'a> {
    valid: bool,
    diagnostics: Vec<WireDiagnostic<'a>>,
    repairs: &'a [Repair],
}

impl<'a> CheckOutput<'a> {
    /// Builds the output document.
    pub fn new(valid: bool, diagnostics: &'a [Diagnostic], repairs: &'a [Repair]) -> Self {
        CheckOutput {
            valid,
            diagnostics: diagnostics.iter().map(WireDiagnostic::from).collect(),
            repairs,
        }
    }
}

/// Writes `text` on stdout (a closed pipe is not an error).
pub fn print_text(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let write = || {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()
    };
    crate::exit::pipe_closed_ok(write())
}

/// Writes `value` as one JSON document and a newline on stdout.
pub fn print<T: Serialize>(value: &T) -> std::io::Result<()> {
    use std::io::Write;
    let write = || {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
        out.flush()
    };
    crate::exit::pipe_closed_ok(write())
}
