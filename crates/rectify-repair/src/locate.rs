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
        let mut one = [Span {
            start,
            end,
            ..Span::default()
        }];
        self.locate(&mut one, |s| *s, |s, span| *s = span);
        let [span] = one;
        span
    }

    /// Fills in the line and column of the spans of `items` (read with `get`, whose
    /// `start` and `end` are byte offsets; written back with `set`); `start` moves back to
    /// a character boundary. One pass over the text when the items come sorted by start
    /// (the usual case); otherwise they are visited in sorted order.
    pub fn locate<T>(&self, items: &mut [T], get: impl Fn(&T) -> Span, set: impl Fn(&mut T, Span)) {
        crate::work::add(items.len());
        let sorted = items.windows(2).all(|w| match w {
            [a, b] => get(a).start <= get(b).start,
            _ => true,
        });
        let mut order: Vec<usize> = Vec::new();
        if !sorted {
            order = (0..items.len()).collect();
            order.sort_by_key(|&i| items.get(i).map_or(0, |t| get(t).start));
        }
        let mut cursor = Cursor {
            at: 0,
            line: 1,
            column: 1,
        };
        for k in 0..items.len() {
            let i = order.get(k).copied().unwrap_or(k);
            let Some(item) = items.get_mut(i) else {
                continue;
            };
            let s = get(item);
            let start = self.floor(s.start);
            cursor.advance(self.text, start);
            let span = Span {
                start,
                end: s.end.max(start),
                line: cursor.line,
                column: cursor.column,
            };
            set(item, span);
        }
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
        crate::work::add(gap.len());
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

    fn spans_of(l: &Locator<'_>, ranges: &[(usize, usize)]) -> Vec<Span> {
        let mut spans: Vec<Span> = ranges
            .iter()
            .map(|&(start, end)| Span {
                start,
                end,
                ..Span::default()
            })
            .collect();
        l.locate(&mut spans, |s| *s, |s, span| *s = span);
        spans
    }

    #[test]
    fn spans_match_line_and_character_columns_in_any_order() {
        let text = "ab\ncdé\nf";
        let l = Locator::new(text);
        let ranges = [(8, 9), (0, 1), (5, 7), (7, 8)];
        let spans = spans_of(&l, &ranges);
        let got: Vec<(usize, usize)> = spans.iter().map(|s| (s.line, s.column)).collect();
        assert_eq!(got, vec![(3, 1), (1, 1), (2, 3), (2, 4)]);
        assert_eq!(l.span(99, 99).line, 3);
        let sorted = spans_of(&l, &[(0, 1), (4, 4), (8, 9)]);
        let got: Vec<(usize, usize)> = sorted.iter().map(|s| (s.line, s.column)).collect();
        assert_eq!(got, vec![(1, 1), (2, 2), (3, 1)]);
    }
}
