//! `rectify report RUN`: the whole run as JSON, or as one self-contained HTML page.

use anyhow::{Context, Result, bail};
use rectify::flow::{Report, Store};

use crate::args::{ReportArgs, ReportFormat};
use crate::exit::ExitStatus;
use crate::printer::json::{print, print_text};
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
            print(&rectify::wire::report(&report)?)?;
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
