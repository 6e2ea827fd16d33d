//! The tools: each takes JSON arguments (described by a JSON Schema) and answers with the
//! wire format of the matching `--output json` as structured content.

mod ask;
mod check;
mod flow;
mod progress;

use std::collections::BTreeMap;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};
use schemas::{
    AskParams, CheckParams, RepairParams, ReportParams, ResumeParams, RunParams, StatusParams,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use progress::Reporter;

use crate::Server;

pub mod schemas;

/// A tool that could not do its work (a refused path, an invalid schema, an unknown run):
/// answered as a tool result with `isError`, never as a protocol error.
#[derive(Debug)]
pub struct ToolError(String);

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError(message.into())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl From<crate::Refused> for ToolError {
    fn from(e: crate::Refused) -> ToolError {
        ToolError(e.to_string())
    }
}

/// What a tool answers: its wire value, or the error as a tool result.
pub type ToolResult = Result<serde_json::Value, ToolError>;

/// The structured result of a tool, or its error as text with `isError`.
fn answer(result: ToolResult) -> CallToolResult {
    match result {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.0)]),
    }
}

/// `value` as JSON.
pub(crate) fn to_value<T: Serialize>(value: &T) -> ToolResult {
    serde_json::to_value(value).map_err(|e| ToolError::new(format!("cannot serialise: {e}")))
}

/// Runs `work` on a blocking thread (reading and checking a large document would hold up the
/// server's other requests).
async fn blocking(work: impl FnOnce() -> ToolResult + Send + 'static) -> CallToolResult {
    answer(
        tokio::task::spawn_blocking(work)
            .await
            .unwrap_or_else(|e| Err(ToolError::new(format!("the tool stopped: {e}")))),
    )
}

#[tool_router(vis = "pub(crate)")]
impl Server {
    /// Checks a document without changing it.
    #[tool(
        description = "Check a document (a file beneath the server's root, or inline `content`) against JSON Schemas and a rules file without changing it. Answers with `rectify check --output json`: {valid, diagnostics, repairs}; every diagnostic has a path, line, column, code and message.",
        output_schema = crate::wire::output_schema(crate::wire::schemas::CHECK),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn check(
        &self,
        Parameters(p): Parameters<CheckParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let root = self.root.clone();
        Ok(blocking(move || check::check(&root, &p)).await)
    }

    /// Repairs model output.
    #[tool(
        description = "Extract the payload of model output (a file beneath the root, or inline `content`) and repair it deterministically (trailing commas, quotes, comments, fences, truncation...), every repair recorded. Answers with `rectify repair --output json`: {valid, value, diagnostics, repairs}.",
        output_schema = crate::wire::output_schema(crate::wire::schemas::REPAIR),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn repair(
        &self,
        Parameters(p): Parameters<RepairParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let root = self.root.clone();
        Ok(blocking(move || check::repair(&root, &p)).await)
    }

    /// Asks the configured provider for JSON that satisfies a schema.
    #[tool(
        description = "Ask the server's configured model or agent for JSON that satisfies a schema (and rules): each answer is repaired and checked, and the problems are sent back until it is valid or the attempts run out. Reports progress per attempt; cancellable. Answers with `rectify ask --output json`.",
        output_schema = crate::wire::output_schema(crate::wire::schemas::ASK),
        annotations(read_only_hint = false, open_world_hint = true)
    )]
    async fn ask(
        &self,
        Parameters(p): Parameters<AskParams>,
        peer: Peer<RoleServer>,
        meta: rmcp::model::RequestMetaObject,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let reporter = Reporter::new(peer, meta.get_progress_token());
        Ok(answer(ask::ask(self, p, reporter, ct).await))
    }

    /// Starts (or runs) a workflow.
    #[tool(
        description = "Run a workflow file beneath the root (outputs written under the root, its run store in `.rectify/`). With `wait: false` it returns at once with the run id (follow it with `status`); otherwise it reports progress and answers when the run completes, fails or waits for a person, with `rectify run --output json`. Cancelling stops the run (recorded as interrupted; `resume` continues it).",
        output_schema = crate::wire::output_schema_any_of(&[crate::wire::schemas::RUN, crate::wire::schemas::STARTED]),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn run(
        &self,
        Parameters(p): Parameters<RunParams>,
        peer: Peer<RoleServer>,
        meta: rmcp::model::RequestMetaObject,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let reporter = Reporter::new(peer, meta.get_progress_token());
        Ok(answer(flow::run(self, p, reporter, ct).await))
    }

    /// A run's status, or the list of runs.
    #[tool(
        description = "A run's steps, counters and what it waits for (`rectify status RUN --output json`), or with no `run` the list of runs.",
        output_schema = crate::wire::output_schema_any_of(&[crate::wire::schemas::RUN, crate::wire::schemas::STATUS]),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn status(
        &self,
        Parameters(p): Parameters<StatusParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let root = self.root.clone();
        Ok(blocking(move || flow::status(&root, &p)).await)
    }

    /// A person's decision on a paused run.
    #[tool(
        description = "Continue a run that waits for a person: `approve`, `reject` (with `feedback` for the producer), `edit` (replace outputs with files beneath the root), or `continue` (after an interruption). Reports progress; answers like `run` when the run ends or pauses again.",
        output_schema = crate::wire::output_schema(crate::wire::schemas::RUN),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn resume(
        &self,
        Parameters(p): Parameters<ResumeParams>,
        peer: Peer<RoleServer>,
        meta: rmcp::model::RequestMetaObject,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let reporter = Reporter::new(peer, meta.get_progress_token());
        Ok(answer(flow::resume(self, p, reporter, ct).await))
    }

    /// The whole record of a run.
    #[tool(
        description = "The whole record of a run as JSON (`rectify report RUN --output json`): every step with its attempts and raw answers, diagnostics, repairs, verdicts, tokens and timings, and what it waits for.",
        output_schema = crate::wire::output_schema(crate::wire::schemas::REPORT),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn report(
        &self,
        Parameters(p): Parameters<ReportParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let _busy = crate::trim::busy();
        let root = self.root.clone();
        Ok(blocking(move || flow::report(&root, &p.run, p.workdir.as_deref())).await)
    }
}

/// `check`'s wire value, for the prompt built from it.
pub(crate) fn check_value(root: &crate::Root, p: &CheckParams) -> ToolResult {
    check::check(root, p)
}

/// `refs` of the tools' arguments: a rule's document name → a path beneath the root.
pub type Refs = BTreeMap<String, String>;
