//! The Restate workflow service that runs rectify workflows, and the endpoint that hosts it.
//!
//! The `run` handler drives the engine; each pause (a human step, an exhausted step) is a
//! durable promise the handler waits on, resolved by the shared `decide` handler (`rectify
//! resume --on`). What the run looks like now is the workflow's state `summary`, read by the
//! shared `status` handler (`rectify run --on` and `resume --on` poll it).

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use rectify_flow::{Decision, RunError, RunOptions, RunStatus, RunSummary, SpecFactory, Store};
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::artifacts::{ArtifactError, DirStore};
use crate::journal::{Call, Journaled, JournaledFactory};

/// The service's name in Restate (the ingress path is `/RectifyRun/{run id}/run`).
pub const SERVICE: &str = "RectifyRun";

/// The workflow state holding the run's latest summary (JSON: `running` with no steps until
/// the first pause or the end), or `{"status": "error", …}` when the run could not start.
const SUMMARY: &str = "summary";
/// The workflow state counting the run's pauses; pause `n` waits on promise `decision-n`.
const PAUSES: &str = "pauses";

/// What starts a run: the same as `rectify run`'s arguments. Paths are read by the endpoint,
/// so they must be where every endpoint can reach them (absolute, on shared storage).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRequest {
    /// The workflow file.
    pub workflow: PathBuf,
    /// The working directory: outputs are relative to it, agents run in it.
    pub workdir: PathBuf,
    /// `--input KEY=VALUE` pairs.
    #[serde(default)]
    pub inputs: Vec<(String, String)>,
    /// The workflow file's text as it was when the run started (`rectify run --on` sends it).
    /// Restate keeps it with the run, so every replay runs the same workflow even when the
    /// file changes meanwhile; without it the endpoint reads the file.
    #[serde(default)]
    pub source: Option<String>,
    /// Independent steps run at once (default 2, as `rectify run`).
    #[serde(default)]
    pub max_parallel: Option<usize>,
}

/// A person's decision on what a paused run waits for (`rectify resume --on`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum DecisionRequest {
    /// Accept (a human step passes; an exhausted step is accepted with its errors recorded).
    Approve {
        /// The waiting step (needed when several wait).
        step: Option<String>,
    },
    /// Send the work back with this feedback.
    Reject {
        /// The waiting step (needed when several wait).
        step: Option<String>,
        /// What the person wants changed.
        feedback: String,
    },
    /// Replace outputs with the person's versions, carried in the decision (the person's
    /// files are on their machine, not the endpoint's).
    Edit {
        /// The waiting step (needed when several wait).
        step: Option<String>,
        /// (output path relative to the working directory, its new content).
        edits: Vec<(String, String)>,
    },
    /// No decision: continue what can continue.
    Continue,
}

impl DecisionRequest {
    /// The engine's decision. An edit's contents are written under
    /// `WORKDIR/.rectify/edits/RUN-PAUSE-N` first (again on every replay, the same bytes), and
    /// the engine checks and copies them as it does a local `--edit`.
    fn into_decision(
        self,
        workdir: &std::path::Path,
        run_id: &str,
        pause: u32,
    ) -> std::io::Result<Decision> {
        Ok(match self {
            DecisionRequest::Approve { step } => Decision::Approve { step },
            DecisionRequest::Reject { step, feedback } => Decision::Reject { step, feedback },
            DecisionRequest::Continue => Decision::Continue,
            DecisionRequest::Edit { step, edits } => {
                let dir = workdir.join(".rectify").join("edits");
                let run: String = run_id
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                std::fs::create_dir_all(&dir)?;
                let mut files = Vec::with_capacity(edits.len());
                for (i, (path, content)) in edits.into_iter().enumerate() {
                    let file = dir.join(format!("{run}-{pause}-{i}"));
                    rectify_flow::engine::write_atomic(&file, content.as_bytes())?;
                    files.push((path, file));
                }
                Decision::Edit { step, edits: files }
            }
        })
    }
}

/// What the `status` handler answers: the run's latest summary and how many pauses it has had.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunState {
    /// The latest summary (`null` before the first pause or end), or an error object.
    pub summary: Option<serde_json::Value>,
    /// Pauses so far.
    pub pauses: u32,
}

