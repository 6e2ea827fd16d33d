//! Strict JSON (RFC 8259) with spans.
//!
//! The value comes from `serde_json` (numbers keep their exact source text, object key order
//! is preserved, nesting is capped at 128); a second, allocation-light scan of the now known to
//! be valid text records where every value is.

use rectify_core::{Diagnostic, Document, Format, Key, Location, Span, SpanMap, SpanMapBuilder};
use serde_json::Value;

use crate::{Limits, Parsed};

/// Reads `text` as one JSON document.
pub fn read(text: String, _limits: &Limits) -> Parsed {
    let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[offset..];
    match serde_json::from_str::<Value>(body) {
        Ok(value) => {
            let spans = scan_spans(&text, offset);
            Parsed::ok(Document::new(Format::Json, text, value, spans))
        }
        Err(err) => Parsed::failed(syntax_error(&text, offset, &err)),
    }
}

fn syntax_error(text: &str, offset: usize, err: &serde_json::Error) -> Diagnostic {
    let full = err.to_string();
    let message = full
        .rfind(" at line ")
        .map_or(full.as_str(), |cut| &full[..cut]);
    let start = byte_offset(&text[offset..], err.line(), err.column()) + offset;
    let doc = Document::new(
        Format::Json,
        text.to_owned(),
        Value::Null,
        SpanMap::default(),
    );
    let span: Span = doc.span(start, (start + 1).min(text.len()));
    let (code, message) = if message.contains("recursion limit") {
        (
            "parse.depth",
            "the document is nested more than 128 levels deep".to_owned(),
        )
    } else {
        ("parse.syntax", format!("invalid JSON: {message}"))
    };
    Diagnostic::error(code, Location::from_span(span), message).source("parse")
}

/// Byte offset of serde_json's 1-based line and column (column counts bytes; 0 means the
/// line break before the line).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    builder: SpanMapBuilder,
    stack: Vec<(rectify_core::NodeId, bool)>,
}

/// Records the span of every value of valid JSON text, without recursion.
fn scan_spans(text: &str, offset: usize) -> SpanMap {
    let mut s = Scanner {
        bytes: text.as_bytes(),
        pos: offset,
        builder: SpanMapBuilder::with_capacity(text.len() / 16),
        stack: Vec::new(),
    };
    s.run();
    s.builder.finish()
}

impl Scanner<'_> {
    fn peek(&self) -> u8 {
        self.bytes.get(self.pos).copied().unwrap_or(0)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\n' | b'\r' | b'\t') {
            self.pos += 1;
        }
    }

    fn run(&mut self) {
        let mut key = Key::Index;
        loop {
            self.skip_ws();
            if self.value(key) {
                key = match self.first_key_or_close() {
                    Some(k) => k,
                    None => return,
                };
                continue;
            }
            key = match self.after_value() {
                Some(k) => k,
                None => return,
            };
        }
    }

    /// Reads a scalar or opens a container; true when a container was opened.
    fn value(&mut self, key: Key) -> bool {
        let start = self.pos;
        match self.peek() {
            b'{' | b'[' => {
                let is_object = self.peek() == b'{';
                let id = self.builder.open(key, start);
                self.stack.push((id, is_object));
                self.pos += 1;
                true
            }
            b'"' => {
                self.pos = string_end(self.bytes, start);
                self.builder.leaf(key, start, self.pos);
                false
            }
            _ => {
                while !matches!(
                    self.peek(),
                    b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t' | 0
                ) {
                    self.pos += 1;
                }
                self.builder.leaf(key, start, self.pos);
                false
            }
        }
    }

    /// Just after `{` or `[`: the first member's key, or closes an empty container.
    fn first_key_or_close(&mut self) -> Option<Key> {
        self.skip_ws();
        if matches!(self.peek(), b'}' | b']') {
            return self.after_value();
        }
        Some(self.member_key())
    }

    /// After a value: a comma and the next key, or closing brackets; `None` at the end.
    fn after_value(&mut self) -> Option<Key> {
        loop {
            self.skip_ws();
            match self.peek() {
                b',' => {
                    self.pos += 1;
                    self.skip_ws();
                    return Some(self.member_key());
                }
                b'}' | b']' => {
                    self.pos += 1;
                    let (id, _) = self.stack.pop()?;
                    self.builder.close(id, self.pos);
                    if self.stack.is_empty() {
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }

    fn member_key(&mut self) -> Key {
        if !self.stack.last().is_some_and(|&(_, is_object)| is_object) {
            return Key::Index;
        }
        let start = self.pos;
        self.pos = string_end(self.bytes, start);
        let key = Key::Raw(start + 1, self.pos.saturating_sub(1).max(start + 1));
        self.skip_ws();
        if self.peek() == b':' {
            self.pos += 1;
        }
        key
    }
}

/// Position just past the closing quote of the string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(found) = bytes
        .get(i..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        i += found;
        if bytes.get(i) == Some(&b'\\') {
            i += 2;
        } else {
            return i + 1;
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        read(text.to_owned(), &Limits::default()).document.unwrap()
    }

    #[test]
    fn spans_point_at_values() {
        let text = "{\n  \"tasks\": [\n    {\"id\": \"t1\", \"phaseId\": \"p9\"},\n    {}\n  ],\n  \"e\\\"k\": 1.50\n}";
        let d = doc(text);
        let s = d.locate("/tasks/0/phaseId").span.unwrap();
        assert_eq!((s.line, s.column), (3, 29));
        assert_eq!(&text[s.start..s.end], "\"p9\"");
        let s = d.locate("/tasks/1").span.unwrap();
        assert_eq!(&text[s.start..s.end], "{}");
        let s = d.locate("/e\"k").span.unwrap();
        assert_eq!(&text[s.start..s.end], "1.50");
        assert_eq!(
            d.value["e\"k"].to_string(),
            "1.50",
            "number text kept exactly"
        );
    }

    #[test]
    fn numbers_are_exact() {
        let d = doc("[123456789012345678901234567890, 0.1000000000000000055511151231257827]");
        assert_eq!(d.value[0].to_string(), "123456789012345678901234567890");
        assert_eq!(
            d.value[1].to_string(),
            "0.1000000000000000055511151231257827"
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let parsed = read(
            "{\n  \"a\": 1,\n  \"b\" 2\n}".to_owned(),
            &Limits::default(),
        );
        let d = &parsed.diagnostics[0];
        assert_eq!(d.code, "parse.syntax");
        let s = d.location.span.unwrap();
        assert_eq!((s.line, s.column), (3, 7));
        assert_eq!(d.message, "invalid JSON: expected `:`");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = "[".repeat(100_000) + &"]".repeat(100_000);
        let parsed = read(text, &Limits::default());
        assert_eq!(parsed.diagnostics[0].code, "parse.depth");
        assert!(parsed.document.is_none());
    }

    #[test]
    fn bom_and_scalars() {
        let d = doc("\u{feff} \"x\" ");
        assert_eq!(d.locate("").span.unwrap().start, 4);
        let d = doc("[true, null, -1e5, \"a\\\\\"]");
        let s = d.locate("/3").span.unwrap();
        assert_eq!(&d.source[s.start..s.end], "\"a\\\\\"");
    }
}
