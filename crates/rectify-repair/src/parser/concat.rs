//! String concatenation whose first part lost its closing quote: `"abc +"def"`,
//! `"abc/*note*/+"def"`, `"hello +\n " world"`, and a concatenation cut off by the end of
//! the text (`"hello +`, `"hello" +`).
//!
//! A string's closing quote is missing when a quote inside it opens the next part instead of
//! ending the value; the `+` just before that quote (with blanks and `/* */` comments around
//! it) shows where the first part ended.

use super::{Ctx, Parser, Sink, WINDOW};
use crate::rules::RepairRule;

impl<S: Sink> Parser<'_, '_, S> {
    /// The quote at `at` (of `len` bytes) inside a string whose content `out` ends with a
    /// concatenation marker, when the quote does not end the value but opens the next part:
    /// the output length to cut `out` back to and the source offset where the marker starts.
    /// `None` when the marker's bytes are not the source's (they were rewritten).
    pub(super) fn lost_quote_concat(
        &self,
        out: &str,
        ctx: Ctx,
        at: usize,
        len: usize,
    ) -> Option<(usize, usize)> {
        // The marker is looked for first: a string's own closing quote, the common case,
        // then costs one byte comparison.
        if ctx == Ctx::Key {
            return None;
        }
        let cut = concat_tail(out)?;
        if self.terminates(ctx, self.next_solid(at + len)) {
            return None;
        }
        let tail = out.as_bytes().get(cut..)?;
        // `60+''` (a doubled quote) and `C+"` are content: the marker stands apart from the
        // text before it (blanks or a comment) and the next part starts after the quote.
        if tail == b"+" || self.closer_len(self.quote_at(at)?.0, at + len).is_some() {
            return None;
        }
        let src = at.checked_sub(tail.len())?;
        (self.b.get(src..at)? == tail).then_some((cut, src))
    }

    /// Joins the next part of a string whose closing quote was lost before a concatenation
    /// (see [`Self::lost_quote_concat`]): drops the marker from `out` and goes on after the
    /// quote that ends at `end`.
    pub(super) fn join_lost_quote(&mut self, out: &mut String, mark: (usize, usize), end: usize) {
        let (cut, src) = mark;
        out.truncate(cut);
        self.record(RepairRule::MissingClosingQuote, src, src, "\"");
        self.record(RepairRule::StringConcatenation, src, end, "");
    }

    /// A string cut off by the end of the text right after a concatenation marker
    /// (`"hello +`, `["hello +]`): drops the marker from `out`, which has been trimmed.
    pub(super) fn drop_cut_concat(&mut self, out: &mut String) {
        let Some(rest) = out.strip_suffix('+') else {
            return;
        };
        if !rest.ends_with(char::is_whitespace) {
            // `"C++` is content, not a marker.
            return;
        }
        let Some(plus) = self.b.get(..self.pos).and_then(|b| {
            b.iter()
                .rposition(|c| !c.is_ascii_whitespace())
                .filter(|&i| b[i] == b'+')
        }) else {
            return;
        };
        out.truncate(rest.trim_end().len());
        self.record(RepairRule::StringConcatenation, plus, plus + 1, "");
    }

    /// After a closed string, a `+` with nothing to join (`"hello" +` at the end of the
    /// text or before a closing bracket or comma): skips it, recorded.
    pub(super) fn skip_cut_concat(&mut self) {
        let Some((plus, b'+')) = self.next_solid(self.pos) else {
            return;
        };
        let ends = match self.next_solid(plus + 1) {
            None => self.b.len() - (plus + 1) <= WINDOW,
            Some((_, b)) => matches!(b, b',' | b']' | b'}'),
        };
        if ends {
            self.record(RepairRule::StringConcatenation, self.pos, plus + 1, "");
            self.pos = plus + 1;
        }
    }
}

impl<S: Sink> Parser<'_, '_, S> {
    /// The first byte after `from` that is neither white space nor inside a `/* */` comment
    /// (within the window), and its offset: `"a" /*note*/ + "b"`.
    pub(super) fn solid_past_comments(&self, from: usize) -> Option<(usize, u8)> {
        let limit = (from + WINDOW).min(self.b.len());
        let mut at = from;
        loop {
            let (i, b) = self.next_solid(at)?;
            if b != b'/' || self.byte_at(i + 1) != Some(b'*') {
                return Some((i, b));
            }
            let rest = self.b.get(i + 2..limit)?;
            at = i + 2 + super::comment_end(rest)? + 2;
        }
    }
}

/// Where a concatenation marker at the end of a string's content starts: `out` ends with
/// exactly one `+` among blanks and `/* */` comments. The length of the content before it,
/// blanks trimmed. Only the last [`WINDOW`] bytes are looked at, so that deciding every
/// quote of a long string stays linear.
pub(crate) fn concat_tail(out: &str) -> Option<usize> {
    if !matches!(out.trim_end().as_bytes().last(), Some(b'+' | b'/')) {
        return None;
    }
    let mut lo = out.len().saturating_sub(WINDOW);
    while !out.is_char_boundary(lo) {
        lo += 1;
    }
    let mut rest = out.get(lo..)?;
    let mut plus = 0;
    loop {
        rest = rest.trim_end();
        if let Some(before) = rest.strip_suffix('+') {
            plus += 1;
            rest = before;
        } else if rest.ends_with("*/") {
            let open = rest.rfind("/*")?;
            rest = rest.get(..open)?;
        } else {
            break;
        }
    }
    (plus == 1 && (lo == 0 || !rest.is_empty())).then_some(lo + rest.len())
}

#[cfg(test)]
mod tests {
    use super::concat_tail;

    #[test]
    fn finds_one_marker_among_blanks_and_comments() {
        assert_eq!(concat_tail("abc+"), Some(3));
        assert_eq!(concat_tail("hello +\n "), Some(5));
        assert_eq!(concat_tail("abc+/*note*/"), Some(3));
        assert_eq!(concat_tail("abc/*note*/ + "), Some(3));
        assert_eq!(concat_tail("C++"), None);
        assert_eq!(concat_tail("abc"), None);
        assert_eq!(concat_tail("a */"), None);
    }
}