pub use definition::RectifyRun;

/// The service's definition. The SDK's macro adds undocumented public methods (the client
/// and serving glue); they are documented by the SDK.
#[allow(missing_docs)]
mod definition {
    use restate_sdk::prelude::*;

    use super::{DecisionRequest, PAUSES, RunRequest, RunState, SUMMARY, execute};

    /// The workflow service: one Restate workflow per run, keyed by the run id.
    pub struct RectifyRun;

    #[restate_sdk::workflow(name = "RectifyRun")]
    impl RectifyRun {
        /// Runs the workflow to its end, waiting at each pause for a decision, and returns
        /// the run's summary (the JSON `rectify run --output json` prints for a local run).
        #[handler]
        async fn run(
            &self,
            ctx: WorkflowContext<'_>,
            request: Json<RunRequest>,
        ) -> HandlerResult<Json<serde_json::Value>> {
            let run_id = ctx.key().to_owned();
            execute(&ctx, run_id, request.into_inner()).await.map(Json)
        }

        /// The run's latest summary and its number of pauses.
        #[handler]
        async fn status(&self, ctx: SharedWorkflowContext<'_>) -> HandlerResult<Json<RunState>> {
            let summary = ctx
                .get::<Json<serde_json::Value>>(SUMMARY)
                .await?
                .map(Json::into_inner);
            let pauses = ctx.get::<u32>(PAUSES).await?.unwrap_or(0);
            Ok(Json(RunState { summary, pauses }))
        }

        /// A person's decision on the run's current pause.
        #[handler]
        async fn decide(
            &self,
            ctx: SharedWorkflowContext<'_>,
            decision: Json<DecisionRequest>,
        ) -> HandlerResult<()> {
            let waiting = ctx
                .get::<Json<serde_json::Value>>(SUMMARY)
                .await?
                .is_some_and(|s| s.into_inner()["status"] == "waiting");
            let pauses = ctx.get::<u32>(PAUSES).await?.unwrap_or(0);
            if !waiting || pauses == 0 {
                return Err(TerminalError::new_with_code(
                    409,
                    "the run does not wait for a decision",
                )
                .into());
            }
            ctx.resolve_promise(&format!("decision-{pauses}"), decision);
            Ok(())
        }
    }
}

/// Runs the engine to its end, one pause at a time.
async fn execute(
    ctx: &WorkflowContext<'_>,
    run_id: String,
    request: RunRequest,
) -> HandlerResult<serde_json::Value> {
    let loaded = match request.source.clone() {
        Some(text) => rectify_flow::load_str(&request.workflow, text),
        None => rectify_flow::load(&request.workflow),
    };
    let workflow = match loaded {
        Ok(wf) => wf,
        Err(e) => return Err(refuse(ctx, e.to_string())),
    };
    // What `status` shows until the first pause or the end.
    ctx.set(
        SUMMARY,
        Json(serde_json::json!({
            "run_id": run_id, "workflow": workflow.spec.name, "status": "running",
            "waiting": null, "steps": [],
        })),
    );
    let store = Arc::new(Store::in_memory()?);
    let (calls, mut queue) = mpsc::unbounded_channel::<Call>();
    let options = || {
        let mut options = RunOptions::new(&request.workdir);
        options.run_id = Some(run_id.clone());
        options.inputs.clone_from(&request.inputs);
        options.max_parallel = request.max_parallel.unwrap_or(2).max(1);
        // The rounds of calls must not depend on a thread pool's timing.
        options.inline_views = true;
        options.factory = Arc::new(JournaledFactory {
            inner: Arc::new(SpecFactory::default()),
            calls: calls.clone(),
        });
        options
    };
    let artifacts = Arc::new(DirStore::new(
        request.workdir.join(".rectify").join("artifacts"),
    ));
    let mut journal = Journal {
        ctx,
        made: 0,
        artifacts,
    };
    let first = rectify_flow::run(workflow, Arc::clone(&store), options());
    let mut summary = journal.drive(&mut queue, first).await?;
    let mut pauses = 0u32;
    while summary.status == RunStatus::Waiting {
        pauses += 1;
        ctx.set(SUMMARY, Json(serde_json::to_value(&summary)?));
        ctx.set(PAUSES, pauses);
        let name = format!("decision-{pauses}");
        let decision: Json<DecisionRequest> = ctx.promise(&name).await?;
        let decision = decision
            .into_inner()
            .into_decision(&request.workdir, &run_id, pauses)?;
        let next = rectify_flow::resume(Arc::clone(&store), &run_id, decision, options());
        summary = journal.drive(&mut queue, next).await?;
    }
    let value = serde_json::to_value(&summary)?;
    ctx.set(SUMMARY, Json(value.clone()));
    Ok(value)
}

