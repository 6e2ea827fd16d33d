//! Shared vocabulary of rectify.
//!
//! Every other crate speaks in these types: a [`Document`] read from text with a [`SpanMap`]
//! from JSON Pointer to source span, a [`Location`] inside it, [`Diagnostic`]s produced by checks,
//! [`Repair`]s applied by the lenient parser, the [`Report`] that bundles them and the
//! [`Verdict`] of a validator agent. This crate has no I/O and no async.
//!
//! ```
//! use rectify_core::{Diagnostic, Location, Report};
//!
//! let loc = Location::from_pointer("/tasks/0/phaseId");
//! assert_eq!(loc.path, "tasks[0].phaseId");
//! let diag = Diagnostic::error("rule.ref", loc, "unknown phase").received("\"phase-9\"");
//! let report = Report::new(None, vec![diag], vec![]);
//! assert!(!report.valid);
//! ```

mod diagnostic;
mod document;
mod format;
mod location;
mod repair;
mod report;
mod spans;
mod verdict;

pub use diagnostic::{Diagnostic, Severity, truncate_received};
pub use document::{Document, Section};
pub use format::Format;
pub use location::{
    Location, Seg, Span, pointer_of, pointer_segments, pointer_to_path, push_pointer,
};
pub use repair::{Applicability, Repair};
pub use report::Report;
pub use spans::{Key, NodeId, SpanMap, SpanMapBuilder};
pub use verdict::{Finding, FindingLevel, Verdict};
