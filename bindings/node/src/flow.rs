//! Workflows from JavaScript: run, resume with a person's decision, status.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use napi::Env;
use napi::bindgen_prelude::PromiseRaw;
use napi_derive::napi;
use rectify::flow::{Decision, RunError, RunOptions, RunStatus, RunSummary, Store};

use crate::config::{config_error, failure};
use crate::{Cancel, off_thread_or};

fn summary_json(summary: &RunSummary, workdir: &Path) -> napi::Result<String> {
    crate::wire::run(summary, &workdir.to_string_lossy())
}

fn run_error(e: RunError) -> napi::Error {
    match e {
        RunError::Config(_) => config_error(e),
        other @ RunError::Store(_) => failure(other),
    }
}

/// What to do when a run's call is cancelled (its work already dropped, its agents killed):
/// record the run as `interrupted` and give up its lease, as `rectify run` does on Ctrl-C (and
/// the Python package and the MCP server on cancellation), so `status` tells it is not running
/// and `resume` continues it at once, even from this process.
fn interrupted(store: Arc<Store>, run_id: String) -> impl FnOnce() + Send + 'static {
    move || {
        // A failure to record it leaves the run to the stale-lease check: not worth hiding the
        // cancellation behind.
        let _ = store.release(&run_id, RunStatus::Interrupted);
    }
}

fn open_store(workdir: &Path) -> napi::Result<Arc<Store>> {
    Store::open(workdir)
        .map(Arc::new)
        .map_err(|e| failure(format!("cannot open the run store: {e}")))
}

/// Options of [`run_workflow`].
#[napi(object)]
pub struct NativeRunOptions {
    /// The working directory (the run store is `.rectify/` in it).
    pub workdir: String,
    /// The workflow's inputs.
    pub inputs: Option<HashMap<String, String>>,
    /// The run's id (a new one when absent).
    pub run_id: Option<String>,
    /// Steps run at once at most (default 2).
    pub max_parallel: Option<u32>,
}

/// Loads and runs a workflow: a promise of the JSON text of `rectify run --output
/// json`. Cancelling `cancel` stops the run (its agents killed) and records it as
/// `interrupted`; the promise then rejects with `code: "Cancelled"`.
#[napi(ts_return_type = "Promise<string>")]
pub fn run_workflow<'env>(
    env: &'env Env,
    workflow: String,
    options: NativeRunOptions,
    cancel: Option<&Cancel>,
) -> napi::Result<PromiseRaw<'env, String>> {
    let wf = rectify::flow::load(Path::new(&workflow)).map_err(config_error)?;
    let workdir = PathBuf::from(&options.workdir);
    let store = open_store(&workdir)?;
    let mut run = RunOptions::new(&workdir);
    let mut inputs: Vec<(String, String)> =
        options.inputs.unwrap_or_default().into_iter().collect();
    inputs.sort();
    run.inputs = inputs;
    run.max_parallel = options.max_parallel.map_or(2, |n| n.max(1) as usize);
    // Named here, so a cancelled run can be recorded as such (the engine names it the same
    // way when it is not given).
    let run_id = options
        .run_id
        .unwrap_or_else(|| rectify::flow::engine::new_run_id(&wf.spec.name));
    run.run_id = Some(run_id.clone());
    let on_cancel = interrupted(Arc::clone(&store), run_id);
    let done = off_thread_or(
        move || async move {
            let summary = rectify::flow::run(wf, store, run)
                .await
                .map_err(run_error)?;
            summary_json(&summary, &workdir)
        },
        cancel.map(Cancel::receiver),
        on_cancel,
    )?;
    env.spawn_future(done)
}

/// Options of [`resume_workflow`].
#[napi(object)]
pub struct NativeResumeOptions {
    /// The working directory of the run.
    pub workdir: String,
    /// `continue`, `approve`, `reject` (with `feedback`) or `edit` (with `edits`).
    pub decision: String,
    /// The waiting step the decision is for (the first one when absent).
    pub step: Option<String>,
    /// Why the work is rejected (sent back to the producer).
    pub feedback: Option<String>,
    /// Output path → file holding its new content.
    pub edits: Option<HashMap<String, String>>,
    /// Steps run at once at most (default 2).
    pub max_parallel: Option<u32>,
}

/// Continues a run with a decision: a promise of the JSON text of `rectify run --output
/// json`. Cancelling `cancel` stops it as in [`run_workflow`].
#[napi(ts_return_type = "Promise<string>")]
pub fn resume_workflow<'env>(
    env: &'env Env,
    run_id: String,
    options: NativeResumeOptions,
    cancel: Option<&Cancel>,
) -> napi::Result<PromiseRaw<'env, String>> {
    let step = options.step;
    let decision = match options.decision.as_str() {
        "continue" => Decision::Continue,
        "approve" => Decision::Approve { step },
        "reject" => Decision::Reject {
            step,
            feedback: options.feedback.unwrap_or_default(),
        },
        "edit" => {
            let mut edits: Vec<(String, PathBuf)> = options
                .edits
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, PathBuf::from(v)))
                .collect();
            edits.sort();
            Decision::Edit { step, edits }
        }
        other => return Err(config_error(format!("unknown decision `{other}`"))),
    };
    let workdir = PathBuf::from(&options.workdir);
    if Store::open_existing(&workdir)
        .map_err(|e| failure(format!("cannot open the run store: {e}")))?
        .is_none()
    {
        return Err(config_error(format!(
            "no run `{run_id}`: `{}` has no run store (.rectify/rectify.db)",
            workdir.display()
        )));
    }
    let store = open_store(&workdir)?;
    let mut run = RunOptions::new(&workdir);
    run.max_parallel = options.max_parallel.map_or(2, |n| n.max(1) as usize);
    let on_cancel = interrupted(Arc::clone(&store), run_id.clone());
    let done = off_thread_or(
        move || async move {
            let summary = rectify::flow::resume(store, &run_id, decision, run)
                .await
                .map_err(run_error)?;
            summary_json(&summary, &workdir)
        },
        cancel.map(Cancel::receiver),
        on_cancel,
    )?;
    env.spawn_future(done)
}

/// The summary of a run as the JSON text of `rectify status RUN --output json`, `null` when the
/// store has no such run.
#[napi]
pub fn run_status(run_id: String, workdir: String) -> napi::Result<Option<String>> {
    let Some(store) = Store::open_existing(Path::new(&workdir))
        .map_err(|e| failure(format!("cannot open the run store: {e}")))?
    else {
        return Ok(None);
    };
    let summary = RunSummary::find(&store, &run_id)
        .map_err(|e| failure(format!("cannot read the run store: {e}")))?;
    summary
        .as_ref()
        .map(|s| summary_json(s, Path::new(&workdir)))
        .transpose()
}
