//! `rectify run`: load a workflow (every configuration problem, located, before any model is
//! called), then run it with its store in the working directory.

use std::fmt::Write as _;
use std::io::Write;

use anyhow::{Context, Result};
use rectify::flow::RunSummary;
use rectify::flow::engine::Progress;

use super::backend::{Backend, Ended};
use super::interrupted;

use crate::args::{Output, ResumeArgs, RunArgs};
use crate::exit::ExitStatus;
use crate::printer::json::{print, print_text};
use crate::printer::run::human;

/// Runs `rectify run`.
pub fn run(args: &RunArgs) -> Result<ExitStatus> {
    let workflow = match rectify::flow::load(&args.workflow) {
        Ok(wf) => wf,
        Err(e) => return Err(anyhow::Error::new(e)),
    };
    if args.dry_run {
        return dry_run(&workflow, args);
    }
    let ended = Backend::choose(args.on.as_deref(), &args.workdir)?.start(workflow, args)?;
    end(ended, args.output, &args.workdir)
}

/// Runs `rectify resume`.
pub fn resume(args: &ResumeArgs) -> Result<ExitStatus> {
    let ended = Backend::choose(args.on.as_deref(), &args.workdir)?.resume(args)?;
    end(ended, args.output, &args.workdir)
}

/// Prints how the wait for a run ended, and the exit status for it.
fn end(ended: Ended, output: Output, workdir: &std::path::Path) -> Result<ExitStatus> {
    match ended {
        Ended::Summary(summary) => finish(&summary, output, workdir),
        Ended::Interrupted(code, message) => {
            super::backend::say(&message);
            Ok(ExitStatus::Interrupted(code))
        }
    }
}

/// Prints the summary and maps the run's status to the exit status (docs/architecture.md, "Wire
/// formats and exit codes").
pub fn finish(
    summary: &RunSummary,
    output: Output,
    workdir: &std::path::Path,
) -> Result<ExitStatus> {
    match output {
        Output::Json => print(&rectify::wire::RunWire::new(
            summary,
            &workdir.to_string_lossy(),
        ))?,
        Output::Human => human(summary, false, &workdir.to_string_lossy())?,
    }
    Ok(ExitStatus::of_run(summary))
}

fn dry_run(wf: &rectify::flow::Workflow, args: &RunArgs) -> Result<ExitStatus> {
    let levels = wf.levels();
    if args.output == Output::Json {
        print(&rectify::wire::DryRunWire {
            workflow: &wf.spec.name,
            valid: true,
            levels,
        })?;
        return Ok(ExitStatus::Success);
    }
    let n = wf.spec.steps.len();
    let s = if n == 1 { "" } else { "s" };
    let mut text = format!("workflow `{}` is valid: {n} step{s}\n", wf.spec.name);
    for (i, level) in levels.iter().enumerate() {
        let together = if level.len() > 1 {
            "  (in parallel)"
        } else {
            ""
        };
        let _ = writeln!(text, "{}. {}{together}", i + 1, level.join(", "));
    }
    print_text(&text)?;
    Ok(ExitStatus::Success)
}

/// Runs `work` on a runtime until it ends (`Ok`) or SIGINT/SIGTERM arrives (`Err` with the exit
/// code). Leaving the runtime drops whatever still runs: agents' process groups are killed, and
/// every state change already committed stays in the store.
pub(crate) fn until_interrupted<F: std::future::Future>(work: F) -> Result<Result<F::Output, u8>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = runtime.block_on(async {
        tokio::select! {
            result = work => Ok(result),
            code = interrupted() => Err(code),
        }
    });
    drop(runtime);
    Ok(outcome)
}

/// Prints one progress line on stderr.
pub(crate) fn progress(p: &Progress) {
    let detail = if p.detail.is_empty() {
        String::new()
    } else {
        format!(" · {}", p.detail)
    };
    let _ = writeln!(std::io::stderr().lock(), "[{}] {}{detail}", p.step, p.what);
}
