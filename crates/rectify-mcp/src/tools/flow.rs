//! `run`, `status`, `resume` and `report`: workflows through `rectify::flow`, as the CLI's
//! local backend runs them, with the store in a working directory beneath the root.

use std::path::PathBuf;
use std::sync::Arc;

use rectify::flow::engine::{Decision, RunOptions};
use rectify::flow::{Report, RunError, RunStatus, RunSummary, Store};
use tokio_util::sync::CancellationToken;

use super::schemas::{DecisionArg, ResumeParams, RunParams, StatusParams};
use super::{Reporter, ToolError, ToolResult, to_value};
use crate::{Root, Server, wire};

/// The working directory `given` names beneath the root (default: the root).
fn workdir(root: &Root, given: Option<&str>) -> Result<PathBuf, ToolError> {
    let dir = match given {
        Some(given) => root.resolve(given)?,
        None => root.path().to_path_buf(),
    };
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(ToolError::new(format!(
            "`{}` is not a directory",
            dir.display()
        )))
    }
}

/// The store of `dir`, which must exist (a run is looked up in it).
fn existing_store(dir: &std::path::Path, run: &str) -> Result<Store, ToolError> {
    match Store::open_existing(dir) {
        Ok(Some(store)) => Ok(store),
        Ok(None) => Err(ToolError::new(format!(
            "no run `{run}`: `{}` has no run store (.rectify/rectify.db)",
            dir.display()
        ))),
        Err(e) => Err(ToolError::new(format!("cannot open the run store: {e}"))),
    }
}

fn store_error(e: impl std::fmt::Display) -> ToolError {
    ToolError::new(format!("the run store failed: {e}"))
}

/// Runs `run`: the workflow loaded (every problem located), then run in this process until it
/// ends or pauses, or started in the background with `wait: false`.
pub async fn run(
    server: &Server,
    p: RunParams,
    reporter: Reporter,
    ct: CancellationToken,
) -> ToolResult {
    let root = &server.root;
    let path = root.resolve(&p.workflow)?;
    let dir = workdir(root, p.workdir.as_deref())?;
    let workflow = tokio::task::spawn_blocking(move || rectify::flow::load(&path))
        .await
        .map_err(|e| ToolError::new(e.to_string()))?
        .map_err(|e| ToolError::new(format!("the workflow cannot be used: {e}")))?;
    let run_id = p
        .run_id
        .unwrap_or_else(|| rectify::flow::engine::new_run_id(&workflow.spec.name));
    let store = Arc::new(Store::open(&dir).map_err(store_error)?);
    let wait = p.wait != Some(false);
    // A run left in the background reports nothing: its request is answered.
    let mut options = options(&dir, wait.then_some(&reporter));
    options.run_id = Some(run_id.clone());
    options.inputs = p.inputs.into_iter().collect();
    let work = rectify::flow::run(workflow, Arc::clone(&store), options);
    if !wait {
        tokio::spawn(work);
        return Ok(serde_json::json!({"run_id": run_id, "status": "running"}));
    }
    let ended = until_cancelled(work, &ct).await;
    reporter.finish().await;
    end(ended, &store, &run_id, &dir)
}

/// Runs `resume`: the person's decision applied, the run continued until it ends or pauses.
pub async fn resume(
    server: &Server,
    p: ResumeParams,
    reporter: Reporter,
    ct: CancellationToken,
) -> ToolResult {
    let dir = workdir(&server.root, p.workdir.as_deref())?;
    let decision = decision(&server.root, &p)?;
    let store = Arc::new(existing_store(&dir, &p.run)?);
    let options = options(&dir, Some(&reporter));
    let work = rectify::flow::resume(Arc::clone(&store), &p.run, decision, options);
    let ended = until_cancelled(work, &ct).await;
    reporter.finish().await;
    end(ended, &store, &p.run, &dir)
}

