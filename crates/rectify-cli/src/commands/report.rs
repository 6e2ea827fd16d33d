//! `rectify report RUN`: the whole run as JSON, or as one self-contained HTML page.

use anyhow::{Context, Result, bail};
use rectify_core::Diagnostic;
use rectify_flow::{Report, Store};
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
fn wire_diagnostics(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.contains_key("severity") && map.contains_key("location") {
                if let Ok(d) = serde_json::from_value::<Diagnostic>(Value::Object(map.clone()))
                    && let Ok(wire) = serde_json::to_value(WireDiagnostic::from(&d))
                {
                    *value = wire;
                }
                return;
            }
            map.values_mut().for_each(wire_diagnostics);
        }
        Value::Array(items) => items.iter_mut().for_each(wire_diagnostics),
        _ => {}
    }
}
