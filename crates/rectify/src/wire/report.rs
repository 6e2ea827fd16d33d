//! `rectify report RUN --output json` on the wire (`docs/output/report.schema.json`).

use serde_json::Value;

use super::diagnostic::DiagnosticWire;
use crate::Diagnostic;
use crate::flow::Report;

/// The whole run as one JSON document: the report with every diagnostic in the wire shape
/// of [`DiagnosticWire`], so the report speaks the same diagnostic format as every command.
///
/// # Errors
///
/// When the report cannot be serialised (a number that is not finite).
pub fn report(report: &Report) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(report)?;
    wire_diagnostics(&mut value);
    Ok(value)
}

/// Rewrites every diagnostic in `value` to the wire shape. Diagnostics are where the report
/// keeps them — `diagnostics` and `problems` lists, a call's `failed` — and never inside the
/// run's `inputs` or a step's `output`, which are the user's data even when they look like
/// diagnostics.
fn wire_diagnostics(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match key.as_str() {
                    "inputs" | "output" => {}
                    "diagnostics" | "problems" => {
                        if let Value::Array(items) = item {
                            items.iter_mut().for_each(to_wire);
                        }
                    }
                    "failed" => to_wire(item),
                    _ => wire_diagnostics(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(wire_diagnostics),
        _ => {}
    }
}

/// One stored diagnostic in the wire shape (left as it is when it is not one).
fn to_wire(value: &mut Value) {
    if let Ok(d) = serde_json::from_value::<Diagnostic>(value.clone())
        && let Ok(wire) = serde_json::to_value(DiagnosticWire::from(&d))
    {
        *value = wire;
    }
}
