//! `rectify report RUN --output json` on the wire (`docs/output/report.schema.json`), typed
//! field by field: the run, its totals, every step with its calls, events and files, and what
//! it waits for. Every diagnostic has the shape of [`DiagnosticWire`], so the report speaks the
//! same diagnostic format as every command; the user's data (the run's inputs, a step's
//! output) is passed through as it is.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::diagnostic::DiagnosticWire;
use crate::Diagnostic;
use crate::flow::Report;
use crate::flow::report::{StepReport, Totals};
use crate::flow::store::{CallRecord, EventRecord, LinkRecord, RunRecord, WaitRecord};
use crate::provider::FinishReason;

/// The whole run as one JSON document.
#[derive(Debug, Serialize)]
pub struct ReportWire<'a> {
    /// The run: workflow, status, inputs, times.
    pub run: RunPart<'a>,
    /// Totals over the run.
    pub totals: TotalsPart,
    /// The steps (and `foreach` items) in the order they were first written.
    pub steps: Vec<StepPart<'a>>,
    /// What the run waits for.
    pub waits: Vec<WaitPart<'a>>,
}

impl<'a> ReportWire<'a> {
    /// The wire form of `report`.
    pub fn new(report: &'a Report) -> ReportWire<'a> {
        ReportWire {
            run: RunPart::new(&report.run),
            totals: TotalsPart::new(&report.totals),
            steps: report.steps.iter().map(StepPart::new).collect(),
            waits: report.waits.iter().map(WaitPart::new).collect(),
        }
    }
}

/// [`ReportWire`] as a JSON value (what `rectify report --output json` prints).
///
/// # Errors
///
/// When the report cannot be serialised (a number that is not finite).
pub fn report(report: &Report) -> Result<Value, serde_json::Error> {
    serde_json::to_value(ReportWire::new(report))
}

/// The run of a report.
#[derive(Debug, Serialize)]
pub struct RunPart<'a> {
    /// The run id.
    pub id: &'a str,
    /// The workflow's name.
    pub workflow: &'a str,
    /// The workflow file as given.
    pub workflow_path: &'a str,
    /// SHA-256 of the workflow and its agents at start.
    pub workflow_hash: &'a str,
    /// The working directory.
    pub workdir: &'a str,
    /// The resolved inputs (the user's data).
    pub inputs: &'a Value,
    /// `running`, `waiting`, `completed`, `failed` or `interrupted`.
    pub status: &'static str,
    /// When it started (ms since the epoch).
    pub created_ms: i64,
    /// Last change (ms since the epoch).
    pub updated_ms: i64,
}

impl<'a> RunPart<'a> {
    fn new(run: &'a RunRecord) -> RunPart<'a> {
        RunPart {
            id: &run.id,
            workflow: &run.workflow,
            workflow_path: &run.workflow_path,
            workflow_hash: &run.workflow_hash,
            workdir: &run.workdir,
            inputs: &run.inputs,
            status: run.status.as_str(),
            created_ms: run.created_ms,
            updated_ms: run.updated_ms,
        }
    }
}

/// Totals over a run.
#[derive(Debug, Serialize)]
pub struct TotalsPart {
    /// Steps and items.
    pub steps: usize,
    /// Recorded model, agent and validator calls.
    pub calls: usize,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost, when the providers report prices.
    pub cost: Option<f64>,
    /// From the first step's start to the last step's end (ms).
    pub duration_ms: i64,
}

impl TotalsPart {
    fn new(t: &Totals) -> TotalsPart {
        TotalsPart {
            steps: t.steps,
            calls: t.calls,
            input_tokens: t.input_tokens,
            output_tokens: t.output_tokens,
            cost: t.cost,
            duration_ms: t.duration_ms,
        }
    }
}

/// One step (or `foreach` item) of a report: its record, calls, events and files.
#[derive(Debug, Serialize)]
pub struct StepPart<'a> {
    /// The step id (`implement[T1]` for an item).
    pub id: &'a str,
    /// `pending`, `running`, `done`, `done_with_warnings`, `waiting`, `failed`, ...
    pub status: &'static str,
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
    pub verdict: Option<&'a str>,
    /// Validator and confinement warnings.
    pub warnings: &'a [String],
    /// The diagnostics of its latest check.
    pub diagnostics: Vec<DiagnosticWire<'a>>,
    /// Input tokens over all its calls.
    pub input_tokens: u64,
    /// Output tokens over all its calls.
    pub output_tokens: u64,
    /// Cost over all its calls, when priced.
    pub cost: Option<f64>,
    /// The accepted output: an answer's value, or the paths written (the user's data).
    pub output: Option<&'a Value>,
    /// When it started (ms since the epoch).
    pub started_ms: Option<i64>,
    /// When it ended (ms since the epoch).
    pub ended_ms: Option<i64>,
    /// Its calls in order, with raw answers.
    pub calls: Vec<CallPart<'a>>,
    /// Its events in order.
    pub events: Vec<EventPart<'a>>,
    /// The files kept for it.
    pub files: Vec<LinkPart<'a>>,
}

