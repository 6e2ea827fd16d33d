//! The validate → repair → feedback → retry engine.
//!
//! A [`Task`] says what to ask (prompt, system prompt) and how to judge the answer (a JSON
//! Schema or a Rust type, a rules [`Checker`](rectify_check::Checker), custom validators).
//! An [`Engine`] asks its providers until an answer passes: each attempt is one model call,
//! then extraction and deterministic repair, then every check; a failed attempt is fed back
//! to the model as a compact list of problems ([`FeedbackMode`]). Transport failures are
//! retried inside the provider and never count as attempts.
//!
//! The [`Outcome`] is `Valid`, `Exhausted` (with the best candidate, its diagnostics, an
//! [`Escalation`] for a human and the [`Limit`] that ended the run), `Refused` or
//! `ProviderFailed`, always with the attempt [`Ledger`]. Budgets stop a run before an attempt
//! that would cross them; a fallback ladder moves to the next provider; an [`ErrorMemory`]
//! carries mistakes across the steps of a workflow; events go to `tracing` and to optional
//! sinks such as a [`JsonLinesSink`].
//!
//! ```
//! use rectify_loop::{Engine, FeedbackMode, Outcome, Task};
//! use rectify_provider::{Capabilities, CompletionFuture, FinishReason, Provider, Request, Response, Usage};
//! use serde_json::json;
//! use std::sync::Mutex;
//!
//! /// Answers from a list (a real program would use an OpenAI, Anthropic or command provider).
//! struct Canned(Mutex<Vec<&'static str>>);
//!
//! impl Provider for Canned {
//!     fn complete<'a>(&'a self, _request: &'a Request) -> CompletionFuture<'a> {
//!         let text = self.0.lock().unwrap().remove(0);
//!         Box::pin(async move {
//!             Ok(Response {
//!                 text: text.into(), finish_reason: FinishReason::Stop, usage: Usage::new(20, 10),
//!                 model: "canned".into(), latency: Default::default(), transport_retries: 0, raw: String::new(), notices: vec![],
//!             })
//!         })
//!     }
//!     fn capabilities(&self) -> Capabilities { Capabilities { json_schema: true, ..Default::default() } }
//!     fn name(&self) -> &str { "canned" }
//! }
//!
//! let provider = Canned(Mutex::new(vec![
//!     r#"{"name": "Ada"}"#,                            // missing "age": fed back, asked again
//!     "Sure! ```json\n{\"name\": \"Ada\", \"age\": 36,}\n```", // repaired: fence and trailing comma
//! ]));
//! let task = Task::new("Who wrote the first program? Answer as {name, age}.")
//!     .schema(json!({"type": "object", "required": ["name", "age"]}))?;
//! let engine = Engine::new(provider).feedback(FeedbackMode::Append);
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let outcome = runtime.block_on(engine.run(&task));
//! let Outcome::Valid { value, repairs, ledger, .. } = outcome else { panic!("{outcome:?}") };
//! assert_eq!(value, json!({"name": "Ada", "age": 36}));
//! assert!(repairs.iter().any(|r| r.code == "json.trailing_comma"));
//! assert_eq!(ledger.totals.attempts, 2);
//! assert_eq!(ledger.attempts[0].feedback.as_deref(), Some(
//!     "Your previous answer did not pass validation. Fix these problems and answer again with \
//!      the complete corrected JSON only:\n- missing required field \"age\""));
//! # Ok::<(), rectify_check::ConfigError>(())
//! ```

mod budget;
mod config;
mod engine;
mod evaluate;
mod events;
mod feedback;
mod memory;
mod outcome;
pub mod retry;
mod stream;
mod task;
mod verdict;

use rectify_check::ConfigError;
use rectify_provider::Provider;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use config::{Budget, FeedbackLimits, FeedbackMode, LoopConfig};
pub use engine::{Engine, Rung};
pub use evaluate::{REFUSED, TRUNCATED, ending, finish_problem};
pub use events::{Event, EventKind, EventSink, JsonLinesSink};
pub use feedback::{Feedback, issue_line};
pub use memory::{ErrorMemory, Remembered};
pub use outcome::{Attempt, Candidate, Escalation, Ledger, Limit, Outcome, Totals};
pub use stream::{StreamEvent, StreamEvents, Streaming, why_stopped};
pub use task::{Task, ValidatorFn};
pub use verdict::{parse_verdict, verdict_diagnostics};

/// Runs `task` against `provider` with the default settings (3 attempts, `append` feedback).
pub async fn validate_with_retry(provider: impl Provider + 'static, task: &Task) -> Outcome<Value> {
    Engine::new(provider).run(task).await
}

/// Runs `task` and deserializes the answer into `T`, whose JSON Schema (from `schemars`)
/// replaces the task's. Fails only when the type's schema cannot be compiled.
pub async fn validate_with_retry_typed<T>(
    provider: impl Provider + 'static,
    task: Task,
) -> Result<Outcome<T>, ConfigError>
where
    T: DeserializeOwned + JsonSchema + 'static,
{
    let task = task.schema_of::<T>()?;
    Ok(Engine::new(provider).run_typed(&task).await)
}
