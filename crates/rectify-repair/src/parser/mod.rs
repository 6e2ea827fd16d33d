//! The lenient JSON parser: one linear pass over the text that builds the value and records
//! every repair it makes on the way.
//!
//! Nesting is tracked on an explicit stack of open brackets and capped at
//! [`Parser::max_depth`]; going deeper stops the parse with a `parse.depth` diagnostic, so
//! hostile input cannot overflow the call stack. Every lookahead is bounded by a constant
//! window or stops at the first non-blank byte, so the whole pass is linear in the input.

mod array;
mod concat;
mod escape;
mod object;
mod regex;
mod rewrite;
mod scalar;
mod scan;
mod sink;
mod string;
mod text;
mod top;

pub(crate) use regex::regex_end;
pub(crate) use scalar::spaced_non_finite;

pub(crate) use sink::{Sink, ValueSink};
pub(crate) use text::TextSink;
pub(crate) use top::{Payload, parse_region, parse_region_with, trailing_rule};

use std::fmt::Write as _;

use rectify_core::{Applicability, push_pointer};

use crate::log::Log;
pub(crate) use crate::log::snippet;
use crate::rules::RepairRule;

/// Longest lookahead, in bytes, that any heuristic may make.
pub(crate) const WINDOW: usize = 256;

/// Most repairs recorded one by one; past this they are only counted (an unsafe one is
/// still recorded, so the safety policy sees it), which bounds memory on hostile input.
pub(crate) const MAX_RECORDS: usize = 10_000;

/// Where the first `*/` in `b` starts. A `memchr::memmem::find` builds a searcher on each
/// call, which cost more than the search itself for the short comments of a document (one
/// `/* */` per record of 40,000 showed in a profile).
pub(crate) fn comment_end(b: &[u8]) -> Option<usize> {
    let mut from = 1;
    while let Some(i) = b.get(from..).and_then(|rest| memchr::memchr(b'/', rest)) {
        let at = from + i;
        if b.get(at - 1) == Some(&b'*') {
            return Some(at - 1);
        }
        from = at + 1;
    }
    None
}

/// Where a value is being read: decides which bytes end strings and unquoted text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ctx {
    /// An object key.
    Key,
    /// An object member's value.
    Member,
    /// An array element.
    Item,
    /// A top-level value.
    Top,
}

/// One segment of the path to the value being read; pointers are built only when a repair
/// is recorded.
#[derive(Debug)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Why a parse stopped without a value.
#[derive(Clone, Debug)]
pub(crate) struct Fatal {
    pub code: &'static str,
    pub message: String,
    pub at: usize,
}

pub(crate) struct Parser<'a, 's, S: Sink> {
    pub src: &'a str,
    pub b: &'a [u8],
    pub pos: usize,
    /// Open brackets, innermost last: `{`, `[` or `(`.
    pub stack: Vec<u8>,
    pub path: Vec<Seg>,
    pub repairs: Log,
    /// Repairs applied but not recorded because of [`MAX_RECORDS`].
    pub unrecorded: usize,
    /// True when the text ended inside a value (a string or container closed at the end).
    pub truncated: bool,
    pub fatal: Option<Fatal>,
    pub max_depth: usize,
    /// Where values go.
    pub sink: &'s mut S,
    /// True when a streaming sink met a repair it cannot write (see [`Sink::STREAMING`]):
    /// the parse stops and its output is discarded.
    pub bailed: bool,
    /// Where the members of the object being read start: a duplicate key's record covers
    /// the earlier member it replaces.
    pub members_start: usize,
    /// The most brackets open at once so far.
    pub deepest: usize,
}

impl<'a, 's, S: Sink> Parser<'a, 's, S> {
    pub fn new(src: &'a str, pos: usize, max_depth: usize, sink: &'s mut S) -> Parser<'a, 's, S> {
        let (stack, path) = sink.take_buffers();
        Parser {
            src,
            b: src.as_bytes(),
            pos,
            stack,
            path,
            repairs: Log::default(),
            unrecorded: 0,
            truncated: false,
            fatal: None,
            max_depth,
            sink,
            bailed: false,
            members_start: pos,
            deepest: 0,
        }
    }

    /// True once the parse has stopped: a fatal error, or a streaming sink gave up.
    pub fn stopped(&self) -> bool {
        self.fatal.is_some() || self.bailed
    }

    /// For a streaming sink, stops the parse (true); the value sink goes on (false).
    pub fn bail(&mut self) -> bool {
        if S::STREAMING {
            self.bailed = true;
        }
        S::STREAMING
    }

    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    pub fn byte_at(&self, at: usize) -> Option<u8> {
        self.b.get(at).copied()
    }