impl<'a> StepPart<'a> {
    fn new(s: &'a StepReport) -> StepPart<'a> {
        let r = &s.record;
        StepPart {
            id: &r.id,
            status: r.status.as_str(),
            attempts: r.attempts,
            repairs: r.repairs,
            repair_runs: r.repair_runs,
            revisions: r.revisions,
            validations: r.validations,
            verdict: r.verdict.as_deref(),
            warnings: &r.warnings,
            diagnostics: wire(&r.diagnostics),
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            cost: r.cost,
            output: r.output.as_ref(),
            started_ms: r.started_ms,
            ended_ms: r.ended_ms,
            calls: s.calls.iter().map(CallPart::new).collect(),
            events: s.events.iter().map(EventPart::new).collect(),
            files: s.files.iter().map(LinkPart::new).collect(),
        }
    }
}

/// One recorded answer of a model or agent.
#[derive(Debug, Serialize)]
pub struct CallPart<'a> {
    /// The step (or item).
    pub step: &'a str,
    /// `producer`, `repair` or `validator:NAME`.
    pub role: &'a str,
    /// 1-based number of this role's call within the step.
    pub seq: u32,
    /// SHA-256 of the request's messages.
    pub prompt_hash: &'a str,
    /// The answer as received.
    pub raw: &'a str,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// What the engine saw right after the call.
    pub outcome: CallOutcomePart<'a>,
    /// When it was recorded (ms since the epoch).
    pub at_ms: i64,
}

impl<'a> CallPart<'a> {
    fn new(c: &'a CallRecord) -> CallPart<'a> {
        let o = &c.outcome;
        CallPart {
            step: &c.step,
            role: &c.role,
            seq: c.seq,
            prompt_hash: &c.prompt_hash,
            raw: &c.raw,
            input_tokens: c.input_tokens,
            output_tokens: c.output_tokens,
            outcome: CallOutcomePart {
                files: &o.files,
                applied: &o.applied,
                problems: wire(&o.problems),
                failed: o.failed.as_ref().map(DiagnosticWire::from),
                finish: o.finish.as_ref(),
            },
            at_ms: c.at_ms,
        }
    }
}

/// What the engine saw right after a call; empty parts are left out.
#[derive(Debug, Serialize)]
pub struct CallOutcomePart<'a> {
    /// Declared output path → SHA-256 of its content, or `null` when the agent left it absent.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub files: &'a BTreeMap<String, Option<String>>,
    /// Other paths the agent's change set touched (same form as `files`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub applied: &'a BTreeMap<String, Option<String>>,
    /// Findings about the call (confinement).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<DiagnosticWire<'a>>,
    /// Why the agent failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<DiagnosticWire<'a>>,
    /// Why the model stopped, when it was not a plain finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish: Option<&'a FinishReason>,
}

/// One event of a run: a step's state change.
#[derive(Debug, Serialize)]
pub struct EventPart<'a> {
    /// The step (or item).
    pub step: &'a str,
    /// What happened (`started`, `attempt`, `repair`, `revise`, `done`, `waiting`, ...).
    pub kind: &'a str,
    /// When (ms since the epoch).
    pub at_ms: i64,
    /// The diagnostics of the moment; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<DiagnosticWire<'a>>,
}

impl<'a> EventPart<'a> {
    fn new(e: &'a EventRecord) -> EventPart<'a> {
        EventPart {
            step: &e.step,
            kind: &e.kind,
            at_ms: e.at_ms,
            diagnostics: wire(&e.diagnostics),
        }
    }
}

/// A stored file linked to a step.
#[derive(Debug, Serialize)]
pub struct LinkPart<'a> {
    /// The step (or item).
    pub step: &'a str,
    /// The file, relative to the working directory.
    pub path: &'a str,
    /// `written`, `original`, `repaired` or `edit`.
    pub kind: &'a str,
    /// SHA-256 of the content.
    pub hash: &'a str,
    /// Size in bytes.
    pub bytes: i64,
    /// When (ms since the epoch).
    pub at_ms: i64,
}

impl<'a> LinkPart<'a> {
    fn new(l: &'a LinkRecord) -> LinkPart<'a> {
        LinkPart {
            step: &l.step,
            path: &l.path,
            kind: &l.kind,
            hash: &l.hash,
            bytes: l.bytes,
            at_ms: l.at_ms,
        }
    }
}

/// What a paused run waits for.
#[derive(Debug, Serialize)]
pub struct WaitPart<'a> {
    /// The step.
    pub step: &'a str,
    /// `human` or `exhausted`.
    pub reason: &'a str,
    /// The question, or why the step escalated.
    pub message: Option<&'a str>,
    /// The problems of the best candidate.
    pub diagnostics: Vec<DiagnosticWire<'a>>,
    /// The files concerned.
    pub files: &'a [String],
    /// The best candidate (an answer's text), when there is one.
    pub best: Option<&'a str>,
}

impl<'a> WaitPart<'a> {
    fn new(w: &'a WaitRecord) -> WaitPart<'a> {
        WaitPart {
            step: &w.step,
            reason: &w.reason,
            message: w.message.as_deref(),
            diagnostics: wire(&w.diagnostics),
            files: &w.files,
            best: w.best.as_deref(),
        }
    }
}

fn wire(diagnostics: &[Diagnostic]) -> Vec<DiagnosticWire<'_>> {
    diagnostics.iter().map(DiagnosticWire::from).collect()
}
