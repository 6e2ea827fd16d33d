//! Structured events of a run: for `tracing` subscribers (always) and for event sinks such
//! as a JSON Lines trace file (when the caller adds one).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rectify_core::{Diagnostic, Repair};
use rectify_provider::{FinishReason, ProviderError, Usage};
use serde::{Serialize, Serializer};

use crate::config::FeedbackMode;
use crate::outcome::Limit;

/// One event, with the step it belongs to and the time since the run started.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// The task's step name (empty when none was set).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub step: String,
    /// Time since the run started.
    #[serde(rename = "elapsed_ms", serialize_with = "millis")]
    pub elapsed: Duration,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened. Serialized with an `event` tag in snake case (`attempt_start`, ...).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventKind {
    /// The run begins.
    RunStart {
        /// The provider rungs, in order.
        providers: Vec<String>,
        /// Attempts per rung.
        max_attempts: u32,
        /// The feedback mode.
        feedback: FeedbackMode,
    },
    /// A model call begins.
    AttemptStart {
        /// 1-based attempt number.
        attempt: u32,
        /// 0-based provider rung.
        rung: usize,
        /// The provider's name.
        provider: String,
        /// Messages sent.
        messages: usize,
    },
    /// Repairs applied to an answer.
    Repairs {
        /// The attempt.
        attempt: u32,
        /// The repairs.
        repairs: Vec<Repair>,
    },
    /// Diagnostics of an answer.
    Diagnostics {
        /// The attempt.
        attempt: u32,
        /// The diagnostics.
        diagnostics: Vec<Diagnostic>,
    },
    /// A model call ended and its answer was judged.
    AttemptEnd {
        /// The attempt.
        attempt: u32,
        /// The provider's name.
        provider: String,
        /// The model that answered.
        model: String,
        /// Why generation stopped.
        finish_reason: FinishReason,
        /// The answer passed every check.
        valid: bool,
        /// Error diagnostics.
        errors: usize,
        /// Warning diagnostics.
        warnings: usize,
        /// Tokens used.
        usage: Usage,
        /// Cost in US dollars, when priced.
        cost: Option<f64>,
        /// Provider latency.
        #[serde(rename = "latency_ms", serialize_with = "millis")]
        latency: Duration,
        /// Transport retries.
        transport_retries: u32,
    },
    /// A provider rung failed after its transport retries.
    ProviderError {
        /// The rung.
        rung: usize,
        /// The failure.
        error: ProviderError,
    },
    /// The provider changed how it is called (for example it fell back to a weaker
    /// structured-output mode its server accepts); also kept in the attempt's `notices`.
    ProviderNotice {
        /// The attempt whose call it happened in.
        attempt: u32,
        /// The provider's name.
        provider: String,
        /// What changed.
        message: String,
    },
    /// A budget stopped the run before the next attempt.
    BudgetStop {
        /// Which budget.
        limit: Limit,
    },
    /// The run ended.
    Outcome {
        /// `valid`, `exhausted`, `refused` or `provider_failed`.
        status: String,
        /// Attempts made.
        attempts: u32,
        /// Tokens used.
        usage: Usage,
        /// Cost, when priced.
        cost: Option<f64>,
    },
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn millis<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1_000_000.0).round() / 1_000.0)
}

/// Receives the events of a run. Closures `Fn(&Event)` are sinks too.
pub trait EventSink: Send + Sync {
    /// Handles one event. Must not block for long.
    fn emit(&self, event: &Event);
}

impl<F: Fn(&Event) + Send + Sync> EventSink for F {
    fn emit(&self, event: &Event) {
        self(event);
    }
}

/// Writes each event as one JSON line, flushed at once, so a trace survives a crash.
/// A write failure is logged once (through `tracing`) and further events are dropped.
pub struct JsonLinesSink {
    out: Mutex<Box<dyn Write + Send>>,
    failed: AtomicBool,
}

impl std::fmt::Debug for JsonLinesSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonLinesSink")
            .field("failed", &self.failed())
            .finish_non_exhaustive()
    }
}

impl JsonLinesSink {
    /// Creates (or truncates) the trace file at `path`, readable by its owner only (mode
    /// 0600 on Unix, also when the file existed): it holds prompts and answers.
    pub fn create(path: &Path) -> io::Result<JsonLinesSink> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file: File = options.open(path)?;
        #[cfg(unix)]
        if file.metadata()?.is_file() {
            use std::os::unix::fs::PermissionsExt as _;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(JsonLinesSink::new(BufWriter::new(file)))
    }

    /// Writes to any writer.
    pub fn new(writer: impl Write + Send + 'static) -> JsonLinesSink {
        JsonLinesSink {
            out: Mutex::new(Box::new(writer)),
            failed: AtomicBool::new(false),
        }
    }

    /// True once a write has failed.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    fn write(&self, event: &Event) -> io::Result<()> {
        let mut line = serde_json::to_vec(event)?;
        line.push(b'\n');
        let mut out = self
            .out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        out.write_all(&line)?;
        out.flush()
    }
}

impl EventSink for JsonLinesSink {
    fn emit(&self, event: &Event) {
        if self.failed() {
            return;
        }
        if let Err(err) = self.write(event) {
            self.failed.store(true, Ordering::Relaxed);
            tracing::warn!(error = %err, "cannot write the trace; further events are dropped");
        }
    }
}