    /// True when only white space (at most a few bytes of it) follows `from`.
    pub fn blank_from(&self, from: usize) -> bool {
        self.b
            .get(from..)
            .is_some_and(|rest| rest.len() <= 64 && rest.iter().all(u8::is_ascii_whitespace))
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }

    /// True at the end of the text or at a code fence (` ``` `) where a value could start:
    /// the payload ends there.
    pub fn at_stop(&self) -> bool {
        self.at_end() || self.b.get(self.pos..self.pos + 3) == Some(b"```")
    }

    /// Source text `start..end`, clamped and cut at character boundaries.
    pub fn text(&self, start: usize, end: usize) -> &'a str {
        let end = end.min(self.src.len());
        let (mut s, mut e) = (start.min(end), end);
        while !self.src.is_char_boundary(s) {
            s -= 1;
        }
        while !self.src.is_char_boundary(e) {
            e += 1;
        }
        self.src.get(s..e).unwrap_or("")
    }

    /// Records a repair of the source bytes `start..end`.
    pub fn record(&mut self, rule: RepairRule, start: usize, end: usize, after: &str) {
        if self.keeps(rule, end) {
            self.push_record(rule, start, end, after);
        }
    }

    /// [`Parser::record`] of a repair whose text after is `word` as a JSON string (a key
    /// given its quotes), written only when the repair is kept: past [`MAX_RECORDS`] a
    /// document of many such keys would write each one for nothing.
    pub fn record_quoted(&mut self, rule: RepairRule, start: usize, end: usize, word: &str) {
        if self.keeps(rule, end) {
            let mut after = String::with_capacity(word.len() + 2);
            text::write_escaped(&mut after, word);
            self.push_record(rule, start, end, &after);
        }
    }

    /// Whether a repair of `rule` ending at `end` is recorded (it notes a truncation, and
    /// counts it when [`MAX_RECORDS`] leaves it out).
    fn keeps(&mut self, rule: RepairRule, end: usize) -> bool {
        // After a fatal error the parse is over: what the enclosing containers see as they
        // unwind (the text that stopped it, as a missing comma) repairs nothing.
        if self.fatal.is_some() {
            return false;
        }
        if end >= self.b.len()
            && matches!(
                rule,
                RepairRule::MissingClosingBracket
                    | RepairRule::UnterminatedString
                    | RepairRule::TruncatedLiteral
            )
        {
            self.truncated = true;
        }
        if self.repairs.len() >= MAX_RECORDS {
            let unsafe_seen = self
                .repairs
                .last()
                .is_some_and(|r| r.rule.applicability() == Applicability::Unsafe);
            if unsafe_seen || rule.applicability() == Applicability::Safe {
                self.unrecorded += 1;
                return false;
            }
        }
        true
    }

    fn push_record(&mut self, rule: RepairRule, start: usize, end: usize, after: &str) {
        let path = &self.path;
        let pointer = |out: &mut String| {
            for seg in path {
                match seg {
                    Seg::Key(k) => push_pointer(out, k),
                    Seg::Index(i) => {
                        let _ = write!(out, "/{i}");
                    }
                }
            }
        };
        let before = self.text(start, end);
        self.repairs
            .push(rule, (start, end), pointer, before, after);
    }

    /// Opens a bracket, or stops the parse when the depth limit is reached.
    pub fn open(&mut self, bracket: u8) -> bool {
        if self.stack.len() >= self.max_depth {
            self.fatal = Some(Fatal {
                code: "parse.depth",
                message: format!(
                    "the document is nested more than {} levels deep",
                    self.max_depth
                ),
                at: self.pos,
            });
            return false;
        }
        self.stack.push(bracket);
        self.deepest = self.deepest.max(self.stack.len());
        true
    }

    /// True when an enclosing container (not the innermost) was opened by `opener`.
    pub fn ancestor_opened(&self, opener: u8) -> bool {
        let n = self.stack.len();
        n >= 2 && self.stack[..n - 1].contains(&opener)
    }

    /// Skips whitespace and comments, recording each comment, each run of Unicode white
    /// space and each code fence inside brackets.
    pub fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t' | 0x0c)) {
            self.pos += 1;
        }
        if matches!(
            self.peek(),
            Some(b'/' | b'#' | b'`' | 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF)
        ) {
            self.skip_blank_slow();
        }
    }

    /// [`Self::skip_blank`] past a byte that may start a comment, Unicode white space or a
    /// code fence.
    #[inline(never)]
    fn skip_blank_slow(&mut self) {
        loop {
            while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t' | 0x0c)) {
                self.pos += 1;
            }
            let start = self.pos;
            let rule = match (self.peek(), self.byte_at(self.pos + 1)) {
                (Some(b'/'), Some(b'/')) | (Some(b'#'), _) => {
                    self.skip_line();
                    RepairRule::Comment
                }
                (Some(b'/'), Some(b'*')) => {
                    self.skip_block_comment();
                    RepairRule::Comment
                }
                (Some(0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF), _) if self.unicode_space(start) > 0 => {
                    while let n @ 1.. = self.unicode_space(self.pos) {
                        self.pos += n;
                    }
                    RepairRule::UnicodeWhitespace
                }
                (Some(b'`'), _) if self.inner_fence() => RepairRule::CodeFence,
                _ => return,
            };
            self.record(rule, start, self.pos, "");
        }
    }

    /// Length of a Unicode white space character at `at` that JSON does not allow (no-break
    /// space, U+2000–U+200B, narrow no-break, medium mathematical, ideographic space, BOM,
    /// Mongolian vowel separator),
    /// 0 when there is none.
    fn unicode_space(&self, at: usize) -> usize {
        match self.b.get(at..at + 3) {
            Some(
                [0xE2, 0x80, 0x80..=0x8B | 0xAF]
                | [0xE2, 0x81, 0x9F]
                | [0xE3, 0x80, 0x80]
                | [0xEF, 0xBB, 0xBF]
                | [0xE1, 0xA0, 0x8E],
            ) => 3,
            _ if self.b.get(at..at + 2) == Some(&[0xC2, 0xA0]) => 2,
            _ => 0,
        }
    }

    /// At ```` ``` ```` inside brackets: a code fence around or inside the payload
    /// (```` [```json\n{...}\n```] ````) when JSON follows it; skipped (true) or not. A fence
    /// labelled with another language (```` ```python ````) holds code: a string value.
    fn inner_fence(&mut self) -> bool {
        if self.stack.is_empty() || self.b.get(self.pos..self.pos + 3) != Some(b"```") {
            return false;
        }
        let mut end = self.pos + 3;
        while self.byte_at(end).is_some_and(|b| b.is_ascii_alphanumeric()) {
            end += 1;
        }
        let tag = self.text(self.pos + 3, end);
        if !(tag.is_empty() || tag.to_ascii_lowercase().starts_with("json")) {
            return false;
        }
        let json_follows = self.next_solid(end).is_some_and(|(_, b)| {
            matches!(b, b'{' | b'[' | b'}' | b']' | b'"' | b',') || b.is_ascii_digit()
        });
        if json_follows {
            self.pos = end;
        }
        json_follows
    }

    fn skip_line(&mut self) {
        let rest = &self.b[self.pos..];
        self.pos += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    }

    fn skip_block_comment(&mut self) {
        let rest = &self.b[self.pos + 2..];
        self.pos += 2 + comment_end(rest).map_or(rest.len(), |i| i + 2);
    }

    /// Next byte that is not whitespace, looking at most [`WINDOW`] bytes ahead of `from`.
    pub fn next_solid(&self, from: usize) -> Option<(usize, u8)> {
        let limit = (from + WINDOW).min(self.b.len());
        let window = self.b.get(from..limit)?;
        let i = window.iter().position(|b| !b.is_ascii_whitespace())?;
        window.get(i).map(|&b| (from + i, b))
    }

    /// Reads one value of any kind, or `None` when no value starts here.
    pub fn value(&mut self, ctx: Ctx) -> Option<S::Val> {
        self.skip_blank();
        if self.peek() == Some(b'/')
            && let Some(regex) = self.regex()
        {
            return Some(regex);
        }
        let value = match self.peek()? {
            b'{' => self.object(),
            b'[' | b'(' => self.array(),
            b'}' | b']' | b')' | b',' | b':' => return None,
            _ if self.quote_at(self.pos).is_some() => {
                let s = self.string(ctx);
                self.concatenation(s, ctx)
            }
            _ => self.scalar(ctx)?,
        };
        Some(value)
    }
}

/// A closing bracket as text.
pub(crate) fn bracket(closer: u8) -> &'static str {
    match closer {
        b'}' => "}",
        b')' => ")",
        _ => "]",
    }
}

/// True for bytes that may appear in an identifier-like word (ASCII letters, digits, `_`, `$`
/// and every non-ASCII byte).
pub(crate) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::comment_end;

    #[test]
    fn comment_end_finds_the_first_star_slash_as_memmem_does() {
        for b in [
            &b""[..],
            b"/",
            b"*",
            b"*/",
            b"a*/b*/",
            b"//**/",
            b"/ * / */",
            b"***//",
            b"no end",
            "é*/".as_bytes(),
        ] {
            assert_eq!(comment_end(b), memchr::memmem::find(b, b"*/"), "{b:?}");
        }
    }
}
