//! Transport retry: its own layer, its own budget.
//!
//! Backends run each network or process try through [`Retrier::run`]. A failed try is retried
//! when [`ErrorKind::is_retryable`] says so and the [`RetryPolicy`] budget allows; the wait is
//! the server's `Retry-After` when given, else exponential backoff with jitter. Retries never
//! reach the content loop: the caller sees either a [`Response`](crate::Response) (with
//! `transport_retries`) or a [`ProviderError`] saying how many retries were used.

mod after;
mod policy;
mod sleep;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use after::{parse_retry_after, parse_retry_after_ms};
pub use policy::RetryPolicy;
pub use sleep::{RecordingSleeper, Sleeper, TokioSleeper};

use crate::{ErrorKind, ProviderError};

/// A value obtained after some transport retries.
#[derive(Debug, Clone, PartialEq)]
pub struct Retried<T> {
    /// The value.
    pub value: T,
    /// Retries used to get it.
    pub retries: u32,
    /// Time spent, waits included.
    pub elapsed: Duration,
}

/// Runs tries under a [`RetryPolicy`], waiting with a [`Sleeper`].
#[derive(Debug, Clone)]
pub struct Retrier {
    policy: RetryPolicy,
    sleeper: Arc<dyn Sleeper>,
}

impl Default for Retrier {
    fn default() -> Self {
        Self::new(RetryPolicy::default())
    }
}

impl Retrier {
    /// A retrier that really waits.
    pub fn new(policy: RetryPolicy) -> Self {
        Self {
            policy,
            sleeper: Arc::new(TokioSleeper),
        }
    }

    /// Replaces the sleeper (tests pass a [`RecordingSleeper`]).
    pub fn with_sleeper(mut self, sleeper: Arc<dyn Sleeper>) -> Self {
        self.sleeper = sleeper;
        self
    }

    /// The policy in use.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Calls `try_once(retry_number)` until it succeeds, fails fatally or the budget is spent.
    pub async fn run<T, F, Fut>(
        &self,
        provider: &str,
        mut try_once: F,
    ) -> Result<Retried<T>, ProviderError>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, ErrorKind>>,
    {
        let start = Instant::now();
        let mut retries = 0;
        let mut waited = Duration::ZERO;
        loop {
            let kind = match try_once(retries).await {
                Ok(value) => {
                    return Ok(Retried {
                        value,
                        retries,
                        elapsed: start.elapsed(),
                    });
                }
                Err(kind) => kind,
            };
            let Some(delay) = self
                .policy
                .next_delay(&kind, retries, waited, fastrand::f64())
            else {
                let elapsed = start.elapsed().max(waited);
                return Err(ProviderError {
                    kind,
                    provider: provider.to_owned(),
                    retries,
                    elapsed,
                    received: None,
                });
            };
            tracing::debug!(provider, retry = retries + 1, ?delay, error = %kind, "transport retry");
            self.sleeper.sleep(delay).await;
            waited += delay;
            retries += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unavailable() -> ErrorKind {
        ErrorKind::Http {
            status: 503,
            retry_after: None,
            body: String::new(),
        }
    }

    #[tokio::test]
    async fn retries_until_success_and_counts() {
        let sleeper = RecordingSleeper::new();
        let retrier = Retrier::default().with_sleeper(Arc::new(sleeper.clone()));
        let result = retrier
            .run("p", |n| async move {
                if n < 2 { Err(unavailable()) } else { Ok(n) }
            })
            .await
            .unwrap();
        assert_eq!((result.value, result.retries), (2, 2));
        assert_eq!(sleeper.delays().len(), 2);
    }

    #[tokio::test]
    async fn stops_at_max_retries_and_reports_them() {
        let sleeper = RecordingSleeper::new();
        let policy = RetryPolicy {
            max_retries: 3,
            ..RetryPolicy::default()
        };
        let retrier = Retrier::new(policy).with_sleeper(Arc::new(sleeper.clone()));
        let mut calls = 0;
        let error = retrier
            .run("p", |_| {
                calls += 1;
                async { Err::<(), _>(unavailable()) }
            })
            .await
            .unwrap_err();
        assert_eq!((calls, error.retries), (4, 3));
        assert!(error.elapsed >= sleeper.delays().iter().sum());
    }

    #[tokio::test]
    async fn fatal_errors_are_not_retried() {
        let retrier = Retrier::default().with_sleeper(Arc::new(RecordingSleeper::new()));
        let mut calls = 0;
        let error = retrier
            .run("p", |_| {
                calls += 1;
                async {
                    Err::<(), _>(ErrorKind::Config {
                        message: "no key".into(),
                    })
                }
            })
            .await
            .unwrap_err();
        assert_eq!((calls, error.retries), (1, 0));
    }
}
