//! `rectify status [RUN]`: a run's steps and what it waits for, or the list of runs.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use rectify::flow::Store;

use super::backend::Backend;

use crate::args::{Output, StatusArgs};
use crate::exit::ExitStatus;
use crate::printer::json::{print, print_text};
use crate::printer::run::human;

/// Runs `rectify status`.
pub fn run(args: &StatusArgs) -> Result<ExitStatus> {
    let Some(run) = &args.run else {
        let store = Store::open_existing(&args.workdir).context("cannot open the run store")?;
        return match store {
            Some(store) => list(&observed(&store)?, args.output),
            None => list(&[], args.output),
        };
    };
    let backend = Backend::choose(args.on.as_deref(), &args.workdir)?;
    let Some(summary) = backend.summary(run)? else {
        bail!("no run `{run}` {}", backend.place());
    };
    match args.output {
        Output::Json => print(&rectify::wire::RunWire::new(
            &summary,
            &args.workdir.to_string_lossy(),
        ))?,
        Output::Human => human(&summary, true, &args.workdir.to_string_lossy())?,
    }
    Ok(ExitStatus::Success)
}

/// Every run, newest first, each with the status a reader should see (a `running` run whose
/// process is gone is `interrupted`).
fn observed(store: &Store) -> Result<Vec<rectify::flow::store::RunRecord>> {
    let mut runs = store.runs()?;
    for r in &mut runs {
        r.status = store.observed_status(r)?;
    }
    Ok(runs)
}

fn list(runs: &[rectify::flow::store::RunRecord], output: Output) -> Result<ExitStatus> {
    if output == Output::Json {
        print(&rectify::wire::RunListWire::new(runs))?;
        return Ok(ExitStatus::Success);
    }
    let mut text = String::new();
    if runs.is_empty() {
        text.push_str("no runs\n");
    }
    for r in runs {
        let _ = writeln!(text, "{}  {:<10} {}", r.id, r.status.as_str(), r.workflow);
    }
    print_text(&text)?;
    Ok(ExitStatus::Success)
}
