//! The JSON wire formats: what `rectify … --output json` prints, and what the Python,
//! TypeScript and MCP front ends return. One definition for all of them, described by the
//! JSON Schemas in `docs/output/` (`docs/output.md`).
//!
//! Each type borrows from the result it describes and is meant to be serialised
//! (`serde_json::to_string(&CheckWire::new(..))`). They are not serialisations of the
//! library's own types: those may change, these may not.
//!
//! - [`DiagnosticWire`]: one diagnostic, its location flattened (every format uses it);
//! - [`CheckWire`] (`rectify check`) and [`RepairWire`] (`rectify repair`);
//! - [`AskWire`] (`rectify ask`, feature `engine`) and [`AskEventWire`] (one line of
//!   `rectify ask --stream`);
//! - [`RunWire`] (`run`, `resume`, `status RUN`), [`RunListWire`] (`status`),
//!   [`DryRunWire`] (`run --dry-run`) and [`ReportWire`] (`report`), feature `workflow`.
//!
//! ```
//! let schema = serde_json::json!({
//!     "type": "object",
//!     "properties": {"total": {"type": "number"}},
//!     "required": ["total"]
//! });
//! let judgement = rectify::validate("{\"total\": \"twelve\",}", &schema).unwrap();
//! let wire = serde_json::to_value(rectify::wire::CheckWire::from_judgement(&judgement)).unwrap();
//! assert_eq!(wire["valid"], false);
//! let d = &wire["diagnostics"][0];
//! assert_eq!((d["code"].as_str(), d["path"].as_str()), (Some("schema.type"), Some("total")));
//! assert_eq!((d["expected"].as_str(), d["received"].as_str()), (Some("number"), Some("\"twelve\"")));
//! assert_eq!(wire["repairs"][0]["code"], "json.trailing_comma");
//! ```

#[cfg(feature = "engine")]
mod ask;
#[cfg(feature = "engine")]
mod ask_stream;
mod check;
mod diagnostic;
#[cfg(feature = "workflow")]
mod report;
#[cfg(feature = "workflow")]
mod run;
#[cfg(feature = "workflow")]
mod runs;

#[cfg(feature = "engine")]
pub use ask::AskWire;
#[cfg(feature = "engine")]
pub use ask_stream::{AbortWire, AskEventWire, AttemptEndWire, PartialWire};
pub use check::{CheckWire, RepairWire};
pub use diagnostic::DiagnosticWire;
#[cfg(feature = "workflow")]
pub use report::{
    CallOutcomePart, CallPart, EventPart, LinkPart, ReportWire, RunPart, StepPart, TotalsPart,
    WaitPart, report,
};
#[cfg(feature = "workflow")]
pub use run::{BEST_JSON_LIMIT, RunWire, continue_commands};
#[cfg(feature = "workflow")]
pub use runs::{DryRunWire, RunListWire};
