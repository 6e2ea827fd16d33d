//! `rectify run`: load a workflow (every configuration problem, located, before any model is
//! called), then run it with its store in the working directory.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result};
use rectify_flow::engine::Progress;
use rectify_flow::{Decision, RunError, RunOptions, RunStatus, RunSummary, Store};

use crate::args::{Output, ResumeArgs, RunArgs};
use crate::exit::ExitStatus;
use crate::printer::json::{print, print_text};
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
    if let Some(address) = &args.on {
        return on_restate(args, address, &workflow);
    }
    let store = Arc::new(Store::open(&args.workdir).context("cannot open the run store")?);
    let mut options = RunOptions::new(&args.workdir);
    let run_id = args
        .run_id
        .clone()
        .unwrap_or_else(|| rectify_flow::engine::new_run_id(&workflow.spec.name));
    options.run_id = Some(run_id.clone());
    options.inputs.clone_from(&args.inputs);
    options.max_parallel = args.max_parallel as usize;
    if std::io::stderr().is_terminal() && args.output == Output::Human {
        options.progress = Some(Arc::new(progress));
    }
    let outcome = until_interrupted(rectify_flow::run(workflow, Arc::clone(&store), options))?;
    let result = match outcome {
        Ok(result) => result,
        Err(code) => {
            let released = release(&store, &run_id);
            let _ = writeln!(
                std::io::stderr().lock(),
                "interrupted: the run `{run_id}` stopped{released}; its finished steps and recorded answers are in the store (`rectify status {run_id}`), `rectify resume {run_id}` continues it"
            );
            return Ok(ExitStatus::Interrupted(code));
        }
    };
    let summary = match result {
        Ok(s) => s,
        Err(RunError::Config(problems)) => {
            let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
            anyhow::bail!("the run cannot start:\n  {}", text.join("\n  "));
        }
        Err(RunError::Store(e)) => return Err(e.into()),
    };
    finish(&summary, args.output, &args.workdir)
}

/// Runs the workflow on a Restate server (`--on`): starts the run through its ingress and
/// waits for its end, then prints and exits as for a local run.
fn on_restate(
    args: &RunArgs,
    address: &str,
    workflow: &rectify_flow::Workflow,
) -> Result<ExitStatus> {
    let client = rectify_restate::Client::new(address)?;
    let run_id = args
        .run_id
        .clone()
        .unwrap_or_else(|| rectify_flow::engine::new_run_id(&workflow.spec.name));
    let request = rectify_restate::RunRequest {
        workflow: std::path::absolute(&args.workflow)
            .context("cannot resolve the workflow's path")?,
        workdir: std::path::absolute(&args.workdir)
            .context("cannot resolve the working directory")?,
        inputs: args.inputs.clone(),
        source: Some(workflow.source.clone()),
        max_parallel: Some(args.max_parallel as usize),
    };
    let outcome = until_interrupted(client.run(&run_id, &request))?;
    finish_on_restate(outcome, &run_id, args.output, &args.workdir)
}

/// Prints what a run on Restate came to, as for a local run.
fn finish_on_restate(
    outcome: Result<Result<serde_json::Value, rectify_restate::ClientError>, u8>,
    run_id: &str,
    output: Output,
    workdir: &std::path::Path,
) -> Result<ExitStatus> {
    match outcome {
        Err(code) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "interrupted: stopped waiting; the run `{run_id}` goes on on Restate"
            );
            Ok(ExitStatus::Interrupted(code))
        }
        Ok(Err(e)) => Err(e.into()),
        Ok(Ok(value)) => {
            let summary: RunSummary = serde_json::from_value(value)
                .context("the Restate endpoint's answer is not a run summary")?;
            finish(&summary, output, workdir)
        }
    }
}

/// Sends the decision to a run on a Restate server (`resume --on`) and waits for its end or
/// next pause.
fn resume_on_restate(args: &ResumeArgs, address: &str) -> Result<ExitStatus> {
    let client = rectify_restate::Client::new(address)?;
    let decision = if !args.edits.is_empty() {
        let mut edits = Vec::with_capacity(args.edits.len());
        for (path, file) in &args.edits {
            // Restate's default message limit is 32 MiB; an edit is sent inside one.
            let bytes = rectify_flow::engine::read_bounded(file, 16 << 20)
                .map_err(|e| anyhow::anyhow!("cannot read the edit `{}`: {e}", file.display()))?
                .with_context(|| format!("the edit `{}` does not exist", file.display()))?;
            let content = String::from_utf8(bytes)
                .with_context(|| format!("the edit `{}` is not UTF-8 text", file.display()))?;
            edits.push((path.clone(), content));
        }
        rectify_restate::DecisionRequest::Edit {
            step: args.step.clone(),
            edits,
        }
    } else if args.approve {
        rectify_restate::DecisionRequest::Approve {
            step: args.step.clone(),
        }
    } else if let (true, Some(feedback)) = (args.reject, &args.feedback) {
        rectify_restate::DecisionRequest::Reject {
            step: args.step.clone(),
            feedback: feedback.clone(),
        }
    } else {
        rectify_restate::DecisionRequest::Continue
    };
    let outcome = until_interrupted(client.resume(&args.run, &decision))?;
    finish_on_restate(outcome, &args.run, args.output, &args.workdir)
}

