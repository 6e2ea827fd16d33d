//! Checks that turn a [`Document`](rectify_core::Document) into
//! [`Diagnostic`](rectify_core::Diagnostic)s:
//!
//! - [`CompiledSchema`] / [`SchemaSet`]: JSON Schema (drafts 4 to 2020-12), compiled once;
//! - [`check_as`]: a Rust type's schema (`schemars`) and then typed deserialization (`serde`);
//! - [`RuleSet`]: the rules file — cross-document references, uniqueness, non-empty values,
//!   Markdown headings and sections, text length — with JSONPath (RFC 9535) selectors;
//! - [`Checker`]: all of the above set up once and run per document.
//!
//! Invalid content is data: every check returns diagnostics with a stable code, a JSON
//! Pointer, a display path and, for documents read from text, a line and column. `Err`
//! ([`ConfigError`]) only means that a schema, rules file or reference document is itself
//! unusable; the CLI maps it to exit code 2.
//!
//! ```
//! use rectify_check::{Checker, CompiledSchema};
//! use rectify_core::Format;
//! use rectify_parse::{read, Limits};
//! use serde_json::json;
//!
//! let schema = CompiledSchema::compile(&json!({
//!     "type": "object",
//!     "properties": {"tasks": {"type": "array", "items": {"required": ["acceptanceCriteria"]}}}
//! }))?;
//! let checker = Checker::builder().schema(schema).build()?;
//! let text = "{\"tasks\": [\n  {\"id\": 1}\n]}".to_owned();
//! let doc = read(text, Format::Json, &Limits::default()).document.unwrap();
//! let diagnostics = checker.check(&doc);
//! let d = &diagnostics[0];
//! assert_eq!(d.code, "schema.required");
//! assert_eq!(d.location.path, "tasks[0].acceptanceCriteria");
//! assert_eq!(d.location.span.unwrap().line, 2);
//! assert_eq!(d.message, "missing required field \"acceptanceCriteria\"");
//! # Ok::<(), rectify_check::ConfigError>(())
//! ```

mod checker;
mod error;
mod files;
pub mod rules;
pub mod schema;
pub mod typed;

pub use checker::{Checker, CheckerBuilder};
pub use error::ConfigError;
pub use rules::{References, Rule, RuleSet};
pub use schema::{CompiledSchema, Draft, RefAccess, SchemaSet};
pub use typed::{Typed, TypedSchema, check_as, check_value_as, deserialize_value, schema_of};
