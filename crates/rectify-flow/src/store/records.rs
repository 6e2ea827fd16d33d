//! Rows of the store as Rust types.

use rectify_core::Diagnostic;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::StoreError;

/// The status of a run.
///
/// When its steps have run as far as they can (`rectify run`, `rectify resume`), a run is, by
/// the first rule that applies:
/// 1. `completed` when every step is done;
/// 2. `waiting` while any step waits for a person (a human step, an escalation) — even when
///    an independent branch failed: the failed step stays failed (what needs it is skipped)
///    and is not run again, while the waiting branch goes on after a decision;
/// 3. `failed` when nothing waits and a step failed (`on_exhausted: fail`, a provider
///    failure): nothing can continue it.
///
/// While a process runs it, it is `running`; stopped by SIGINT or SIGTERM, `interrupted`.
/// A `running` run whose process is gone (killed: dead on this machine, or no heartbeat for
/// 30 s from another) is shown as `interrupted` too (see [`crate::Store::observed_status`]).
/// `rectify resume` continues a `running`, `interrupted` or `waiting` run exactly where it
/// stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Steps are being run.
    Running,
    /// Paused for a person (and maybe a failed independent branch).
    Waiting,
    /// Every step finished.
    Completed,
    /// A step failed (`on_exhausted: fail`, a provider failure) and nothing waits.
    Failed,
    /// The process running it was stopped (SIGINT, SIGTERM) or is gone; nothing runs it.
    Interrupted,
}

impl RunStatus {
    /// The stored and printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Waiting => "waiting",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }

    fn parse(text: &str) -> RunStatus {
        match text {
            "waiting" => RunStatus::Waiting,
            "completed" => RunStatus::Completed,
            "failed" => RunStatus::Failed,
            "interrupted" => RunStatus::Interrupted,
            _ => RunStatus::Running,
        }
    }
}

/// The status of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Started, not finished.
    Running,
    /// Finished, valid.
    Done,
    /// Finished, valid, with validator warnings.
    DoneWithWarnings,
    /// Paused for a person.
    Waiting,
    /// Failed.
    Failed,
    /// Not run because a step it needs failed.
    Skipped,
}

impl StepStatus {
    /// The stored and printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Done => "done",
            StepStatus::DoneWithWarnings => "done_with_warnings",
            StepStatus::Waiting => "waiting",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
        }
    }

    /// Finished successfully.
    pub fn is_done(self) -> bool {
        matches!(self, StepStatus::Done | StepStatus::DoneWithWarnings)
    }

    fn parse(text: &str) -> StepStatus {
        match text {
            "running" => StepStatus::Running,
            "done" => StepStatus::Done,
            "done_with_warnings" => StepStatus::DoneWithWarnings,
            "waiting" => StepStatus::Waiting,
            "failed" => StepStatus::Failed,
            "skipped" => StepStatus::Skipped,
            _ => StepStatus::Pending,
        }
    }
}

/// What happened to a step: the `kind` of a row of the `events` table. Written with the step's
/// row in one transaction; the kind decides how durable that commit is
/// ([`Event::ends_unit`]) and whether the event keeps the step's diagnostics of the moment
/// ([`Event::keeps_diagnostics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A unit started.
    Started,
    /// An attempt is about to be made (the producer asked).
    Attempt,
    /// The output is sent to a repair (deterministic or a repair agent).
    Repair,
    /// The producer is asked again with the problems.
    Revise,
    /// A validator failed the work; the producer revises.
    ValidationFailed,
    /// The validators judged the work (PASS or WARN).
    Validated,
    /// Finished, valid.
    Done,
    /// Finished, valid, with validator warnings.
    DoneWithWarnings,
    /// Retries spent (escalated or failed, per `on_exhausted`).
    Exhausted,
    /// The step failed.
    Failed,
    /// Not run because a step it needs failed.
    Skipped,
    /// Not started.
    Pending,
    /// Running (a `foreach` item's row).
    Running,
    /// Paused for a person.
    Waiting,
    /// Validation attempts spent.
    ValidationExhausted,
    /// Every item of a `foreach` has ended.
    ItemsFinished,
    /// A person's edit was refused (invalid, or judged FAIL by the validators).
    EditRefused,
    /// A person approved.
    Approved,
    /// A person rejected, with feedback.
    Rejected,
    /// A person edited the output.
    Edited,
    /// A note an embedder records ([`crate::Store::event`]).
    Noted,
}

