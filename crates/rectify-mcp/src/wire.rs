//! The wire formats of the tools' structured output: those of `--output json`
//! (docs/output.md), built from the library's results.

use rectify::{Diagnostic, Repair};
use serde::Serialize;
use serde_json::Value;

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

fn diagnostics(list: &[Diagnostic]) -> Vec<WireDiagnostic<'_>> {
    list.iter().map(WireDiagnostic::from).collect()
}

/// `rectify check --output json`.
#[derive(Debug, Serialize)]
pub struct CheckOutput<'a> {
    valid: bool,
    diagnostics: Vec<WireDiagnostic<'a>>,
    repairs: &'a [Repair],
}

impl<'a> CheckOutput<'a> {
    /// The output for a checked document.
    pub fn new(valid: bool, list: &'a [Diagnostic], repairs: &'a [Repair]) -> Self {
        CheckOutput {
            valid,
            diagnostics: diagnostics(list),
            repairs,
        }
    }
}

/// `rectify repair --output json`.
#[derive(Debug, Serialize)]
pub struct RepairResult<'a> {
    valid: bool,
    value: Option<&'a Value>,
    diagnostics: Vec<WireDiagnostic<'a>>,
    repairs: &'a [Repair],
}

impl<'a> RepairResult<'a> {
    /// The output for a repaired text.
    pub fn new(r: &'a rectify::repair::Repaired) -> Self {
        RepairResult {
            valid: r.is_valid(),
            value: r.value.as_ref(),
            diagnostics: diagnostics(&r.diagnostics),
            repairs: &r.repairs,
        }
    }
}

/// `rectify run`, `resume` and `status RUN --output json`.
pub fn run(
    summary: &rectify::flow::RunSummary,
    _workdir: &std::path::Path,
) -> crate::tools::ToolResult {
    crate::tools::to_value(summary)
}

/// `rectify report RUN --output json`.
pub fn report(report: &rectify::flow::Report) -> crate::tools::ToolResult {
    crate::tools::to_value(report)
}

/// `rectify ask --output json`.
pub fn ask(outcome: &rectify::engine::Outcome) -> crate::tools::ToolResult {
    use rectify::engine::Outcome;
    let (status, value, list, repairs): (&str, Option<&Value>, &[Diagnostic], &[Repair]) =
        match outcome {
            Outcome::Valid {
                value,
                warnings,
                repairs,
                ..
            } => ("valid", Some(value), warnings, repairs),
            Outcome::Exhausted {
                best, diagnostics, ..
            } => (
                "exhausted",
                best.as_ref().and_then(|b| b.value.as_ref()),
                diagnostics,
                &[],
            ),
            Outcome::Refused { .. } => ("refused", None, &[], &[]),
            _ => ("provider_failed", None, &[], &[]),
        };
    crate::tools::to_value(
        &serde_json::json!({"status": status, "value": value, "diagnostics": diagnostics(list), "repairs": repairs}),
    )
}

/// `rectify status --output json` (the list of runs).
#[derive(Debug, Serialize)]
pub struct RunList<'a> {
    runs: Vec<Value>,
    #[serde(skip)]
    _marker: std::marker::PhantomData<&'a ()>,
}

impl<'a> RunList<'a> {
    /// The list.
    pub fn new(runs: &'a [rectify::flow::store::RunRecord]) -> Self {
        RunList {
            runs: runs
                .iter()
                .map(|r| serde_json::json!({"id": r.id, "workflow": r.workflow, "status": r.status.as_str()}))
                .collect(),
            _marker: std::marker::PhantomData,
        }
    }
}
