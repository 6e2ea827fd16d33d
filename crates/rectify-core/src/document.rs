use std::sync::OnceLock;

use serde_json::Value;

use crate::{Format, Location, Span, SpanMap};

/// A Markdown section: a heading and the text under it up to the next heading of the same or
/// a higher level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Heading level, 1 to 6.
    pub level: u8,
    /// Heading text as written, including any number such as `Task 3:`.
    pub title: String,
    /// The heading line's span as `(start, end)` byte offsets.
    pub heading: (usize, usize),
    /// The body's span as `(start, end)` byte offsets (may be empty).
    pub body: (usize, usize),
}

/// A document read from text: the value, the source it came from and where each value is.
///
/// For Markdown the value is the front matter (or `null`) and `sections` lists the headings.
#[derive(Debug)]
pub struct Document {
    /// Format the text was read as.
    pub format: Format,
    /// The source text.
    pub source: String,
    /// The value (front matter for Markdown, `null` for plain text).
    pub value: Value,
    /// JSON Pointer → byte range of each value in `source`.
    pub spans: SpanMap,
    /// Markdown sections, in order (empty for other formats).
    pub sections: Vec<Section>,
    line_starts: OnceLock<Vec<usize>>,
}

impl Document {
    /// A document from its parts.
    pub fn new(format: Format, source: String, value: Value, spans: SpanMap) -> Document {
        Document {
            format,
            source,
            value,
            spans,
            sections: Vec::new(),
            line_starts: OnceLock::new(),
        }
    }

    /// A document with no spans, for values that did not come from text.
    pub fn from_value(value: Value) -> Document {
        Document::new(Format::Json, String::new(), value, SpanMap::default())
    }

    /// The same document with Markdown sections.
    pub fn with_sections(mut self, sections: Vec<Section>) -> Document {
        self.sections = sections;
        self
    }

    /// Where `pointer` is: the pointer, its display path and the span of the value (or of its
    /// nearest existing ancestor).
    pub fn locate(&self, pointer: &str) -> Location {
        let span = self
            .spans
            .find_nearest(&self.source, pointer)
            .map(|(s, e)| self.span(s, e));
        Location::from_pointer(pointer).with_span(span)
    }

    /// A [`Span`] with line and column for the byte range `start..end`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let starts = self.line_starts.get_or_init(|| line_starts(&self.source));
        let line = starts.partition_point(|&s| s <= start).max(1);
        let line_start = starts[line - 1];
        let column = self
            .source
            .get(line_start..start)
            .map_or(1, |s| s.chars().count() + 1);
        Span {
            start,
            end,
            line,
            column,
        }
    }

    /// The text of 1-based line `line`, without its line ending.
    pub fn line_text(&self, line: usize) -> &str {
        let starts = self.line_starts.get_or_init(|| line_starts(&self.source));
        let Some(&start) = starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = starts.get(line).map_or(self.source.len(), |&e| e);
        self.source
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let doc = Document::new(
            Format::Text,
            "ab\ncdé\nf".into(),
            Value::Null,
            SpanMap::default(),
        );
        assert_eq!(doc.span(0, 1).line, 1);
        let s = doc.span(8, 9);
        assert_eq!((s.line, s.column), (3, 1));
        let s = doc.span(5, 7);
        assert_eq!((s.line, s.column), (2, 3));
        assert_eq!(doc.line_text(2), "cdé");
        assert_eq!(doc.line_text(9), "");
        assert_eq!(doc.locate("/x").span, None);
    }
}
