//! Where workflows run: here, with the store in the working directory, or on a Restate server
//! (`--on`). Chosen once per command ([`Backend::choose`]); `run`, `resume` and `status` then
//! ask the backend and print what it answers the same way for both.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use rectify::flow::{Decision, RunError, RunOptions, RunStatus, RunSummary, Store, Workflow};

use super::run::{progress, until_interrupted};
use crate::args::{Output, ResumeArgs, RunArgs};

/// Where a command's runs are.
pub enum Backend {
    /// This process runs the workflow; the store is `WORKDIR/.rectify/rectify.db`.
    Local(PathBuf),
    /// A Restate server runs it (`--on restate://…`).
    Restate(rectify::restate::Client, String),
}

/// How a command's wait for a run ended.
pub enum Ended {
    /// The run ended or paused: its summary.
    Summary(Box<RunSummary>),
    /// SIGINT or SIGTERM: the exit code and what to tell the person.
    Interrupted(u8, String),
}

impl Backend {
    /// The backend `--on` names, else the local one for `workdir`.
    pub fn choose(on: Option<&str>, workdir: &Path) -> Result<Backend> {
        Ok(match on {
            Some(address) => {
                Backend::Restate(rectify::restate::Client::new(address)?, address.to_owned())
            }
            None => Backend::Local(workdir.to_path_buf()),
        })
    }

    /// Starts `workflow` (loaded from `args.workflow`) and waits for it to end or pause.
    pub fn start(&self, workflow: Workflow, args: &RunArgs) -> Result<Ended> {
        let run_id = args
            .run_id
            .clone()
            .unwrap_or_else(|| rectify::flow::engine::new_run_id(&workflow.spec.name));
        match self {
            Backend::Local(workdir) => {
                let store = Arc::new(Store::open(workdir).context("cannot open the run store")?);
                let mut options = options(workdir, args.max_parallel, args.output);
                options.run_id = Some(run_id.clone());
                options.inputs.clone_from(&args.inputs);
                let outcome =
                    until_interrupted(rectify::flow::run(workflow, Arc::clone(&store), options))?;
                local_end(outcome, &store, &run_id)
            }
            Backend::Restate(client, _) => {
                let request = rectify::restate::RunRequest {
                    workflow: std::path::absolute(&args.workflow)
                        .context("cannot resolve the workflow's path")?,
                    workdir: std::path::absolute(&args.workdir)
                        .context("cannot resolve the working directory")?,
                    inputs: args.inputs.clone(),
                    source: Some(workflow.source.clone()),
                    max_parallel: Some(args.max_parallel as usize),
                };
                restate_end(until_interrupted(client.run(&run_id, &request))?, &run_id)
            }
        }
    }

    /// Sends the person's decision (or none) to the run `args.run` and waits for its end or
    /// next pause.
    pub fn resume(&self, args: &ResumeArgs) -> Result<Ended> {
        match self {
            Backend::Local(workdir) => {
                let store = Arc::new(existing_store(workdir, &args.run)?);
                let options = options(workdir, args.max_parallel, args.output);
                let outcome = until_interrupted(rectify::flow::resume(
                    Arc::clone(&store),
                    &args.run,
                    decision(args),
                    options,
                ))?;
                local_end(outcome, &store, &args.run)
            }
            Backend::Restate(client, _) => {
                let decision = restate_decision(args)?;
                restate_end(
                    until_interrupted(client.resume(&args.run, &decision))?,
                    &args.run,
                )
            }
        }
    }

    /// The summary of `run` as the backend keeps it (`None`: no such run).
    pub fn summary(&self, run: &str) -> Result<Option<RunSummary>> {
        match self {
            Backend::Local(workdir) => Ok(RunSummary::find(&existing_store(workdir, run)?, run)?),
            Backend::Restate(client, _) => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("cannot start the async runtime")?;
                let state = runtime.block_on(client.state(run))?;
                let Some(value) = state.summary else {
                    return Ok(None);
                };
                if value["status"] == "error" {
                    bail!(
                        "the run `{run}` could not start: {}",
                        value["message"].as_str().unwrap_or_default()
                    );
                }
                Ok(Some(serde_json::from_value(value).context(
                    "the Restate endpoint's answer is not a run summary",
                )?))
            }
        }
    }

    /// Where the runs are, for messages (`in DIR`, `on ADDRESS`).
    pub fn place(&self) -> String {
        match self {
            Backend::Local(workdir) => format!("in `{}`", workdir.display()),
            Backend::Restate(_, address) => format!("on {address}"),
        }
    }
}

