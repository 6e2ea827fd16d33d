//! Checks that turn a [`Document`](rectify_core::Document) into
//! [`Diagnostic`](rectify_core::Diagnostic)s: JSON Schema, Rust types, rules files and
//! Markdown structure.
//!
//! Invalid content is data: every check returns diagnostics. `Err` ([`ConfigError`]) only
//! means that a schema, rules file or reference document is itself unusable.

mod error;
pub mod schema;

pub use error::ConfigError;
pub use schema::{CompiledSchema, Draft, SchemaSet};
