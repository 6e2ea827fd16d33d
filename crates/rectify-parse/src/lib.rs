//! Readers that turn text into a [`Document`]: a value plus a map from JSON Pointer to source
//! span, so that every diagnostic can point at a line and column.
//!
//! Reading never fails with `Err` on bad content: syntax errors, encoding errors, documents
//! nested too deep and YAML alias bombs come back as [`Diagnostic`]s in [`Parsed`].
//!
//! ```
//! use rectify_core::Format;
//! use rectify_parse::{read, Limits};
//!
//! let parsed = read("{\"tasks\": [{\"id\": 1}]}".to_owned(), Format::Json, &Limits::default());
//! let doc = parsed.document.unwrap();
//! assert_eq!(doc.locate("/tasks/0/id").span.unwrap().column, 19);
//! ```

mod file;
pub mod json;
mod limits;
pub mod markdown;
pub mod yaml;

pub use file::{ReadError, detect_format, read_file, read_file_bytes};
pub use limits::Limits;
use rectify_core::{Diagnostic, Document, Format, Location, SpanMap};

/// The outcome of reading a document: the document if one could be read, and what was found
/// on the way (errors such as syntax errors, or problems such as duplicate keys that still
/// leave a document).
#[derive(Debug, Default)]
pub struct Parsed {
    /// The document, unless the text could not be read at all.
    pub document: Option<Document>,
    /// Problems found while reading.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// A failed read with one diagnostic.
    pub fn failed(diagnostic: Diagnostic) -> Parsed {
        Parsed {
            document: None,
            diagnostics: vec![diagnostic],
        }
    }

    /// A successful read with no diagnostics.
    pub fn ok(document: Document) -> Parsed {
        Parsed {
            document: Some(document),
            diagnostics: Vec::new(),
        }
    }
}

/// Reads `text` as `format`.
pub fn read(text: String, format: Format, limits: &Limits) -> Parsed {
    if text.len() > limits.max_bytes {
        return Parsed::failed(too_large(text.len(), limits));
    }
    if text.trim().is_empty() && format != Format::Text {
        return Parsed::failed(
            Diagnostic::error("parse.empty", Location::root(), "the document is empty")
                .expected(format!("a {format} document"))
                .source("parse"),
        );
    }
    match format {
        Format::Json => json::read(text, limits),
        Format::Yaml => yaml::read(text, limits),
        Format::Markdown => markdown::read(text, limits),
        Format::Text => {
            let value = serde_json::Value::String(text.clone());
            Parsed::ok(Document::new(Format::Text, text, value, SpanMap::default()))
        }
    }
}

/// Reads raw bytes: invalid UTF-8 is a `parse.encoding` diagnostic that says where.
pub fn read_bytes(bytes: Vec<u8>, format: Format, limits: &Limits) -> Parsed {
    match String::from_utf8(bytes) {
        Ok(text) => read(text, format, limits),
        Err(err) => Parsed::failed(encoding_error(err.as_bytes(), err.utf8_error())),
    }
}

fn encoding_error(bytes: &[u8], err: std::str::Utf8Error) -> Diagnostic {
    let at = err.valid_up_to();
    let valid = String::from_utf8_lossy(&bytes[..at]).into_owned();
    let line = valid.matches('\n').count() + 1;
    let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let span = rectify_core::Span {
        start: at,
        end: at + 1,
        line,
        column,
    };
    Diagnostic::error(
        "parse.encoding",
        Location::from_span(span),
        format!(
            "the document is not valid UTF-8 (invalid byte 0x{:02x})",
            bytes[at]
        ),
    )
    .expected("UTF-8 text")
    .source("parse")
}

fn too_large(len: usize, limits: &Limits) -> Diagnostic {
    Diagnostic::error(
        "parse.too_large",
        Location::root(),
        format!(
            "the document is {len} bytes, more than the limit of {} bytes",
            limits.max_bytes
        ),
    )
    .source("parse")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_says_where() {
        let parsed = read_bytes(
            b"{\"a\":\n \"\xff\"}".to_vec(),
            Format::Json,
            &Limits::default(),
        );
        let d = &parsed.diagnostics[0];
        assert_eq!(d.code, "parse.encoding");
        let span = d.location.span.unwrap();
        assert_eq!((span.line, span.column, span.start), (2, 3, 8));
        assert!(d.message.contains("0xff"));
    }

    #[test]
    fn empty_and_too_large() {
        let parsed = read("  \n".into(), Format::Yaml, &Limits::default());
        assert_eq!(parsed.diagnostics[0].code, "parse.empty");
        let limits = Limits {
            max_bytes: 3,
            ..Limits::default()
        };
        assert_eq!(
            read("[1,2]".into(), Format::Json, &limits).diagnostics[0].code,
            "parse.too_large"
        );
    }

    #[test]
    fn text_is_a_string_value() {
        let doc = read("hello".into(), Format::Text, &Limits::default())
            .document
            .unwrap();
        assert_eq!(doc.value, serde_json::json!("hello"));
    }
}
