//! `rectify report RUN`: the whole run as JSON, or as one self-contained HTML page.

use anyhow::{Context, Result, bail};
use rectify::Diagnostic;
use rectify::flow::{Report, Store};
use serde_json::Value;

use crate::args::{ReportArgs, ReportFormat};
use crate::exit::ExitStatus;
use crate::printer::json::{WireDiagnostic, print, print_text};
use crate::printer::report_html;

/// Runs `rectify report`.
pub fn run(args: &ReportArgs) -> Result<ExitStatus> {
    let Some(store) = Store::open_existing(&args.workdir).context("cannot open the run store")?
    else {
        bail!(
            "no run `{}`: `{}` has no run store (.rectify/rectify.db)",
            args.run,
            args.workdir.display()
        );
    };
    let Some(report) = Report::load(&store, &args.run)? else {
        bail!("no run `{}` in `{}`", args.run, args.workdir.display());
    };
    match args.output {
        ReportFormat::Json => {
            let mut value = serde_json::to_value(&report)?;
            wire_diagnostics(&mut value);
            print(&value)?;
        }
        ReportFormat::Html => {
            print_text(&report_html::render(
                &report,
                &args.workdir.to_string_lossy(),
            ))?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Rewrites every diagnostic in `value` to the wire shape of `rectify check` (location
/// fields flattened), so the report speaks the same diagnostic format as every command.
/// Diagnostics are where the report keeps them — `diagnostics` and `problems` lists, a
/// call's `failed` — and never inside the run's `inputs` or a step's `output`, which are the
/// user's data even when they look like diagnostics.
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
        && let Ok(wire) = serde_json::to_value(WireDiagnostic::from(&d))
    {
        *value = wire;
    }
}
