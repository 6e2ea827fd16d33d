//! `rectify ask` on the wire (`docs/output/ask.schema.json`): one object whose `status` says
//! how the run ended, with the same diagnostic shape as `rectify check`, and every attempt.

use serde::Serialize;
use serde_json::Value;

use super::diagnostic::{DiagnosticWire, all};
use crate::Repair;
use crate::engine::{Attempt, Candidate, Ledger, Limit, Outcome};
use crate::provider::{FinishReason, ProviderError};
/// The result of `rectify ask --output json`.
#[derive(Debug, Clone, Serialize)]
pub struct AskWire<'a> {
    /// `valid`, `exhausted`, `refused` or `provider_failed`.
    status: &'static str,
    /// The accepted value; for other outcomes the best candidate's value, if any.
    value: Option<&'a Value>,
    /// Warnings of the accepted value, or the errors left in the best candidate.
    diagnostics: Vec<DiagnosticWire<'a>>,
    /// Repairs applied to the accepted value (or to the best candidate).
    repairs: &'a [Repair],
    /// Why the run ended without a valid value (the limit, the refusal, the provider error).
    message: Option<String>,
    /// The run without a valid value, classified and worded once ([`crate::failure_of`]): what
    /// every front end raises or prints. `None` for a valid one.
    error: Option<ErrorWire>,
    /// The attempt the value or the best candidate came from.
    best_attempt: Option<u32>,
    /// The limit that ended an exhausted run.
    limit: Option<WireLimit>,
    /// The provider failure that ended the run.
    provider_error: Option<WireProviderError>,
    /// Every attempt, in order.
    attempts: Vec<WireAttempt<'a>>,
    /// Sums over the attempts.
    totals: WireTotals,
}

#[derive(Debug, Clone, Serialize)]
struct WireAttempt<'a> {
    number: u32,
    rung: usize,
    provider: &'a str,
    model: &'a str,
    temperature: Option<f64>,
    finish_reason: String,
    raw: &'a str,
    valid: bool,
    value: Option<&'a Value>,
    diagnostics: Vec<DiagnosticWire<'a>>,
    repairs: &'a [Repair],
    input_tokens: u64,
    output_tokens: u64,
    cost: Option<f64>,
    latency_ms: u128,
    transport_retries: u32,
    feedback: Option<&'a str>,
    notices: &'a [String],
}

/// A call without a value: its class and the words every front end uses.
#[derive(Debug, Clone, Serialize)]
struct ErrorWire {
    /// `exhausted`, `refused`, `provider` or `config`.
    class: &'static str,
    /// The message (for `exhausted`, the limit and the best answer's problems, one per line).
    message: String,
}

#[derive(Debug, Clone, Serialize)]
struct WireTotals {
    attempts: u32,
    input_tokens: u64,
    output_tokens: u64,
    cost: Option<f64>,
    latency_ms: u128,
    elapsed_ms: u128,
    transport_retries: u32,
}

#[derive(Debug, Clone, Serialize)]
struct WireLimit {
    /// `attempts`, `tokens`, `cost` or `deadline`.
    kind: &'static str,
    /// The limit's own numbers (`made`; `used`, `estimate`, `max`; times in ms).
    #[serde(flatten)]
    numbers: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, Serialize)]
struct WireProviderError {
    provider: String,
    /// `http`, `timeout`, `connection`, `auth`, `config`, ... (the failure's class).
    kind: String,
    message: String,
    retries: u32,
    elapsed_ms: u128,
}

