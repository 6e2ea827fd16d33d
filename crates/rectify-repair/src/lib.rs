//! Extraction of structured payloads from model text and deterministic, recorded repair.
//!
//! [`repair`] takes what a model wrote — JSON wrapped in prose or code fences, with trailing
//! commas, single or curly quotes, comments, Python literals, missing brackets or cut off
//! mid-value — and returns the value it meant, every [`Repair`](rectify_core::Repair) it
//! applied (stable code, location, before/after, applicability) and diagnostics for what it
//! could not or was not allowed to fix.
//!
//! Valid JSON takes a fast path (a strict parse, nothing else). Everything else goes through
//! one linear, depth-capped pass of a lenient parser. Safe repairs apply by default; unsafe
//! ones (that may change meaning) only with [`RepairOptions::allow_unsafe`]; with
//! [`RepairOptions::strict`] any needed repair is an error.
//!
//! ```
//! use rectify_repair::{repair, RepairOptions};
//!
//! let out = repair("Sure! ```json\n{'name': 'Ada', tags: ['x',],}\n```", &RepairOptions::default());
//! assert_eq!(out.to_json().unwrap(), r#"{"name":"Ada","tags":["x"]}"#);
//! let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
//! assert!(codes.contains(&"json.single_quotes") && codes.contains(&"json.trailing_comma"));
//!
//! // Guessing whether a comma belongs to unquoted text may change meaning: unsafe, off by
//! // default.
//! let text = r#"{"city": New York, NY, "zip": 10001}"#;
//! assert!(repair(text, &RepairOptions::default()).value.is_none());
//! let out = repair(text, &RepairOptions::default().with_unsafe(true));
//! assert_eq!(out.value.unwrap()["city"], "New York, NY");
//! ```
//!
//! With a schema, values are coerced towards it (each change recorded too) and a value that
//! still does not fit gets `repair.schema_mismatch` errors; [`Repaired::into_report`] gives the
//! shared [`Report`](rectify_core::Report):
//!
//! ```
//! use rectify_repair::{repair, RepairOptions};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {
//!         "count": {"type": "integer"},
//!         "status": {"enum": ["todo", "in_progress", "done"]},
//!         "tags": {"type": "array", "items": {"type": "string"}}
//!     },
//!     "required": ["count"]
//! });
//! let text = r#"{"count": "3", "status": "In Progress", "tags": "urgent"}"#;
//! let out = repair(text, &RepairOptions::default().with_schema(schema));
//! assert_eq!(
//!     out.value.as_ref().unwrap(),
//!     &json!({"count": 3, "status": "in_progress", "tags": ["urgent"]})
//! );
//! let report = out.into_report();
//! assert!(report.valid);
//! assert_eq!(report.repairs[0].code, "coerce.string_to_number");
//! assert_eq!(report.repairs[0].location.pointer, "/count");
//! ```

mod coerce;
mod compiled;
mod cover;
mod engine;
mod extract;
mod locate;
mod log;
mod markdown_fence;
mod number;
mod options;
mod parser;
mod policy;
mod repaired;
mod rules;
mod select;
mod strict;
mod text;
mod unfenced;
mod work;
mod yaml;
mod yaml_edit;
mod yaml_write;

#[cfg(test)]
mod linear;

pub use markdown_fence::{UnwrappedMarkdown, unwrap_markdown};
pub use options::RepairOptions;
pub use repaired::{Repaired, RepairedText, Repairs};
pub use rules::RepairRule;

/// Repairs `text` into a value. Never fails: problems are diagnostics in the result.
pub fn repair(text: &str, options: &RepairOptions) -> Repaired {
    engine::run(text, options)
}

/// How [`repair_to_json_as`] and [`repair_bytes_to_json`] lay out the JSON text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JsonStyle {
    /// No whitespace, as `serde_json::to_string`.
    #[default]
    Compact,
    /// Indented by two spaces, as `serde_json::to_string_pretty`.
    Pretty,
}

/// Repairs `text` straight into compact JSON text, without building a `serde_json::Value`.
///
/// The result is exactly `repair(text, options).to_json()`, with the same repairs and
/// diagnostics; it is several times faster on large broken documents. The repairs are kept
/// compact and built into [`Repair`](rectify_core::Repair)s when first read (see
/// [`Repairs`]). Repairs that restructure a value after reading it (several candidates, a
/// repeated key, members after an early `}`, a set-like object, `["key": v]`) edit the end
/// of the text written so far. A text with a schema, in strict mode or read as YAML, an
/// escaped document (`{\"a\": 1}`), an object of more than 256 members and a few rare
/// shapes take the value path.
///
/// ```
/// use rectify_repair::{repair_to_json, RepairOptions};
///
/// let out = repair_to_json("{'name': 'Ada', tags: ['x',],}", &RepairOptions::default());
/// assert_eq!(out.json.as_deref(), Some(r#"{"name":"Ada","tags":["x"]}"#));
/// let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
/// assert!(codes.contains(&"json.unquoted_key") && codes.contains(&"json.trailing_comma"));
/// ```
pub fn repair_to_json(text: &str, options: &RepairOptions) -> RepairedText {
    text::run(text, options, false)
}

/// [`repair_to_json`] with the layout chosen: the pretty form is exactly
/// `repair(text, options).to_json_pretty()`.
pub fn repair_to_json_as(text: &str, options: &RepairOptions, style: JsonStyle) -> RepairedText {
    text::run(text, options, style == JsonStyle::Pretty)
}

/// [`repair_to_json_as`] for raw bytes, as [`repair_bytes`] reads them.
pub fn repair_bytes_to_json(
    bytes: &[u8],
    options: &RepairOptions,
    style: JsonStyle,
) -> RepairedText {
    match std::str::from_utf8(bytes) {
        Ok(text) => repair_to_json_as(text, options, style),
        Err(err) => {
            let text = String::from_utf8_lossy(bytes);
            let mut out = repair_to_json_as(&text, options, style);
            let (repair, refused) = engine::invalid_utf8(&text, bytes, err.valid_up_to(), options);
            out.repairs.insert_first(repair);
            if let Some(refused) = refused {
                out.diagnostics.insert(0, refused);
                out.json = None;
            }
            out
        }
    }
}

/// Hooks for tests and fuzzing; not a stable API.
#[doc(hidden)]
pub mod testing;

/// Repairs raw bytes. Bytes that are not UTF-8 are replaced with U+FFFD, which is recorded as
/// the unsafe repair `text.invalid_utf8` (so, by default, they are an error that says where).
pub fn repair_bytes(bytes: &[u8], options: &RepairOptions) -> Repaired {
    match std::str::from_utf8(bytes) {
        Ok(text) => repair(text, options),
        Err(err) => engine::run_lossy(bytes, err.valid_up_to(), options),
    }
}
