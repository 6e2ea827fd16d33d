//! Injectable waiting, so tests do not really sleep.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::BoxFuture;

/// Something that waits. The default is [`TokioSleeper`]; tests use [`RecordingSleeper`].
pub trait Sleeper: Send + Sync + fmt::Debug {
    /// Waits for `duration`.
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// Waits with `tokio::time::sleep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleeper;

impl Sleeper for TokioSleeper {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// Returns at once and records every wait it was asked for.
#[derive(Debug, Clone, Default)]
pub struct RecordingSleeper {
    delays: Arc<Mutex<Vec<Duration>>>,
}

impl RecordingSleeper {
    /// A sleeper with an empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// The waits asked for so far, in order.
    pub fn delays(&self) -> Vec<Duration> {
        self.delays
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Sleeper for RecordingSleeper {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        self.delays
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(duration);
        Box::pin(std::future::ready(()))
    }
}
