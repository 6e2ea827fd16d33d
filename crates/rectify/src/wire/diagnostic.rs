//! One diagnostic on the wire.

use serde::Serialize;

use crate::{Diagnostic, Severity};

/// A [`Diagnostic`] on the wire: its location flattened into `path`, `pointer`, `line` and
/// `column` (`docs/output/check.schema.json`, `$defs/diagnostic`).
#[derive(Debug, Clone, Serialize)]
pub struct DiagnosticWire<'a> {
    severity: Severity,
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

impl<'a> From<&'a Diagnostic> for DiagnosticWire<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        DiagnosticWire {
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

/// Every diagnostic of `list` on the wire.
pub(crate) fn all(list: &[Diagnostic]) -> Vec<DiagnosticWire<'_>> {
    list.iter().map(DiagnosticWire::from).collect()
}