/// The calls of one round, started together by the first of them not in the journal.
struct Round {
    /// Calls not started yet, by position.
    work: std::sync::Mutex<Vec<Option<Work>>>,
    /// Started calls, by position (each taken once by its own entry).
    running: std::sync::Mutex<Vec<Option<Running>>>,
    store: Arc<DirStore>,
}

/// A call to make: who answers, and the request.
type Work = (
    Arc<dyn rectify_provider::Provider>,
    rectify_provider::Request,
);

/// A call being made.
type Running = tokio::task::JoinHandle<Result<Journaled, ArtifactError>>;

impl Round {
    /// The answer of call `i`: starts it and every later call of the round not started yet.
    async fn answer(&self, i: usize) -> Result<Journaled, HandlerError> {
        let handle = {
            let mut work = self
                .work
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut running = self
                .running
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            running.resize_with(work.len(), || None);
            for (j, slot) in work.iter_mut().enumerate().skip(i) {
                if let Some((provider, request)) = slot.take() {
                    let store = Arc::clone(&self.store);
                    running[j] = Some(tokio::spawn(async move {
                        Journaled::make(provider.as_ref(), &request, store.as_ref()).await
                    }));
                }
            }
            running.get_mut(i).and_then(Option::take)
        };
        let handle = handle.ok_or_else(|| std::io::Error::other("a call of the round was lost"))?;
        Ok(handle.await.map_err(std::io::Error::other)??)
    }
}

impl Drop for Round {
    /// Calls still running when the round is given up (the invocation ended) are stopped.
    fn drop(&mut self) {
        let running = self
            .running
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for handle in running.iter().flatten() {
            handle.abort();
        }
    }
}

/// Polls `engine` until it ends (its result) or stops asking: every call it asks for meanwhile
/// goes into `batch`. The engine is polled again after each call it asks for, and after a few
/// yields, so that every unit that can reach its next call does before the round is made.
async fn settle(
    engine: &mut std::pin::Pin<&mut impl Future<Output = Result<RunSummary, RunError>>>,
    queue: &mut mpsc::UnboundedReceiver<Call>,
    batch: &mut Vec<Call>,
) -> Option<Result<RunSummary, RunError>> {
    let mut quiet = 0;
    while quiet < 3 {
        if let Some(result) = futures_util::FutureExt::now_or_never(engine.as_mut()) {
            return Some(result);
        }
        let before = batch.len();
        while let Ok(call) = queue.try_recv() {
            batch.push(call);
        }
        if batch.len() == before {
            quiet += 1;
            tokio::task::yield_now().await;
        } else {
            quiet = 0;
        }
    }
    None
}

/// Records why the run cannot start (for `status`) and ends it.
fn refuse(ctx: &WorkflowContext<'_>, message: String) -> HandlerError {
    ctx.set(
        SUMMARY,
        Json(serde_json::json!({"status": "error", "message": message})),
    );
    TerminalError::new_with_code(400, message).into()
}

/// Makes the engine's calls through the journal.
struct Journal<'a, 'ctx> {
    ctx: &'a WorkflowContext<'ctx>,
    /// Calls made so far (names the journal entries).
    made: u32,
    /// Where answers too large for the journal go.
    artifacts: Arc<DirStore>,
}

