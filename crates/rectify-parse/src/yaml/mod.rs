//! YAML 1.2 reader with spans and limits, built on `saphyr-parser`'s event stream.
//!
//! What comes out, and what is reported:
//! - **Values**: mappings become objects in source key order, sequences arrays, scalars are
//!   resolved by the YAML 1.2 core schema (`yaml/scalar.rs` lists the rules and tags). Numbers keep
//!   their source text when it is valid JSON number text (arbitrary precision, no rounding) and
//!   are otherwise rewritten exactly (`0x1F` → `31`, `+.5` → `0.5`). `.inf` and `.nan` have no
//!   JSON equivalent: they stay strings with a `yaml.non_finite` warning. Keys that are not
//!   strings become their source text (`1: a` → `"1"`); a collection used as a key becomes its
//!   JSON text (its source text when the JSON would be more than four times longer, as nested
//!   collection keys make it) with a `yaml.complex_key` warning.
//!   YAML 1.1 merge keys (`<<: *base`) are not part of YAML 1.2 and stay ordinary keys.
//! - **Spans**: every value (including mapping values, under their key) has a byte range in
//!   the source; saphyr counts characters and `yaml/offsets.rs` converts. A value reached through an
//!   alias is located at the alias.
//! - **Anchors and aliases** are expanded; the expansion is bounded by
//!   `Limits::max_alias_nodes` nodes and `Limits::max_bytes` bytes over the whole document
//!   (`yaml/anchors.rs`), past which the read is refused with `yaml.alias_limit`. An alias inside the
//!   node it names is `yaml.recursive_alias`.
//! - **Duplicate keys** are errors (`yaml.duplicate_key`, pointing at the second key); the
//!   document is still produced with the last value.
//! - **Depth** beyond `Limits::max_depth` (aliases included) is `parse.depth`; the tree is
//!   built with an explicit stack, so no input can overflow the call stack while reading.
//!   saphyr itself refuses more than 255 nested flow collections (also `parse.depth`). Keep
//!   `max_depth` in the hundreds: `serde_json::Value` is dropped and compared recursively.
//! - **Syntax errors** are `parse.syntax` with line and column (saphyr's message).
//! - **Several documents** in one stream: the first is read and a `yaml.multi_document`
//!   warning points at the start of the second; later documents are not parsed.
//!
//! Fatal problems (syntax, depth, alias limit, recursive alias) leave no document.

mod anchors;
mod builder;
mod frame;
mod number;
mod offsets;
mod problem;
mod scalar;

use std::panic::{AssertUnwindSafe, catch_unwind};

use rectify_core::{Document, Format, SpanMap};
use serde_json::Value;

pub(crate) use problem::{Problem, Problems};

use crate::{Limits, Parsed};

/// Reads `text` as one YAML document (the first of the stream).
///
/// ```
/// use rectify_parse::{yaml, Limits};
///
/// let parsed = yaml::read("name: é\ncount: 0x10\n".to_owned(), &Limits::default());
/// let doc = parsed.document.unwrap();
/// assert_eq!(doc.value, serde_json::json!({"name": "é", "count": 16}));
/// let span = doc.locate("/count").span.unwrap();
/// assert_eq!((span.line, span.column, span.start), (2, 8, 16));
/// ```
pub fn read(text: String, limits: &Limits) -> Parsed {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let fragment = read_fragment(&text, start, text.len(), limits);
    fragment.into_parsed(Format::Yaml, text)
}

/// The result of reading YAML that may be part of a larger text (Markdown front matter):
/// spans and problem ranges are byte offsets into the whole text.
#[derive(Debug)]
pub(crate) struct Fragment {
    /// The value, unless a fatal problem stopped the read.
    pub(crate) value: Option<Value>,
    /// Spans of the value.
    pub(crate) spans: SpanMap,
    /// Problems found.
    pub(crate) problems: Problems,
}

impl Fragment {
    /// A read that produced no value.
    pub(crate) fn failed(problems: Problems) -> Fragment {
        Fragment {
            value: None,
            spans: SpanMap::default(),
            problems,
        }
    }

    /// The parsed document of `format` over the whole `text` the fragment came from.
    pub(crate) fn into_parsed(self, format: Format, text: String) -> Parsed {
        let has_value = self.value.is_some();
        let value = self.value.unwrap_or(Value::Null);
        let document = Document::new(format, text, value, self.spans);
        let diagnostics = self.problems.finish(&document);
        Parsed {
            document: has_value.then_some(document),
            diagnostics,
        }
    }
}

/// Reads the YAML in `source[start..end]`; spans are offsets into `source`.
pub(crate) fn read_fragment(source: &str, start: usize, end: usize, limits: &Limits) -> Fragment {
    let Some(fragment) = source.get(start..end) else {
        return failed_at(start, "the YAML text is not on character boundaries");
    };
    let run = || builder::Builder::new(source, fragment, start, limits).run();
    // saphyr-parser has a few internal `unwrap`s; should one ever fire, the input is reported
    // as unreadable instead of taking the caller down.
    catch_unwind(AssertUnwindSafe(run))
        .unwrap_or_else(|_| failed_at(start, "invalid YAML: the parser could not read this text"))
}

fn failed_at(at: usize, message: &str) -> Fragment {
    let mut problems = Problems::default();
    problems.push_always(Problem::error("parse.syntax", "", (at, at), message));
    Fragment::failed(problems)
}
