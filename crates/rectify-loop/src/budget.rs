//! Spending so far, checked against the [`Budget`] before each attempt.

use std::time::{Duration, Instant};

use crate::config::Budget;
use crate::outcome::{Attempt, Limit};

/// What a run has spent. The next attempt is estimated as the largest earlier one (zero
/// before the first), so the run stops before an attempt that would cross a limit.
#[derive(Debug)]
pub(crate) struct Spend {
    started: Instant,
    tokens: u64,
    cost: f64,
    largest_tokens: u64,
    largest_cost: f64,
    largest_latency: Duration,
}

impl Spend {
    pub(crate) fn start() -> Spend {
        Spend {
            started: Instant::now(),
            tokens: 0,
            cost: 0.0,
            largest_tokens: 0,
            largest_cost: 0.0,
            largest_latency: Duration::ZERO,
        }
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub(crate) fn record(&mut self, attempt: &Attempt) {
        let tokens = attempt.usage.total();
        self.tokens = self.tokens.saturating_add(tokens);
        self.largest_tokens = self.largest_tokens.max(tokens);
        let cost = attempt.cost.unwrap_or(0.0);
        self.cost += cost;
        self.largest_cost = self.largest_cost.max(cost);
        self.largest_latency = self.largest_latency.max(attempt.latency);
    }

    /// The time left before the deadline, if there is one.
    pub(crate) fn remaining(&self, budget: &Budget) -> Option<Duration> {
        budget
            .max_duration
            .map(|max| max.saturating_sub(self.elapsed()))
    }

    /// The limit the next attempt would cross, if any.
    pub(crate) fn check(&self, budget: &Budget) -> Option<Limit> {
        self.check_at(budget, self.elapsed())
    }

    fn check_at(&self, budget: &Budget, elapsed: Duration) -> Option<Limit> {
        if let Some(max) = budget.max_tokens {
            let estimate = self.largest_tokens;
            if self.tokens >= max || self.tokens.saturating_add(estimate) > max {
                return Some(Limit::Tokens {
                    used: self.tokens,
                    estimate,
                    max,
                });
            }
        }
        if let Some(max) = budget.max_cost {
            let estimate = self.largest_cost;
            if self.cost >= max || self.cost + estimate > max {
                return Some(Limit::Cost {
                    spent: self.cost,
                    estimate,
                    max,
                });
            }
        }
        if let Some(max) = budget.max_duration {
            let estimate = self.largest_latency;
            if elapsed >= max || elapsed.saturating_add(estimate) > max {
                return Some(Limit::Deadline {
                    elapsed,
                    estimate,
                    max,
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use rectify_core::Report;
    use rectify_provider::{FinishReason, Usage};

    use super::*;

    fn attempt(tokens: u64, cost: f64, secs: u64) -> Attempt {
        Attempt {
            number: 1,
            rung: 0,
            provider: "p".into(),
            model: "m".into(),
            temperature: None,
            raw: String::new(),
            finish_reason: FinishReason::Stop,
            report: Report::default(),
            usage: Usage::new(tokens, 0),
            cost: Some(cost),
            latency: Duration::from_secs(secs),
            transport_retries: 0,
            feedback: None,
            notices: Vec::new(),
        }
    }

    #[test]
    fn stops_before_an_attempt_that_would_cross_a_limit() {
        let mut spend = Spend::start();
        let budget = Budget::default().with_max_tokens(250);
        assert_eq!(spend.check_at(&budget, Duration::ZERO), None);
        spend.record(&attempt(100, 0.0, 0));
        assert_eq!(spend.check_at(&budget, Duration::ZERO), None);
        spend.record(&attempt(100, 0.0, 0));
        assert_eq!(
            spend.check_at(&budget, Duration::ZERO),
            Some(Limit::Tokens {
                used: 200,
                estimate: 100,
                max: 250
            })
        );
    }

    #[test]
    fn cost_and_deadline() {
        let mut spend = Spend::start();
        spend.record(&attempt(1, 0.5, 4));
        let cost = Budget::default().with_max_cost(0.9);
        assert!(matches!(
            spend.check_at(&cost, Duration::ZERO),
            Some(Limit::Cost { .. })
        ));
        let time = Budget::default().with_max_duration(Duration::from_secs(10));
        assert_eq!(spend.check_at(&time, Duration::from_secs(5)), None);
        assert!(matches!(
            spend.check_at(&time, Duration::from_secs(7)),
            Some(Limit::Deadline { .. })
        ));
        assert_eq!(spend.check_at(&Budget::unlimited(), Duration::MAX), None);
    }
}
