//! `rectify ask --stream` on the wire (`docs/output/ask-stream.schema.json`): one JSON object
//! per line, tagged by `event`: `partial`, `abort`, `attempt`, and last `final`, which holds
//! the same members as `rectify ask --output json`'s document ([`AskWire`]).

use serde::Serialize;
use serde_json::Value;

use super::ask::{AskWire, finish_reason};
use super::diagnostic::{DiagnosticWire, all};
use crate::engine::Outcome;
use crate::stream::{AttemptEnd, Update};

/// One line of `rectify ask --stream`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AskEventWire<'a> {
    /// The answer of an attempt read so far.
    Partial(PartialWire<'a>),
    /// An answer stopped because it could no longer be valid.
    Abort(AbortWire<'a>),
    /// An attempt ended and was judged.
    Attempt(AttemptEndWire<'a>),
    /// The run ended: `rectify ask --output json`'s document.
    Final(Box<AskWire<'a>>),
}

/// The value of an answer as far as it has arrived.
#[derive(Debug, Clone, Serialize)]
pub struct PartialWire<'a> {
    /// The 1-based attempt the answer belongs to.
    attempt: u32,
    /// The value so far (complete members and items, the string in progress).
    value: &'a Value,
    /// JSON pointers of the values that will not change any more (`""`: all of it).
    final_paths: &'a [String],
    /// The pointer of the value being read.
    in_progress: Option<&'a str>,
    /// True when the whole value has arrived.
    complete: bool,
}

/// An answer stopped by rectify.
#[derive(Debug, Clone, Serialize)]
pub struct AbortWire<'a> {
    /// The attempt stopped.
    attempt: u32,
    /// Bytes received when it was stopped.
    received: usize,
    /// Why: the problems no continuation can fix.
    diagnostics: Vec<DiagnosticWire<'a>>,
}

/// An attempt as it ended (the whole record is in the final event's `attempts`).
#[derive(Debug, Clone, Serialize)]
pub struct AttemptEndWire<'a> {
    /// 1-based attempt number.
    number: u32,
    /// The provider's name.
    provider: &'a str,
    /// The model that answered.
    model: &'a str,
    /// `stop`, `length`, `refusal`, `stopped_by_caller` (stopped by rectify), ...
    finish_reason: String,
    /// The answer passed every check.
    valid: bool,
    /// The answer's diagnostics.
    diagnostics: Vec<DiagnosticWire<'a>>,
    /// Notes of the provider or rectify about the call.
    notices: &'a [String],
    /// Prompt tokens.
    input_tokens: u64,
    /// Generated tokens.
    output_tokens: u64,
    /// Cost in US dollars, when priced.
    cost: Option<f64>,
    /// Provider latency.
    latency_ms: u128,
    /// Transport retries.
    transport_retries: u32,
}

impl<'a> AskEventWire<'a> {
    /// The wire form of one update of a streaming run ([`crate::stream::run`]).
    pub fn new(update: &'a Update<Outcome>) -> AskEventWire<'a> {
        match update {
            Update::Partial { attempt, partial } => AskEventWire::Partial(PartialWire {
                attempt: *attempt,
                value: &partial.value,
                final_paths: &partial.final_paths,
                in_progress: partial.in_progress.as_deref(),
                complete: partial.complete,
            }),
            Update::Abort {
                attempt,
                diagnostics,
                received,
            } => AskEventWire::Abort(AbortWire {
                attempt: *attempt,
                received: *received,
                diagnostics: all(diagnostics),
            }),
            Update::Attempt(end) => AskEventWire::Attempt(AttemptEndWire::from(end)),
            Update::Done(outcome) => AskEventWire::Final(Box::new(AskWire::new(outcome))),
        }
    }
}

impl<'a> From<&'a AttemptEnd> for AttemptEndWire<'a> {
    fn from(a: &'a AttemptEnd) -> Self {
        AttemptEndWire {
            number: a.number,
            provider: &a.provider,
            model: &a.model,
            finish_reason: finish_reason(&a.finish_reason),
            valid: a.valid,
            diagnostics: all(&a.diagnostics),
            notices: &a.notices,
            input_tokens: a.usage.input_tokens,
            output_tokens: a.usage.output_tokens,
            cost: a.cost,
            latency_ms: a.latency.as_millis(),
            transport_retries: a.transport_retries,
        }
    }
}