impl Event {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Started => "started",
            Event::Attempt => "attempt",
            Event::Repair => "repair",
            Event::Revise => "revise",
            Event::ValidationFailed => "validation_failed",
            Event::Validated => "validated",
            Event::Done => "done",
            Event::DoneWithWarnings => "done_with_warnings",
            Event::Exhausted => "exhausted",
            Event::Failed => "failed",
            Event::Skipped => "skipped",
            Event::Pending => "pending",
            Event::Running => "running",
            Event::Waiting => "waiting",
            Event::ValidationExhausted => "validation_exhausted",
            Event::ItemsFinished => "items_finished",
            Event::EditRefused => "edit_refused",
            Event::Approved => "approved",
            Event::Rejected => "rejected",
            Event::Edited => "edited",
            Event::Noted => "noted",
        }
    }

    /// Whether the event ends a unit's work or records a decision: its commit is fsynced,
    /// and makes every earlier commit durable with it (group commit). The others are a
    /// unit's intermediate changes, kept when the process is killed and fsynced by the end
    /// that follows them.
    pub fn ends_unit(self) -> bool {
        !matches!(
            self,
            Event::Started
                | Event::Attempt
                | Event::Repair
                | Event::Revise
                | Event::ValidationFailed
                | Event::Validated
        )
    }

    /// Whether the event's record keeps the step's diagnostics of the moment (what an
    /// attempt was sent back for, why a step stopped).
    pub fn keeps_diagnostics(self) -> bool {
        matches!(
            self,
            Event::Repair
                | Event::Revise
                | Event::Exhausted
                | Event::Failed
                | Event::ValidationFailed
                | Event::ValidationExhausted
        )
    }
}

impl From<StepStatus> for Event {
    fn from(status: StepStatus) -> Event {
        match status {
            StepStatus::Pending => Event::Pending,
            StepStatus::Running => Event::Running,
            StepStatus::Done => Event::Done,
            StepStatus::DoneWithWarnings => Event::DoneWithWarnings,
            StepStatus::Waiting => Event::Waiting,
            StepStatus::Failed => Event::Failed,
            StepStatus::Skipped => Event::Skipped,
        }
    }
}

/// A run.
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    /// The run id.
    pub id: String,
    /// The workflow's name.
    pub workflow: String,
    /// The workflow file as given.
    pub workflow_path: String,
    /// SHA-256 of the workflow and its agents at start.
    pub workflow_hash: String,
    /// The workflow file's text at start (pinned).
    #[serde(skip)]
    pub workflow_source: String,
    /// The working directory.
    pub workdir: String,
    /// The resolved inputs.
    pub inputs: Value,
    /// Its status.
    pub status: RunStatus,
    /// The error memory (JSON).
    #[serde(skip)]
    pub memory: Option<String>,
    /// When it started (ms since the epoch).
    pub created_ms: i64,
    /// Last change (ms since the epoch).
    pub updated_ms: i64,
}

/// A step (or one item of a `foreach`, as `step[key]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step id (`implement[T1]` for an item).
    pub id: String,
    /// Its status.
    pub status: StepStatusField,
    /// Producer calls.
    pub attempts: u32,
    /// Deterministic repairs applied to its outputs.
    pub repairs: u32,
    /// Runs of the repair agent.
    pub repair_runs: u32,
    /// Producer runs again with feedback.
    pub revisions: u32,
    /// Producer runs again after a FAIL verdict.
    pub validations: u32,
    /// The last verdict of its validators.
    pub verdict: Option<String>,
    /// Validator warnings and confinement warnings.
    pub warnings: Vec<String>,
    /// The diagnostics of its latest check (errors while waiting or failed).
    pub diagnostics: Vec<Diagnostic>,
    /// Input tokens over all its calls.
    pub input_tokens: u64,
    /// Output tokens over all its calls.
    pub output_tokens: u64,
    /// Cost over all its calls, when priced.
    pub cost: Option<f64>,
    /// The accepted output: an answer's value, or the paths written.
    pub output: Option<Value>,
    /// When it started.
    pub started_ms: Option<i64>,
    /// When it ended.
    pub ended_ms: Option<i64>,
}

/// A [`StepStatus`] that defaults to pending (so records can derive `Default`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StepStatusField(pub StepStatus);

impl Default for StepStatusField {
    fn default() -> Self {
        StepStatusField(StepStatus::Pending)
    }
}

impl StepStatusField {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        self.0.as_str()
    }
}

/// One recorded answer of a model or agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The step (or item).
    pub step: String,
    /// `producer`, `repair` or `validator:NAME`.
    pub role: String,
    /// 1-based number of this role's call within the step.
    pub seq: u32,
    /// SHA-256 of the request's messages.
    pub prompt_hash: String,
    /// The answer as received.
    pub raw: String,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// What the engine saw right after the call (absent in stores written before version 2).
    pub outcome: CallOutcome,
    /// When it was recorded (ms since the epoch; set by the store).
    #[serde(default)]
    pub at_ms: i64,
}

/// One event of a run: a step's state change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// The step (or item).
    pub step: String,
    /// What happened: an [`Event`]'s name (`started`, `attempt`, `repair`, `revise`,
    /// `validated`, `done`, `waiting`, a person's decision, ...), as stored.
    pub kind: String,
    /// When (ms since the epoch).
    pub at_ms: i64,
    /// The diagnostics of the moment (what an attempt was sent back for, why a step stopped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