/// The decision of `p`; edit files must lie beneath the root.
fn decision(root: &Root, p: &ResumeParams) -> Result<Decision, ToolError> {
    let step = p.step.clone();
    Ok(match p.decision {
        DecisionArg::Approve => Decision::Approve { step },
        DecisionArg::Continue => Decision::Continue,
        DecisionArg::Reject => {
            let Some(feedback) = p.feedback.clone().filter(|f| !f.trim().is_empty()) else {
                return Err(ToolError::new("`reject` needs `feedback` for the producer"));
            };
            Decision::Reject { step, feedback }
        }
        DecisionArg::Edit => {
            if p.edits.is_empty() {
                return Err(ToolError::new("`edit` needs `edits`: output path → file"));
            }
            let mut edits = Vec::with_capacity(p.edits.len());
            for (output, file) in &p.edits {
                edits.push((output.clone(), root.resolve(file)?));
            }
            Decision::Edit { step, edits }
        }
    })
}

/// A local run's options: its working directory and progress sent to the client.
fn options(dir: &std::path::Path, reporter: Option<&Reporter>) -> RunOptions {
    let mut options = RunOptions::new(dir);
    if let Some(say) = reporter.and_then(Reporter::callback) {
        options.progress = Some(Arc::new(move |p: &rectify::flow::engine::Progress| {
            let detail = if p.detail.is_empty() {
                String::new()
            } else {
                format!(" · {}", p.detail)
            };
            say(format!("[{}] {}{detail}", p.step, p.what));
        }));
    }
    options
}

/// `work`, unless the client cancels first (`None`: dropped, which kills its agents).
async fn until_cancelled<F: std::future::Future>(
    work: F,
    ct: &CancellationToken,
) -> Option<F::Output> {
    tokio::select! {
        out = work => Some(out),
        () = ct.cancelled() => None,
    }
}

/// What a run (or resume) came to, as `rectify run --output json` prints it.
fn end(
    ended: Option<Result<RunSummary, RunError>>,
    store: &Store,
    run_id: &str,
    dir: &std::path::Path,
) -> ToolResult {
    match ended {
        None => {
            let _ = store.release(run_id, RunStatus::Interrupted);
            Err(ToolError::new(format!(
                "cancelled: the run `{run_id}` stopped and is recorded as interrupted; `resume` with `continue` goes on"
            )))
        }
        Some(Err(e @ RunError::Config(_))) => Err(ToolError::new(e.to_string())),
        Some(Err(e)) => Err(store_error(e)),
        Some(Ok(summary)) => wire::run(&summary, dir),
    }
}

/// Runs `status`.
pub fn status(root: &Root, p: &StatusParams) -> ToolResult {
    let dir = workdir(root, p.workdir.as_deref())?;
    let Some(run) = &p.run else {
        let runs = match Store::open_existing(&dir).map_err(store_error)? {
            Some(store) => observed(&store)?,
            None => Vec::new(),
        };
        return to_value(&rectify::wire::RunListWire::new(&runs));
    };
    let store = existing_store(&dir, run)?;
    match RunSummary::find(&store, run).map_err(store_error)? {
        Some(summary) => wire::run(&summary, &dir),
        None => Err(ToolError::new(format!(
            "no run `{run}` in `{}`",
            dir.display()
        ))),
    }
}

/// Every run, newest first, with the status a reader should see.
fn observed(store: &Store) -> Result<Vec<rectify::flow::store::RunRecord>, ToolError> {
    let mut runs = store.runs().map_err(store_error)?;
    for r in &mut runs {
        r.status = store.observed_status(r).map_err(store_error)?;
    }
    Ok(runs)
}

/// Runs `report`: the run's whole record, diagnostics in the wire shape.
pub fn report(root: &Root, run: &str, workdir_given: Option<&str>) -> ToolResult {
    let dir = workdir(root, workdir_given)?;
    let store = existing_store(&dir, run)?;
    match Report::load(&store, run).map_err(store_error)? {
        Some(report) => wire::report(&report),
        None => Err(ToolError::new(format!(
            "no run `{run}` in `{}`",
            dir.display()
        ))),
    }
}
