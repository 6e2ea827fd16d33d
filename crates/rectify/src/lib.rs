//! rectify validates, repairs and retries the structured output of language models and agents.
//!
//! This facade re-exports the pieces a program needs:
//!
//! - reading text into a [`Document`] with source spans ([`parse`]),
//! - deterministic extraction and repair of model output ([`repair`]),
//! - checks that produce [`Diagnostic`]s: JSON Schema, Rust types, rules files ([`check`]),
//! - the validate → repair → feedback → retry loop over any model provider ([`engine`],
//!   [`provider`]).
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

pub use rectify_check as check;
pub use rectify_check::{check_as, check_value_as};
pub use rectify_core::{
    Applicability, Diagnostic, Document, Finding, FindingLevel, Format, Location, Repair, Report,
    Severity, Span, Verdict,
};
pub use rectify_loop as engine;
pub use rectify_loop::{Engine, Outcome, Task, validate_with_retry, validate_with_retry_typed};
pub use rectify_parse as parse;
pub use rectify_provider as provider;
pub use rectify_repair as repair;

/// Reads `text` as `format` with the default limits.
pub fn read_str(text: &str, format: Format) -> parse::Parsed {
    parse::read(text.to_owned(), format, &parse::Limits::default())
}
