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
    lines: OnceLock<Lines>,
}

/// Where lines start, and column marks inside long lines, so that locating a value costs
/// O(log n + 4 KiB) and not a count from the start of a line that may be the whole document.
#[derive(Debug, Default)]
struct Lines {
    starts: Vec<usize>,
    /// `(byte, column)` every [`MARK_EVERY`] bytes inside lines longer than that, in order.
    marks: Vec<(usize, usize)>,
}

/// Bytes between two column marks of a long line.
const MARK_EVERY: usize = 4096;

impl Lines {
    fn new(text: &str) -> Lines {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut marks = Vec::new();
        for (i, &a) in starts.iter().enumerate() {
            let b = starts.get(i + 1).copied().unwrap_or(text.len());
            if b - a > MARK_EVERY {
                long_line_marks(text, a, b, &mut marks);
            }
        }
        Lines { starts, marks }
    }
}

fn long_line_marks(text: &str, a: usize, b: usize, marks: &mut Vec<(usize, usize)>) {
    let Some(line) = text.get(a..b) else { return };
    let mut next = MARK_EVERY;
    for (column, (i, _)) in line.char_indices().enumerate() {
        if i >= next {
            marks.push((a + i, column + 1));
            next = i + MARK_EVERY;
        }
    }
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
            lines: OnceLock::new(),
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
        let lines = self.lines.get_or_init(|| Lines::new(&self.source));
        let line = lines.starts.partition_point(|&s| s <= start).max(1);
        let line_start = lines.starts[line - 1];
        // Count from the last mark of this line before `start`, else from the line's start.
        let m = lines.marks.partition_point(|&(b, _)| b <= start);
        let (from, base) = match m.checked_sub(1).map(|i| lines.marks[i]) {
            Some((b, c)) if b >= line_start => (b, c),
            _ => (line_start, 1),
        };
        let column = self
            .source
            .get(from..start)
            .map_or(1, |s| s.chars().count() + base);
        Span {
            start,
            end,
            line,
            column,
        }
    }

    /// The text of 1-based line `line`, without its line ending.
    pub fn line_text(&self, line: usize) -> &str {
        let starts = &self.lines.get_or_init(|| Lines::new(&self.source)).starts;
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

    /// Columns on a long line (marks every 4 KiB) are the count of characters before them.
    #[test]
    fn columns_on_long_lines_count_characters() {
        let text = format!("x\n{}", "aé€😀".repeat(5_000));
        let doc = Document::new(Format::Text, text.clone(), Value::Null, SpanMap::default());
        for (column, (i, _)) in text[2..].char_indices().enumerate().step_by(997) {
            let s = doc.span(2 + i, 2 + i);
            assert_eq!((s.line, s.column), (2, column + 1), "at byte {}", 2 + i);
        }
        let end = doc.span(text.len(), text.len());
        assert_eq!(end.column, 20_001);
    }
}