/// Runs `rectify resume`.
pub fn resume(args: &ResumeArgs) -> Result<ExitStatus> {
    if let Some(address) = &args.on {
        return resume_on_restate(args, address);
    }
    let Some(store) = Store::open_existing(&args.workdir).context("cannot open the run store")?
    else {
        anyhow::bail!(
            "no run `{}`: `{}` has no run store (.rectify/rectify.db)",
            args.run,
            args.workdir.display()
        );
    };
    let decision = if !args.edits.is_empty() {
        Decision::Edit {
            step: args.step.clone(),
            edits: args.edits.clone(),
        }
    } else if args.approve {
        Decision::Approve {
            step: args.step.clone(),
        }
    } else if let (true, Some(feedback)) = (args.reject, &args.feedback) {
        Decision::Reject {
            step: args.step.clone(),
            feedback: feedback.clone(),
        }
    } else {
        Decision::Continue
    };
    let mut options = RunOptions::new(&args.workdir);
    options.max_parallel = args.max_parallel as usize;
    if std::io::stderr().is_terminal() && args.output == Output::Human {
        options.progress = Some(Arc::new(progress));
    }
    let run_id = args.run.clone();
    let store = Arc::new(store);
    let outcome = until_interrupted(rectify_flow::resume(
        Arc::clone(&store),
        &run_id,
        decision,
        options,
    ))?;
    match outcome {
        Err(code) => {
            let released = release(&store, &run_id);
            let _ = writeln!(
                std::io::stderr().lock(),
                "interrupted: the run `{run_id}` stopped{released}; `rectify resume {run_id}` continues it"
            );
            Ok(ExitStatus::Interrupted(code))
        }
        Ok(Err(RunError::Config(problems))) => {
            let text: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
            anyhow::bail!("cannot resume: {}", text.join("; "));
        }
        Ok(Err(RunError::Store(e))) => Err(e.into()),
        Ok(Ok(summary)) => finish(&summary, args.output, &args.workdir),
    }
}

/// After SIGINT or SIGTERM (the run's work already stopped): records the run as
/// `interrupted` and gives up its lease, so `status` tells it is not running and `resume`
/// continues it at once. Returns what to add to the message.
fn release(store: &Store, run_id: &str) -> String {
    match store.release(run_id, RunStatus::Interrupted) {
        Ok(true) => " and is recorded as interrupted".to_owned(),
        Ok(false) => String::new(),
        Err(e) => format!(" (it could not be recorded as interrupted: {e})"),
    }
}

/// Prints the summary and maps the run's status to the exit status (DESIGN.md §11.3).
pub fn finish(
    summary: &RunSummary,
    output: Output,
    workdir: &std::path::Path,
) -> Result<ExitStatus> {
    match output {
        Output::Json => print(&wire(summary, &workdir.to_string_lossy()))?,
        Output::Human => human(summary, false, &workdir.to_string_lossy())?,
    }
    Ok(match summary.status {
        RunStatus::Completed => ExitStatus::Success,
        RunStatus::Waiting => ExitStatus::Escalated,
        RunStatus::Failed if summary.failure.as_deref() == Some("provider") => ExitStatus::Provider,
        RunStatus::Failed | RunStatus::Running | RunStatus::Interrupted => ExitStatus::Invalid,
    })
}

fn dry_run(wf: &rectify_flow::Workflow, args: &RunArgs) -> Result<ExitStatus> {
    let levels = wf.levels();
    if args.output == Output::Json {
        print(&serde_json::json!({"workflow": wf.spec.name, "valid": true, "levels": levels}))?;
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
fn until_interrupted<F: std::future::Future>(work: F) -> Result<Result<F::Output, u8>> {
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

/// Waits for SIGINT or SIGTERM; returns the exit code for it (130 or 143).
pub(crate) async fn interrupted() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => 130,
        _ = term.recv() => 143,
    }
}

fn progress(p: &Progress) {
    let detail = if p.detail.is_empty() {
        String::new()
    } else {
        format!(" · {}", p.detail)
    };
    let _ = writeln!(std::io::stderr().lock(), "[{}] {}{detail}", p.step, p.what);
}