/// The store of `workdir`, which must exist: `run` is looked up in it.
fn existing_store(workdir: &Path, run: &str) -> Result<Store> {
    match Store::open_existing(workdir).context("cannot open the run store")? {
        Some(store) => Ok(store),
        None => bail!(
            "no run `{run}`: `{}` has no run store (.rectify/rectify.db)",
            workdir.display()
        ),
    }
}

/// A local run's options: its working directory, parallelism, and progress on a terminal.
fn options(workdir: &Path, max_parallel: u32, output: Output) -> RunOptions {
    let mut options = RunOptions::new(workdir);
    options.max_parallel = max_parallel as usize;
    if std::io::stderr().is_terminal() && output == Output::Human {
        options.progress = Some(Arc::new(progress));
    }
    options
}

/// What a local run (or resume) came to (a configuration error in `RunError`'s own words).
fn local_end(
    outcome: Result<Result<RunSummary, RunError>, u8>,
    store: &Store,
    run_id: &str,
) -> Result<Ended> {
    match outcome {
        Err(code) => {
            let released = release(store, run_id);
            Ok(Ended::Interrupted(
                code,
                format!(
                    "interrupted: the run `{run_id}` stopped{released}; its finished steps and recorded answers are in the store (`rectify status {run_id}`), `rectify resume {run_id}` continues it"
                ),
            ))
        }
        Ok(Err(e @ RunError::Config(_))) => bail!("{e}"),
        Ok(Err(RunError::Store(e))) => Err(e.into()),
        Ok(Ok(summary)) => Ok(Ended::Summary(Box::new(summary))),
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

/// What a run on Restate came to (the wait may be interrupted; the run goes on there).
fn restate_end(
    outcome: Result<Result<serde_json::Value, rectify::restate::ClientError>, u8>,
    run_id: &str,
) -> Result<Ended> {
    match outcome {
        Err(code) => Ok(Ended::Interrupted(
            code,
            format!("interrupted: stopped waiting; the run `{run_id}` goes on on Restate"),
        )),
        Ok(Err(e)) => Err(e.into()),
        Ok(Ok(value)) => Ok(Ended::Summary(
            serde_json::from_value(value)
                .context("the Restate endpoint's answer is not a run summary")?,
        )),
    }
}

/// The person's decision from `resume`'s flags.
fn decision(args: &ResumeArgs) -> Decision {
    if !args.edits.is_empty() {
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
    }
}

/// The same decision for a Restate server: edits travel inside the request.
fn restate_decision(args: &ResumeArgs) -> Result<rectify::restate::DecisionRequest> {
    Ok(match decision(args) {
        Decision::Edit { step, edits } => {
            let mut sent = Vec::with_capacity(edits.len());
            for (path, file) in &edits {
                // Restate's default message limit is 32 MiB; an edit is sent inside one.
                let bytes = rectify::flow::engine::read_bounded(file, 16 << 20)
                    .map_err(|e| anyhow::anyhow!("cannot read the edit `{}`: {e}", file.display()))?
                    .with_context(|| format!("the edit `{}` does not exist", file.display()))?;
                let content = String::from_utf8(bytes)
                    .with_context(|| format!("the edit `{}` is not UTF-8 text", file.display()))?;
                sent.push((path.clone(), content));
            }
            rectify::restate::DecisionRequest::Edit { step, edits: sent }
        }
        Decision::Approve { step } => rectify::restate::DecisionRequest::Approve { step },
        Decision::Reject { step, feedback } => {
            rectify::restate::DecisionRequest::Reject { step, feedback }
        }
        Decision::Continue => rectify::restate::DecisionRequest::Continue,
    })
}

/// Prints `message` on stderr (an interruption's note).
pub fn say(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}
