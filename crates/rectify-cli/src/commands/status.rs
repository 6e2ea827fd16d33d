//! `rectify status [RUN]`: a run's steps and what it waits for, or the list of runs.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use rectify_flow::{RunSummary, Store};

use crate::args::{Output, StatusArgs};
use crate::exit::ExitStatus;
use crate::printer::json::{print, print_text};
use crate::printer::run::{human, wire};

/// Runs `rectify status`.
pub fn run(args: &StatusArgs) -> Result<ExitStatus> {
    let store = Store::open_existing(&args.workdir).context("cannot open the run store")?;
    let Some(store) = store else {
        if let Some(run) = &args.run {
            bail!(
                "no run `{run}`: `{}` has no run store (.rectify/rectify.db)",
                args.workdir.display()
            );
        }
        return list(&[], args.output);
    };
    match &args.run {
        Some(run) => {
            let Some(summary) = RunSummary::find(&store, run)? else {
                bail!("no run `{run}` in `{}`", args.workdir.display());
            };
            match args.output {
                Output::Json => print(&wire(&summary))?,
                Output::Human => human(&summary, true, &args.workdir.to_string_lossy())?,
            }
            Ok(ExitStatus::Success)
        }
        None => list(&store.runs()?, args.output),
    }
}

fn list(runs: &[rectify_flow::store::RunRecord], output: Output) -> Result<ExitStatus> {
    if output == Output::Json {
        print(&serde_json::json!({"runs": runs}))?;
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