impl Journal<'_, '_> {
    /// Polls `engine` to its end in rounds: the engine runs until every unit in flight waits
    /// for a call (or nothing more can happen without one); the calls it asked for are made
    /// inside `ctx.run` at once, named and started in the order of their units, and answered in
    /// that order when all are back. A replay asks the same calls in the same rounds, so the
    /// journal's order holds while independent steps run in parallel.
    async fn drive(
        &mut self,
        queue: &mut mpsc::UnboundedReceiver<Call>,
        engine: impl Future<Output = Result<RunSummary, RunError>>,
    ) -> HandlerResult<RunSummary> {
        tokio::pin!(engine);
        loop {
            let mut batch = Vec::new();
            if let Some(result) = settle(&mut engine, queue, &mut batch).await {
                return self.summary(result);
            }
            if batch.is_empty() {
                // The engine waits for something else (a validator command, a timer).
                tokio::select! {
                    biased;
                    Some(call) = queue.recv() => batch.push(call),
                    result = &mut engine => return self.summary(result),
                }
                if let Some(result) = settle(&mut engine, queue, &mut batch).await {
                    return self.summary(result);
                }
            }
            batch.sort_by(|a, b| a.unit.cmp(&b.unit));
            self.make_all(batch).await?;
        }
    }

    /// Makes a round's calls at once, journaled one after the other in the round's order
    /// (Restate wants each `ctx.run` awaited before the next): the first entry whose closure
    /// runs (it is not in the journal, so no later one is) starts its call and every later
    /// one, which then run in parallel; each entry awaits its own. Calls already journaled are
    /// answered from the journal and never made again; a call whose answer came back but was
    /// not journaled yet when the endpoint died is made again.
    async fn make_all(&mut self, batch: Vec<Call>) -> HandlerResult<()> {
        let ctx = self.ctx;
        let mut replies = Vec::with_capacity(batch.len());
        let mut work = Vec::with_capacity(batch.len());
        for call in batch {
            replies.push(call.reply);
            work.push(Some((call.provider, call.request)));
        }
        let round = Arc::new(Round {
            work: std::sync::Mutex::new(work),
            running: std::sync::Mutex::new(Vec::new()),
            store: Arc::clone(&self.artifacts),
        });
        let mut answers = Vec::with_capacity(replies.len());
        for i in 0..replies.len() {
            self.made += 1;
            let round = Arc::clone(&round);
            let journaled = ctx
                .run(|| async move { Ok(Json(round.answer(i).await?)) })
                .name(format!("call {}", self.made))
                .await?;
            // A missing or changed artifact is an error of this attempt (retried: shared
            // storage may come back), never another answer.
            answers.push(
                journaled
                    .into_inner()
                    .into_result(self.artifacts.as_ref())?,
            );
        }
        for (reply, answer) in replies.into_iter().zip(answers) {
            // The engine waits for every call it starts, so the receiver is there.
            let _ = reply.send(answer);
        }
        Ok(())
    }

    fn summary(&self, result: Result<RunSummary, RunError>) -> HandlerResult<RunSummary> {
        match result {
            Ok(summary) => Ok(summary),
            Err(e @ RunError::Config(_)) => Err(refuse(self.ctx, e.to_string())),
            Err(RunError::Store(e)) => Err(e.into()),
        }
    }
}

/// Why the endpoint could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {addr}: {source}")]
pub struct ServeError {
    addr: SocketAddr,
    source: std::io::Error,
}

/// Listens on `addr` (port 0 picks a free port: see the listener's `local_addr`).
///
/// The listening socket has `TCP_NODELAY`, which Linux passes on to the connections it
/// accepts: the SDK's server does not set it, and Restate's small HTTP/2 frames then wait for
/// delayed ACKs — about 40 ms per journaled call (measured: 37 ms per step with it off).
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, ServeError> {
    let error = |source| ServeError { addr, source };
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(error)?;
    socket.set_reuseaddr(true).map_err(error)?;
    socket.set_nodelay(true).map_err(error)?;
    socket.bind(addr).map_err(error)?;
    socket.listen(1024).map_err(error)
}

/// Serves the workflow service on `listener` until Ctrl-C. Register the endpoint with
/// Restate's admin API (`POST /deployments {"uri": "http://ADDR"}`) once it listens.
pub async fn serve(listener: TcpListener) {
    HttpServer::new(Endpoint::builder().bind(RectifyRun).build())
        .serve(listener)
        .await;
}