/// A stored file linked to a run's step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkRecord {
    /// The step (or item).
    pub step: String,
    /// The file, relative to the working directory.
    pub path: String,
    /// `written` (as an agent left it), `original` (before repair), `repaired`, `edit`.
    pub kind: String,
    /// SHA-256 of the content (the artifacts table's key).
    pub hash: String,
    /// Size in bytes.
    pub bytes: i64,
    /// When (ms since the epoch).
    pub at_ms: i64,
}

/// What the engine saw right after a call, recorded with its answer so that a replay restores
/// it exactly: the declared files as the agent left them, confinement findings, and whether
/// the agent failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallOutcome {
    /// Declared output path (relative to the working directory) → SHA-256 of its content in
    /// the artifacts table, or `None` when the agent left it absent.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub files: std::collections::BTreeMap<String, Option<String>>,
    /// Other paths the agent's change set touched, as the shared tree held them right after
    /// it was applied (same form as `files`). Kept for the audit; a replay does not restore
    /// them, since the tree may hold a later version by then.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub applied: std::collections::BTreeMap<String, Option<String>>,
    /// Findings about the call (confinement).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Diagnostic>,
    /// The agent ran and failed (non-zero exit, time limit): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<Diagnostic>,
    /// Why the model stopped, when it was not a plain finish (`length`, `refusal`, ...): a
    /// replayed answer is judged as the original was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<rectify_provider::FinishReason>,
    /// The provider failed after part of an answer had arrived (a stream that broke
    /// mid-way): why. The call's `raw` holds what arrived. Kept for the audit; a resumed run
    /// asks again rather than replay it (the failure was the transport's, not the answer's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<String>,
}

impl CallOutcome {
    /// Nothing to record beyond the answer.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
            && self.applied.is_empty()
            && self.problems.is_empty()
            && self.failed.is_none()
            && self.finish.is_none()
            && self.broken.is_none()
    }
}

/// What a paused run waits for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitRecord {
    /// The step.
    pub step: String,
    /// `human` (a human step) or `exhausted` (an escalation).
    pub reason: String,
    /// The question, or why the step escalated.
    pub message: Option<String>,
    /// The problems of the best candidate.
    pub diagnostics: Vec<Diagnostic>,
    /// The files concerned.
    pub files: Vec<String>,
    /// The best candidate (an answer's text), when there is one.
    pub best: Option<String>,
}

pub(super) const RUN_SELECT: &str = "SELECT id, workflow, workflow_path, workflow_hash, workflow_source, workdir, inputs, status, memory, created_ms, updated_ms FROM runs";

pub(super) type RunRow = (RunRecord, String);

pub(super) fn run_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunRow> {
    Ok((
        RunRecord {
            id: r.get(0)?,
            workflow: r.get(1)?,
            workflow_path: r.get(2)?,
            workflow_hash: r.get(3)?,
            workflow_source: r.get(4)?,
            workdir: r.get(5)?,
            inputs: Value::Null,
            status: RunStatus::parse(&r.get::<_, String>(7)?),
            memory: r.get(8)?,
            created_ms: r.get(9)?,
            updated_ms: r.get(10)?,
        },
        r.get(6)?,
    ))
}

pub(super) fn finish_run((mut run, inputs): RunRow) -> Result<RunRecord, StoreError> {
    run.inputs = serde_json::from_str(&inputs)?;
    Ok(run)
}

pub(super) const STEP_SELECT: &str = "SELECT id, status, attempts, repairs, repair_runs, revisions, validations, verdict, warnings, diagnostics, input_tokens, output_tokens, cost, output, started_ms, ended_ms FROM steps";

pub(super) type StepRow = (StepRecord, [Option<String>; 3]);

pub(super) fn step_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StepRow> {
    Ok((
        StepRecord {
            id: r.get(0)?,
            status: StepStatusField(StepStatus::parse(&r.get::<_, String>(1)?)),
            attempts: r.get(2)?,
            repairs: r.get(3)?,
            repair_runs: r.get(4)?,
            revisions: r.get(5)?,
            validations: r.get(6)?,
            verdict: r.get(7)?,
            warnings: Vec::new(),
            diagnostics: Vec::new(),
            input_tokens: r.get(10)?,
            output_tokens: r.get(11)?,
            cost: r.get(12)?,
            output: None,
            started_ms: r.get(14)?,
            ended_ms: r.get(15)?,
        },
        [r.get(8)?, r.get(9)?, r.get(13)?],
    ))
}

pub(super) fn finish_step(
    (mut step, [warnings, diagnostics, output]): StepRow,
) -> Result<StepRecord, StoreError> {
    step.warnings = super::parse_or_default(warnings.as_deref())?;
    step.diagnostics = super::parse_or_default(diagnostics.as_deref())?;
    step.output = output.as_deref().map(serde_json::from_str).transpose()?;
    Ok(step)
}
