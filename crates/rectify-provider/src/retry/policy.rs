//! How long to wait before the next transport try, and whether to try at all.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ErrorKind;

/// The transport retry budget: exponential backoff with jitter, `Retry-After`, a cap on retries
/// and a cap on the total time spent waiting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetryPolicy {
    /// Retries after the first try (0 disables retrying).
    pub max_retries: u32,
    /// The wait before the first retry.
    pub initial_backoff: Duration,
    /// The largest wait between two tries (backoff only; `Retry-After` may ask for more).
    pub max_backoff: Duration,
    /// Growth factor of the backoff.
    pub multiplier: f64,
    /// Fraction of each backoff that is randomised (0 = none, 1 = full jitter).
    pub jitter: f64,
    /// The most time spent waiting across all retries of one call. A `Retry-After` longer
    /// than what is left ends the retries.
    pub max_total_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            multiplier: 2.0,
            jitter: 0.5,
            max_total_wait: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The backoff before retry number `retry` (0-based), given a random number in `[0, 1)`.
    pub fn backoff(&self, retry: u32, random: f64) -> Duration {
        let exponent = i32::try_from(retry).unwrap_or(i32::MAX);
        let base = self.initial_backoff.as_secs_f64() * self.multiplier.max(1.0).powi(exponent);
        let capped = base.min(self.max_backoff.as_secs_f64());
        let jitter = self.jitter.clamp(0.0, 1.0) * random.clamp(0.0, 1.0);
        Duration::try_from_secs_f64(capped * (1.0 - jitter)).unwrap_or(self.max_backoff)
    }

    /// The wait before the next try after `kind` failed, or `None` to give up. `retries` is the
    /// number of retries already made and `waited` the time already spent waiting.
    pub fn next_delay(
        &self,
        kind: &ErrorKind,
        retries: u32,
        waited: Duration,
        random: f64,
    ) -> Option<Duration> {
        if !kind.is_retryable() || retries >= self.max_retries {
            return None;
        }
        let remaining = self.max_total_wait.saturating_sub(waited);
        match kind.retry_after() {
            Some(asked) if asked > remaining => None,
            Some(asked) => Some(asked),
            None if remaining.is_zero() => None,
            None => Some(self.backoff(retries, random).min(remaining)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, retry_after: Option<Duration>) -> ErrorKind {
        ErrorKind::Http {
            status,
            retry_after,
            body: String::new(),
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy {
            jitter: 0.0,
            ..RetryPolicy::default()
        };
        assert_eq!(policy.backoff(0, 0.9), Duration::from_millis(500));
        assert_eq!(policy.backoff(1, 0.9), Duration::from_secs(1));
        assert_eq!(policy.backoff(3, 0.9), Duration::from_secs(4));
        assert_eq!(policy.backoff(30, 0.9), Duration::from_secs(30));
    }

    #[test]
    fn jitter_shortens_the_wait() {
        let policy = RetryPolicy {
            jitter: 0.5,
            ..RetryPolicy::default()
        };
        assert_eq!(policy.backoff(1, 0.0), Duration::from_secs(1));
        assert_eq!(policy.backoff(1, 1.0), Duration::from_millis(500));
    }

    #[test]
    fn gives_up_on_fatal_errors_and_spent_budgets() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.next_delay(&status(400, None), 0, Duration::ZERO, 0.0),
            None
        );
        assert_eq!(
            policy.next_delay(&status(503, None), 4, Duration::ZERO, 0.0),
            None
        );
        let spent = policy.max_total_wait;
        assert_eq!(policy.next_delay(&status(503, None), 0, spent, 0.0), None);
    }

    #[test]
    fn retry_after_is_obeyed_unless_it_exceeds_the_budget() {
        let policy = RetryPolicy::default();
        let asked = Some(Duration::from_secs(7));
        assert_eq!(
            policy.next_delay(&status(429, asked), 0, Duration::ZERO, 0.5),
            Some(Duration::from_secs(7))
        );
        let too_long = Some(Duration::from_secs(500));
        assert_eq!(
            policy.next_delay(&status(429, too_long), 0, Duration::ZERO, 0.5),
            None
        );
    }

    #[test]
    fn backoff_is_clamped_to_the_remaining_budget() {
        let policy = RetryPolicy {
            max_total_wait: Duration::from_millis(100),
            ..RetryPolicy::default()
        };
        let delay = policy.next_delay(&status(500, None), 0, Duration::from_millis(40), 0.0);
        assert_eq!(delay, Some(Duration::from_millis(60)));
    }
}
