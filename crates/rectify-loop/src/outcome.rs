//! What a run produced: the [`Outcome`], the attempt [`Ledger`] and its totals.

use std::fmt;
use std::time::Duration;

use rectify_core::{Diagnostic, Repair, Report};
use rectify_provider::{FinishReason, ProviderError, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One model call and what the loop made of its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1-based number over the whole run (all rungs).
    pub number: u32,
    /// 0-based index of the provider rung that answered.
    pub rung: usize,
    /// The provider's name.
    pub provider: String,
    /// The model that answered, as reported.
    pub model: String,
    /// The sampling temperature asked for (`None`: the provider's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The answer as received.
    pub raw: String,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// The repaired value, the diagnostics of every check and the repairs applied. The value
    /// of the accepted attempt is not repeated here: it is the value of [`Outcome::Valid`].
    pub report: Report,
    /// Tokens used by this call.
    pub usage: Usage,
    /// Cost in US dollars, when the model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Wall time of the call, transport retries included.
    pub latency: Duration,
    /// Transport retries the provider used (never counted as attempts).
    pub transport_retries: u32,
    /// The feedback sent to the model after this attempt, if it was re-asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// What the provider changed about how it is called during this call, such as a
    /// structured-output mode the server rejected and the weaker one used from then on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

impl Attempt {
    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.report.error_count()
    }
}

/// Sums over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Model calls that returned an answer.
    pub attempts: u32,
    /// Tokens over all attempts.
    pub usage: Usage,
    /// Cost over the attempts whose model has a price (`None` when none has).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Provider latency over all attempts.
    pub latency: Duration,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// Transport retries over all calls.
    pub transport_retries: u32,
}

/// Every attempt of a run, the provider failures that moved it to another rung, and totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// The attempts, in order.
    pub attempts: Vec<Attempt>,
    /// Transport or configuration failures of provider rungs, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provider_errors: Vec<ProviderError>,
    /// Sums.
    pub totals: Totals,
}

impl Ledger {
    /// Every provider notice of the run, in order, with the attempt it came with.
    pub fn notices(&self) -> impl Iterator<Item = (u32, &str)> {
        self.attempts
            .iter()
            .flat_map(|a| a.notices.iter().map(move |n| (a.number, n.as_str())))
    }

    /// Adds an attempt and updates the totals.
    pub(crate) fn push(&mut self, attempt: Attempt) {
        let t = &mut self.totals;
        t.attempts += 1;
        t.usage.add(attempt.usage);
        if let Some(cost) = attempt.cost {
            t.cost = Some(t.cost.unwrap_or(0.0) + cost);
        }
        t.latency += attempt.latency;
        t.transport_retries = t
            .transport_retries
            .saturating_add(attempt.transport_retries);
        self.attempts.push(attempt);
    }

    /// Records a provider failure.
    pub(crate) fn push_error(&mut self, error: ProviderError) {
        self.totals.transport_retries = self.totals.transport_retries.saturating_add(error.retries);
        self.provider_errors.push(error);
    }

    /// The attempt with the fewest errors; among equals, the later one (it had more feedback);
    /// an attempt with a value beats one without.
    pub fn best(&self) -> Option<&Attempt> {
        self.attempts.iter().min_by_key(|a| {
            (
                a.report.value.is_none(),
                a.error_count(),
                u32::MAX - a.number,
            )
        })
    }
}

/// The best answer of a run that produced no valid one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Which attempt it came from.
    pub attempt: u32,
    /// The repaired value, when one could be recovered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The answer as received.
    pub raw: String,
    /// Everything wrong with it.
    pub diagnostics: Vec<Diagnostic>,
}

impl Candidate {
    pub(crate) fn of(attempt: &Attempt) -> Candidate {
        Candidate {
            attempt: attempt.number,
            value: attempt.report.value.clone(),
            raw: attempt.raw.clone(),
            diagnostics: attempt.report.diagnostics.clone(),
        }
    }
}

/// What a human needs to decide when the loop gives up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Escalation {
    /// The step the task belongs to (empty when none was named).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub step: String,
    /// Why it was escalated, in one sentence.
    pub reason: String,
    /// The task prompt.
    pub prompt: String,
    /// The system prompt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The JSON Schema the answer had to satisfy, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// The best candidate value, if any could be recovered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate: Option<Value>,
    /// The errors left in the best candidate.
    pub errors: Vec<Diagnostic>,
}