impl<'a> AskWire<'a> {
    /// The wire form of `outcome`.
    pub fn new(outcome: &'a Outcome) -> AskWire<'a> {
        let ledger = outcome.ledger();
        let base = |status| AskWire {
            status,
            value: None,
            diagnostics: Vec::new(),
            repairs: &[],
            message: None,
            error: crate::failure_of(outcome).map(|(class, message)| ErrorWire {
                class: class.as_str(),
                message,
            }),
            best_attempt: None,
            limit: None,
            provider_error: None,
            attempts: ledger.attempts.iter().map(WireAttempt::from).collect(),
            totals: WireTotals::from(ledger),
        };
        match outcome {
            Outcome::Valid {
                value,
                warnings,
                repairs,
                ..
            } => AskWire {
                value: Some(value),
                diagnostics: all(warnings),
                repairs,
                best_attempt: ledger.attempts.last().map(|a| a.number),
                ..base("valid")
            },
            Outcome::Exhausted { best, limit, .. } => AskWire {
                message: Some(limit.to_string()),
                limit: Some(WireLimit::from(limit)),
                ..base("exhausted").with_best(best.as_ref(), ledger)
            },
            Outcome::Refused { message, .. } => AskWire {
                message: Some(message.clone()),
                ..base("refused")
            },
            Outcome::ProviderFailed { error, best, .. } => AskWire {
                message: Some(error.to_string()),
                provider_error: Some(WireProviderError::from(error)),
                ..base("provider_failed").with_best(best.as_ref(), ledger)
            },
            _ => AskWire {
                message: Some("an outcome this version cannot describe".to_owned()),
                ..base("unknown")
            },
        }
    }

    fn with_best(mut self, best: Option<&'a Candidate>, ledger: &'a Ledger) -> AskWire<'a> {
        let Some(best) = best else { return self };
        self.best_attempt = Some(best.attempt);
        self.value = best.value.as_ref();
        self.diagnostics = all(&best.diagnostics);
        if let Some(attempt) = ledger.attempts.iter().find(|a| a.number == best.attempt) {
            self.repairs = &attempt.report.repairs;
        }
        self
    }
}

impl<'a> From<&'a Attempt> for WireAttempt<'a> {
    fn from(a: &'a Attempt) -> Self {
        WireAttempt {
            number: a.number,
            rung: a.rung,
            provider: &a.provider,
            model: &a.model,
            temperature: a.temperature,
            finish_reason: finish_reason(&a.finish_reason),
            raw: &a.raw,
            valid: a.report.valid,
            value: a.report.value.as_ref(),
            diagnostics: all(&a.report.diagnostics),
            repairs: &a.report.repairs,
            input_tokens: a.usage.input_tokens,
            output_tokens: a.usage.output_tokens,
            cost: a.cost,
            latency_ms: a.latency.as_millis(),
            transport_retries: a.transport_retries,
            feedback: a.feedback.as_deref(),
            notices: &a.notices,
        }
    }
}

/// A finish reason's wire name.
pub(super) fn finish_reason(reason: &FinishReason) -> String {
    match reason {
        FinishReason::Stop => "stop".to_owned(),
        FinishReason::Length => "length".to_owned(),
        FinishReason::Refusal => "refusal".to_owned(),
        FinishReason::Other(name) => name.clone(),
    }
}

impl From<&Ledger> for WireTotals {
    fn from(ledger: &Ledger) -> Self {
        let t = &ledger.totals;
        WireTotals {
            attempts: t.attempts,
            input_tokens: t.usage.input_tokens,
            output_tokens: t.usage.output_tokens,
            cost: t.cost,
            latency_ms: t.latency.as_millis(),
            elapsed_ms: t.elapsed.as_millis(),
            transport_retries: t.transport_retries,
        }
    }
}

impl From<&Limit> for WireLimit {
    fn from(limit: &Limit) -> Self {
        let ms =
            |d: &std::time::Duration| Value::from(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let (kind, numbers) = match limit {
            Limit::Attempts { made } => ("attempts", vec![("made", Value::from(*made))]),
            Limit::Tokens {
                used,
                estimate,
                max,
            } => (
                "tokens",
                vec![
                    ("used", Value::from(*used)),
                    ("estimate", Value::from(*estimate)),
                    ("max", Value::from(*max)),
                ],
            ),
            Limit::Cost {
                spent,
                estimate,
                max,
            } => (
                "cost",
                vec![
                    ("spent", Value::from(*spent)),
                    ("estimate", Value::from(*estimate)),
                    ("max", Value::from(*max)),
                ],
            ),
            Limit::Deadline {
                elapsed,
                estimate,
                max,
            } => (
                "deadline",
                vec![
                    ("elapsed_ms", ms(elapsed)),
                    ("estimate_ms", ms(estimate)),
                    ("max_ms", ms(max)),
                ],
            ),
            _ => ("other", Vec::new()),
        };
        WireLimit {
            kind,
            numbers: numbers
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        }
    }
}

impl From<&ProviderError> for WireProviderError {
    fn from(e: &ProviderError) -> Self {
        let kind = serde_json::to_value(&e.kind)
            .ok()
            .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| "other".to_owned());
        WireProviderError {
            provider: e.provider.clone(),
            kind,
            message: e.kind.to_string(),
            retries: e.retries,
            elapsed_ms: e.elapsed.as_millis(),
        }
    }
}
