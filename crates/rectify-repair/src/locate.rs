//! Line and column of byte offsets, for many offsets at once in linear time.
//!
//! `rectify_core::Document::span` counts the characters from the start of the line for each
//! call, which is quadratic when thousands of repairs sit on one long line; here the offsets
//! are visited in order and the count continues from the previous one.

use rectify_core::Span;

pub(crate) struct Locator<'a> {
    text: &'a str,
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Self {
        Locator { text }
    }

    /// The span of one byte range.
    pub fn span(&self, start: usize, end: usize) -> Span {
        self.spans_by(1, |_| (start, end)).pop().unwrap_or_default()
    }

    /// The spans of the byte ranges `range(0)..range(n)`, in that order. One pass over the
    /// text when the ranges come sorted by start (the usual case); otherwise they are
    /// visited in sorted order.
    pub fn spans_by(&self, n: usize, range: impl Fn(usize) -> (usize, usize)) -> Vec<Span> {
        let sorted = (1..n).all(|i| range(i - 1).0 <= range(i).0);
        let order: Vec<usize> = if sorted {
            Vec::new()
        } else {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| range(i).0);
            order
        };
        let mut out = vec![Span::default(); n];
        let mut cursor = Cursor {
            at: 0,
            line: 1,
            column: 1,
        };
        for k in 0..n {
            let i = order.get(k).copied().unwrap_or(k);
            let (start, end) = range(i);
            let start = self.floor(start);
            cursor.advance(self.text, start);
            out[i] = Span {
                start,
                end: end.max(start),
                line: cursor.line,
                column: cursor.column,
            };
        }
        out
    }

    fn floor(&self, mut at: usize) -> usize {
        at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }
}

/// Line and column of the byte offset `at`, moved forward only.
struct Cursor {
    at: usize,
    line: usize,
    column: usize,
}

impl Cursor {
    fn advance(&mut self, text: &str, to: usize) {
        let Some(gap) = text.get(self.at..to) else {
            return;
        };
        if gap.len() < 256 {
            for &b in gap.as_bytes() {
                if b == b'\n' {
                    self.line += 1;
                    self.column = 1;
                } else if b & 0xC0 != 0x80 {
                    self.column += 1;
                }
            }
            self.at = to;
            return;
        }
        let newlines = memchr::memchr_iter(b'\n', gap.as_bytes()).count();
        if newlines > 0 {
            let last = memchr::memrchr(b'\n', gap.as_bytes()).unwrap_or(0);
            self.line += newlines;
            self.column = 1;
            self.at += last + 1;
        }
        self.column += text.get(self.at..to).map_or(0, |s| s.chars().count());
        self.at = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_match_line_and_character_columns_in_any_order() {
        let text = "ab\ncdé\nf";
        let l = Locator::new(text);
        let ranges = [(8, 9), (0, 1), (5, 7), (7, 8)];
        let spans = l.spans_by(ranges.len(), |i| ranges[i]);
        let got: Vec<(usize, usize)> = spans.iter().map(|s| (s.line, s.column)).collect();
        assert_eq!(got, vec![(3, 1), (1, 1), (2, 3), (2, 4)]);
        assert_eq!(l.span(99, 99).line, 3);
        let sorted = l.spans_by(3, |i| [(0, 1), (4, 4), (8, 9)][i]);
        let got: Vec<(usize, usize)> = sorted.iter().map(|s| (s.line, s.column)).collect();
        assert_eq!(got, vec![(1, 1), (2, 2), (3, 1)]);
    }
}
