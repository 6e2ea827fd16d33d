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
    if let (Some(address), Some(run)) = (&args.on, &args.run) {
        return on_restate(address, run, args);
    }
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
                Output::Json => print(&wire(&summary, &args.workdir.to_string_lossy()))?,
                Output::Human => human(&summary, true, &args.workdir.to_string_lossy())?,
            }
            Ok(ExitStatus::Success)
        }
        None => list(&observed(&store)?, args.output),
    }
}

/// Every run, newest first, each with the status a reader should see (a `running` run whose
/// process is gone is `interrupted`).
fn observed(store: &Store) -> Result<Vec<rectify_flow::store::RunRecord>> {
    let mut runs = store.runs()?;
    for r in &mut runs {
        r.status = store.observed_status(r)?;
    }
    Ok(runs)
}

/// `status --on`: the run's latest summary as its Restate workflow keeps it.
fn on_restate(address: &str, run: &str, args: &StatusArgs) -> Result<ExitStatus> {
    let client = rectify_restate::Client::new(address)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let state = runtime.block_on(client.state(run))?;
    let Some(value) = state.summary else {
        bail!("no run `{run}` on {address}");
    };
    if value["status"] == "error" {
        bail!(
            "the run `{run}` could not start: {}",
            value["message"].as_str().unwrap_or_default()
        );
    }
    let summary: RunSummary = serde_json::from_value(value)
        .context("the Restate endpoint's answer is not a run summary")?;
    match args.output {
        Output::Json => print(&wire(&summary, &args.workdir.to_string_lossy()))?,
        Output::Human => human(&summary, true, &args.workdir.to_string_lossy())?,
    }
    Ok(ExitStatus::Success)
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