/// The limit that ended a run without a valid answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Limit {
    /// Every rung used its attempts.
    Attempts {
        /// Attempts made over all rungs.
        made: u32,
    },
    /// The next attempt would exceed the token budget.
    Tokens {
        /// Tokens used so far.
        used: u64,
        /// Estimated tokens of the next attempt.
        estimate: u64,
        /// The budget.
        max: u64,
    },
    /// The next attempt would exceed the cost budget.
    Cost {
        /// Dollars spent so far.
        spent: f64,
        /// Estimated dollars of the next attempt.
        estimate: f64,
        /// The budget.
        max: f64,
    },
    /// The next attempt would end after the deadline.
    Deadline {
        /// Time used so far.
        elapsed: Duration,
        /// Estimated time of the next attempt.
        estimate: Duration,
        /// The time limit.
        max: Duration,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Attempts { made } => {
                let s = if *made == 1 { "" } else { "s" };
                write!(f, "no valid answer after {made} attempt{s}")
            }
            Limit::Tokens {
                used,
                estimate,
                max,
            } => write!(
                f,
                "token budget of {max} reached ({used} used, the next attempt needs about {estimate})"
            ),
            Limit::Cost {
                spent,
                estimate,
                max,
            } => write!(
                f,
                "cost budget of ${max:.4} reached (${spent:.4} spent, the next attempt costs about ${estimate:.4})"
            ),
            Limit::Deadline {
                elapsed,
                estimate,
                max,
            } => write!(
                f,
                "time budget of {:.1}s reached ({:.1}s used, the next attempt takes about {:.1}s)",
                max.as_secs_f64(),
                elapsed.as_secs_f64(),
                estimate.as_secs_f64()
            ),
        }
    }
}

/// The result of a run. Never a silent success: only `Valid` carries a value that passed
/// every check. Every variant carries the attempt ledger. Serializable, so workflows can
/// checkpoint it.
///
/// One outcome is made per run, so the size difference between variants is left alone
/// rather than boxing fields callers match on.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome<T = Value> {
    /// An answer passed every check.
    Valid {
        /// The value (repaired, checked and, for typed runs, deserialized).
        value: T,
        /// Warnings about the accepted answer.
        warnings: Vec<Diagnostic>,
        /// Repairs applied to obtain it.
        repairs: Vec<Repair>,
        /// Every attempt.
        ledger: Ledger,
    },
    /// No valid answer within the limits: escalate to a human.
    Exhausted {
        /// The best answer (fewest errors), if any attempt was made.
        best: Option<Candidate>,
        /// The best answer's diagnostics.
        diagnostics: Vec<Diagnostic>,
        /// What a human needs to decide.
        escalation: Escalation,
        /// Which limit ended the run.
        limit: Limit,
        /// Every attempt.
        ledger: Ledger,
    },
    /// The model refused to answer.
    Refused {
        /// What the model said.
        message: String,
        /// Every attempt.
        ledger: Ledger,
    },
    /// The last provider rung failed after its transport retries.
    ProviderFailed {
        /// The last failure.
        error: ProviderError,
        /// The best answer of earlier rungs, if any.
        best: Option<Candidate>,
        /// Every attempt.
        ledger: Ledger,
    },
}

impl<T> Outcome<T> {
    /// The attempt ledger.
    pub fn ledger(&self) -> &Ledger {
        match self {
            Outcome::Valid { ledger, .. }
            | Outcome::Exhausted { ledger, .. }
            | Outcome::Refused { ledger, .. }
            | Outcome::ProviderFailed { ledger, .. } => ledger,
        }
    }

    /// True for `Valid`.
    pub fn is_valid(&self) -> bool {
        matches!(self, Outcome::Valid { .. })
    }

    /// The valid value, if any.
    pub fn value(&self) -> Option<&T> {
        match self {
            Outcome::Valid { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The valid value, or the whole outcome when there is none.
    #[allow(clippy::result_large_err)]
    pub fn into_value(self) -> Result<T, Outcome<T>> {
        match self {
            Outcome::Valid { value, .. } => Ok(value),
            other => Err(other),
        }
    }

    /// `valid`, `exhausted`, `refused` or `provider_failed`.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Valid { .. } => "valid",
            Outcome::Exhausted { .. } => "exhausted",
            Outcome::Refused { .. } => "refused",
            Outcome::ProviderFailed { .. } => "provider_failed",
        }
    }
}
