//! Line and column of byte offsets, for many offsets at once in linear time.
//!
//! `rectify_core::Document::span` counts the characters from the start of the line for each
//! call, which is quadratic when thousands of repairs sit on one long line; here the offsets
//! are visited in order and the count continues from the previous one.

use rectify_core::Span;

pub(crate) struct Locator<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Locator { text, line_starts }
    }

    /// The span of one byte range.
    pub fn span(&self, start: usize, end: usize) -> Span {
        self.spans(&[(start, end)]).pop().unwrap_or_default()
    }

    /// The spans of byte ranges, in the order given.
    pub fn spans(&self, ranges: &[(usize, usize)]) -> Vec<Span> {
        let mut order: Vec<usize> = (0..ranges.len()).collect();
        order.sort_by_key(|&i| ranges[i].0);
        let mut out = vec![Span::default(); ranges.len()];
        let (mut at, mut line, mut column) = (0, 1, 1);
        for i in order {
            let (start, end) = ranges[i];
            let start = self.floor(start);
            let this_line = self.line_starts.partition_point(|&s| s <= start).max(1);
            if this_line != line || start < at {
                at = self.line_starts.get(this_line - 1).copied().unwrap_or(0);
                line = this_line;
                column = 1;
            }
            column += self.text.get(at..start).map_or(0, |s| s.chars().count());
            at = start;
            out[i] = Span {
                start,
                end: end.max(start),
                line,
                column,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_match_line_and_character_columns_in_any_order() {
        let text = "ab\ncdé\nf";
        let l = Locator::new(text);
        let spans = l.spans(&[(8, 9), (0, 1), (5, 7), (7, 8)]);
        let got: Vec<(usize, usize)> = spans.iter().map(|s| (s.line, s.column)).collect();
        assert_eq!(got, vec![(3, 1), (1, 1), (2, 3), (2, 4)]);
        assert_eq!(l.span(99, 99).line, 3);
    }
}
