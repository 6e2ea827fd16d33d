//! `rectify runs prune --older-than DURATION`.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use rectify::flow::Store;

use crate::args::{RunsArgs, RunsCommand};
use crate::exit::ExitStatus;
use crate::printer::json::print_text;

/// Runs `rectify runs`.
pub fn run(args: &RunsArgs) -> Result<ExitStatus> {
    match &args.command {
        RunsCommand::Prune(prune) => {
            let Some(store) =
                Store::open_existing(&prune.workdir).context("cannot open the run store")?
            else {
                print_text("no run store: nothing to prune\n")?;
                return Ok(ExitStatus::Success);
            };
            let age = i64::try_from(prune.older_than.as_millis()).unwrap_or(i64::MAX);
            let cutoff = rectify::flow::store::now_ms().saturating_sub(age);
            let deleted = store.prune(cutoff).context("cannot prune the run store")?;
            let mut text = format!(
                "pruned {} run{}\n",
                deleted.len(),
                if deleted.len() == 1 { "" } else { "s" }
            );
            for id in &deleted {
                let _ = writeln!(text, "  {id}");
            }
            print_text(&text)?;
            Ok(ExitStatus::Success)
        }
    }
}
