//! `rectify run`: load a workflow (every configuration problem, located, before any model is
//! called), then run it with its store in the working directory.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result};
use rectify_flow::engine::Progress;
use rectify_flow::{RunError, RunOptions, RunStatus, RunSummary, Store};

use crate::args::{Output, RunArgs};
use crate::exit::ExitStatus;
use crate::printer::json::print;
use crate::printer::run::{human, wire};

/// Runs `rectify run`.
pub fn run(args: &RunArgs) -> Result<ExitStatus> {
    let workflow = match rectify_flow::load(&args.workflow) {
        Ok(wf) => wf,
        Err(e) => return Err(anyhow::Error::new(e)),
    };
    if args.dry_run {
        return dry_run(&workflow, args);
    }
    let store = Arc::new(Store::open(&args.workdir).context("cannot open the run store")?);
    let mut options = RunOptions::new(&args.workdir);
    options.run_id.clone_from(&args.run_id);
    options.inputs.clone_from(&args.inputs);
    options.max_parallel = args.max_parallel as usize;
    if std::io::stderr().is_terminal() && args.output == Output::Human {
        options.progress = Some(Arc::new(progress));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let summary = match runtime.block_on(rectify_flow::run(workflow, store, options)) {
        Ok(s) => s,
        Err(RunError::Config(problems)) => {
            let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
            anyhow::bail!("the run cannot start:\n  {}", text.join("\n  "));
        }
        Err(RunError::Store(e)) => return Err(e.into()),
    };
    finish(&summary, args.output)
}

/// Prints the summary and maps the run's status to the exit status (DESIGN.md §11.3).
pub fn finish(summary: &RunSummary, output: Output) -> Result<ExitStatus> {
    match output {
        Output::Json => print(&wire(summary))?,
        Output::Human => human(summary)?,
    }
    Ok(match summary.status {
        RunStatus::Completed => ExitStatus::Success,
        RunStatus::Waiting => ExitStatus::Escalated,
        RunStatus::Failed if summary.failure.as_deref() == Some("provider") => ExitStatus::Provider,
        RunStatus::Failed | RunStatus::Running => ExitStatus::Invalid,
    })
}

fn dry_run(wf: &rectify_flow::Workflow, args: &RunArgs) -> Result<ExitStatus> {
    let levels = wf.levels();
    if args.output == Output::Json {
        print(&serde_json::json!({"workflow": wf.spec.name, "valid": true, "levels": levels}))?;
        return Ok(ExitStatus::Success);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "workflow `{}` is valid: {} steps",
        wf.spec.name,
        wf.spec.steps.len()
    )?;
    for (i, level) in levels.iter().enumerate() {
        let together = if level.len() > 1 {
            "  (in parallel)"
        } else {
            ""
        };
        writeln!(out, "{}. {}{together}", i + 1, level.join(", "))?;
    }
    Ok(ExitStatus::Success)
}

fn progress(p: &Progress) {
    let detail = if p.detail.is_empty() {
        String::new()
    } else {
        format!(" · {}", p.detail)
    };
    let _ = writeln!(std::io::stderr().lock(), "[{}] {}{detail}", p.step, p.what);
}
