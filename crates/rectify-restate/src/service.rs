//! The Restate workflow service that runs rectify workflows, and the endpoint that hosts it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use rectify_flow::{RunError, RunOptions, SpecFactory, Store};
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::journal::{Call, Journaled, JournaledFactory};

/// The service's name in Restate (the ingress path is `/RectifyRun/{run id}/run`).
pub const SERVICE: &str = "RectifyRun";

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
}

pub use definition::RectifyRun;

/// The service's definition. The SDK's macro adds undocumented public methods (the client
/// and serving glue); they are documented by the SDK.
#[allow(missing_docs)]
mod definition {
    use restate_sdk::prelude::*;

    use super::{RunRequest, execute};

    /// The workflow service: one Restate workflow per run, keyed by the run id.
    pub struct RectifyRun;

    #[restate_sdk::workflow(name = "RectifyRun")]
    impl RectifyRun {
        /// Runs the workflow to its end (or to a pause) and returns the run's summary, the
        /// JSON `rectify run --output json` prints for a local run.
        #[handler]
        async fn run(
            &self,
            ctx: WorkflowContext<'_>,
            request: Json<RunRequest>,
        ) -> HandlerResult<Json<serde_json::Value>> {
            let run_id = ctx.key().to_owned();
            execute(&ctx, run_id, request.into_inner()).await.map(Json)
        }
    }
}

/// Runs the engine, making each of its calls through the journal, in the order the engine
/// asks for them (one at a time, so a replay asks in the same order).
async fn execute(
    ctx: &WorkflowContext<'_>,
    run_id: String,
    request: RunRequest,
) -> HandlerResult<serde_json::Value> {
    let workflow = rectify_flow::load(&request.workflow)
        .map_err(|e| TerminalError::new_with_code(400, e.to_string()))?;
    let store = Arc::new(Store::in_memory()?);
    let (calls, mut queue) = mpsc::unbounded_channel::<Call>();
    let mut options = RunOptions::new(&request.workdir);
    options.run_id = Some(run_id);
    options.inputs = request.inputs;
    options.max_parallel = 1;
    options.factory = Arc::new(JournaledFactory {
        inner: Arc::new(SpecFactory::default()),
        calls,
    });
    let engine = rectify_flow::run(workflow, store, options);
    tokio::pin!(engine);
    let mut made = 0u32;
    loop {
        tokio::select! {
            biased;
            Some(call) = queue.recv() => {
                made += 1;
                let Call { provider, request, reply } = call;
                let journaled = ctx
                    .run(|| async move { Ok(Json(Journaled::make(provider.as_ref(), &request).await)) })
                    .name(format!("call {made}"))
                    .await?;
                // The engine may have stopped waiting (it never does before its call ends).
                let _ = reply.send(journaled.into_inner().into_result());
            }
            result = &mut engine => return summary(result),
        }
    }
}

fn summary(result: Result<rectify_flow::RunSummary, RunError>) -> HandlerResult<serde_json::Value> {
    match result {
        Ok(summary) => Ok(serde_json::to_value(&summary)?),
        Err(RunError::Config(problems)) => {
            let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
            Err(TerminalError::new_with_code(
                400,
                format!("the run cannot start:\n  {}", text.join("\n  ")),
            )
            .into())
        }
        Err(RunError::Store(e)) => Err(e.into()),
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
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, ServeError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError { addr, source })
}

/// Serves the workflow service on `listener` until Ctrl-C. Register the endpoint with
/// Restate's admin API (`POST /deployments {"uri": "http://ADDR"}`) once it listens.
pub async fn serve(listener: TcpListener) {
    HttpServer::new(Endpoint::builder().bind(RectifyRun).build())
        .serve(listener)
        .await;
}
