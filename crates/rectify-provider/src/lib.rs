//! The [`Provider`] trait, transport retry and the model backends.
//!
//! A provider turns a [`Request`] (messages, optional JSON Schema, limits) into a [`Response`]
//! (text, finish reason, usage, latency, transport retries). Transport failures are retried
//! inside the provider by the [`retry`] layer and surface only as a [`ProviderError`] once its
//! budget is spent; bad answers (cut short, refused, not JSON) are responses for the loop to
//! judge.
//!
//! Backends, each behind a cargo feature (all on by default): [`openai`] (OpenAI-compatible
//! chat completions), [`anthropic`] (Messages API), [`command`] (any command-line agent) and
//! [`replay`] (cassettes, and recording them).
//!
//! ```
//! use rectify_provider::{
//!     Capabilities, CompletionFuture, FinishReason, Provider, Request, Response, Usage,
//! };
//! use std::time::Duration;
//!
//! /// A provider that answers with the last message, upper-cased.
//! struct Shout;
//!
//! impl Provider for Shout {
//!     fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
//!         Box::pin(async move {
//!             let last = request.messages.last().map(|m| m.content.to_uppercase());
//!             Ok(Response {
//!                 text: last.unwrap_or_default(),
//!                 finish_reason: FinishReason::Stop,
//!                 usage: Usage::default(),
//!                 model: "shout".into(),
//!                 latency: Duration::ZERO,
//!                 transport_retries: 0,
//!                 raw: String::new(),
//!                 notices: Vec::new(),
//!             })
//!         })
//!     }
//!     fn capabilities(&self) -> Capabilities { Capabilities::default() }
//!     fn name(&self) -> &str { "shout" }
//! }
//!
//! let provider: Box<dyn Provider> = Box::new(Shout);
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let response = runtime.block_on(provider.complete(&Request::new("hi"))).unwrap();
//! assert_eq!(response.text, "HI");
//! ```

mod capabilities;
mod error;
mod function;
mod pricing;
mod provider;
mod request;
mod response;
pub mod retry;
mod secret;
pub mod spec;
mod structured;
mod utf8;

#[cfg(feature = "http")]
mod http;

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "command")]
pub mod command;
#[cfg(feature = "openai")]
pub mod openai;
#[cfg(feature = "replay")]
pub mod replay;

/// Hooks for fuzzing; not a stable API.
#[cfg(all(feature = "openai", feature = "anthropic", feature = "command"))]
#[doc(hidden)]
pub mod fuzzing;

pub use capabilities::Capabilities;
pub use error::{ErrorKind, ProviderError, is_retryable_status};
pub use function::{FnProvider, from_fn};
#[cfg(feature = "http")]
pub use http::HttpOptions;
pub use pricing::{ModelPrice, Pricing};
pub use provider::{
    BROKEN, BoxFuture, CompletionFuture, Provider, STOPPED, StreamSink, hand_over_whole,
};
pub use request::{Message, Request, Role};
pub use response::{FinishReason, Response, Usage};
#[cfg(all(target_os = "linux", feature = "command"))]
pub use secret::hide_environment;
pub use secret::{
    ApiKey, Redactor, SECRET_ENV_VARIABLE, SECRET_VARIABLES, redact_secret, redact_secrets,
    secret_variables,
};
pub use structured::StructuredOutput;
pub use utf8::Utf8Joiner;
