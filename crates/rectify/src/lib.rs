//! rectify validates, repairs and retries the structured output of language models and agents.
//!
//! The front door is a [`Client`]: one call that asks a model, repairs and checks its answer,
//! feeds the problems back and asks again, and returns your type or an [`Error`] that says
//! why there is none:
//!
//! ```no_run
//! # async fn demo() -> Result<(), rectify::Error> {
//! #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
//! struct Invoice { number: String, total: f64 }
//!
//! let invoice: Invoice = rectify::Client::from_env()?
//!     .extract("Invoice INV-7 comes to 12.50 EUR.")
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! [`Client::from_env`] picks the provider as the `rectify` command does (`RECTIFY_PROVIDER`,
//! else `OPENAI_*`, else `ANTHROPIC_API_KEY`, else the embedded model with the `local`
//! feature). Any model can stand behind it: [`provider::from_fn`] turns your own async
//! function (your client, your agent) into a provider that receives each request with its
//! feedback. [`blocking::Client`] is the same for programs without an async runtime, and
//! [`Client::run`] returns the whole [`Outcome`] with its attempt ledger.
//!
//! Without the default features (`rectify = { default-features = false }`) only checking
//! and repair remain, with no async runtime, HTTP client or llama.cpp:
//!
//! - reading text into a [`Document`] with source spans ([`parse`]),
//! - deterministic extraction and repair of model output ([`repair`]),
//! - checks that produce [`Diagnostic`]s: JSON Schema, Rust types, rules files ([`check`]).
//!
//! Checking a model's answer against a Rust type, the Zod-like entry point:
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Debug, Deserialize, JsonSchema)]
//! struct Task {
//!     id: String,
//!     #[serde(rename = "phaseId")]
//!     phase_id: String,
//! }
//!
//! let doc = rectify::read_str("{\"id\": \"T1\", \"phaseId\": 3}", rectify::Format::Json)
//!     .document
//!     .unwrap();
//! let typed = rectify::check_as::<Task>(&doc);
//! assert!(!typed.is_valid());
//! let d = &typed.diagnostics[0];
//! assert_eq!(d.location.path, "phaseId");
//! assert_eq!(d.location.span.unwrap().line, 1);
//! ```
//!
//! Features: `openai`, `anthropic`, `command`, `replay` (on by default, each a provider
//! backend, each turning on `engine`); `engine` (the loop, [`Client`], [`blocking`],
//! function providers; brings tokio); `local` (the embedded model, off by default);
//! `workflow` ([`flow`]: workflows, their store, resume and reports); `restate` (workflows on
//! Restate).

#[cfg(feature = "engine")]
pub mod blocking;
#[cfg(feature = "engine")]
mod build;
mod check_file;
#[cfg(feature = "engine")]
mod client;
#[cfg(feature = "engine")]
mod error;
pub mod setup;
#[cfg(feature = "engine")]
pub mod stream;
pub mod wire;

pub use check_file::{FileCheck, check_file};
pub use rectify_check as check;
pub use rectify_check::{check_as, check_value_as};
pub use rectify_core::{
    Applicability, Diagnostic, Document, Finding, FindingLevel, Format, Location, Repair, Report,
    Severity, Span, SpanMap, Verdict,
};
pub use rectify_judge::{
    Ending, Judgement, Reading, RepairPolicy, Schema, Validator, ValidatorBuilder, ValueCheck,
    validate,
};
pub use rectify_parse as parse;
pub use rectify_repair as repair;

#[cfg(feature = "engine")]
pub use build::{LocalOptions, provider_from_spec, provider_from_spec_with};
#[cfg(feature = "engine")]
pub use client::{Client, Prompt};
#[cfg(feature = "engine")]
pub use error::{Error, Exhausted, FailureClass, failure_of};
#[cfg(feature = "workflow")]
pub use rectify_flow as flow;
#[cfg(feature = "local")]
pub use rectify_local as local;
#[cfg(feature = "engine")]
pub use rectify_loop as engine;
#[cfg(feature = "engine")]
pub use rectify_loop::{
    Budget, Engine, FeedbackMode, Ledger, Outcome, Task, validate_with_retry,
    validate_with_retry_typed,
};
#[cfg(feature = "engine")]
pub use rectify_provider as provider;
#[cfg(feature = "engine")]
pub use rectify_provider::spec::{ProviderKind, ProviderSpec};
#[cfg(feature = "engine")]
pub use rectify_provider::{Message, Provider};
#[cfg(feature = "restate")]
pub use rectify_restate as restate;

/// Reads `text` as `format` with the default limits.
pub fn read_str(text: &str, format: Format) -> parse::Parsed {
    parse::read(text.to_owned(), format, &parse::Limits::default())
}
