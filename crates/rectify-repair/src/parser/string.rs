//! Strings: any quote style, unescaped inner quotes, missing end quotes and truncation.
//!
//! Whether a quote ends the string is decided from what follows it (a bounded lookahead that
//! stops at the first non-blank byte) and from whether it pairs with an inner quote opened
//! earlier in the same string.

use super::scan::ByteSet;
use super::{Ctx, Parser, Sink, WINDOW, is_word_byte};
use crate::rules::RepairRule;
use crate::strict::skip_block_comments;

/// The quote style a string was opened with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quote {
    Double,
    Single,
    Backtick,
    CurlyDouble,
    CurlySingle,
}

impl Quote {
    fn rule(self) -> Option<RepairRule> {
        match self {
            Quote::Double => None,
            Quote::Single => Some(RepairRule::SingleQuotes),
            Quote::Backtick => Some(RepairRule::BacktickQuotes),
            Quote::CurlyDouble | Quote::CurlySingle => Some(RepairRule::CurlyQuotes),
        }
    }
}

/// What a quote found inside a string means.
enum Decision {
    Close,
    Inner,
    EndAtComma(usize, usize),
    /// The closing quote was lost before a concatenation: cut the output back to this
    /// length; the marker starts at this source offset.
    Concat(usize, usize),
}

/// State of the string being read.
pub(crate) struct Str {
    pub out: String,
    quote: Quote,
    ctx: Ctx,
    start: usize,
    inner_open: bool,
    doubled: bool,
    /// Source offset and output length at the last comma inside the string.
    last_comma: Option<(usize, usize)>,
    /// Offset of the next `:` at or after the last comma looked at (`usize::MAX`: none).
    next_colon: usize,
    /// Offset of the next unescaped `"` after the last colon of a key looked at
    /// (`usize::MAX`: none).
    next_quote: usize,
}

/// Bytes that interrupt the fast copy loop: control characters, the backslash, quotes (and
/// the first bytes of `´` and the curly quotes), `,` and `:`.
static SPECIAL: ByteSet<8> = ByteSet::new(0x20, [b'\\', b'"', b'\'', b'`', b',', b':', 0xC2, 0xE2]);

/// [`SPECIAL`] without `,` and `:`, for where they cannot end the string.
static SPECIAL_NOT_PUNCT: ByteSet<6> = ByteSet::new(0x20, [b'\\', b'"', b'\'', b'`', 0xC2, 0xE2]);

impl<S: Sink> Parser<'_, '_, S> {
    /// The quote opening a string at `at`, with its length in bytes.
    pub fn quote_at(&self, at: usize) -> Option<(Quote, usize)> {
        match self.b.get(at..at + 1)? {
            b"\"" => Some((Quote::Double, 1)),
            b"'" => Some((Quote::Single, 1)),
            b"`" => Some((Quote::Backtick, 1)),
            _ => match self.b.get(at..at + 3)? {
                [0xE2, 0x80, 0x9C..=0x9E] => Some((Quote::CurlyDouble, 3)),
                [0xE2, 0x80, 0x98 | 0x99] => Some((Quote::CurlySingle, 3)),
                _ => None,
            },
        }
    }

    /// Length of a quote at `at` that can close a string opened with `quote`.
    pub(super) fn closer_len(&self, quote: Quote, at: usize) -> Option<usize> {
        let b = self.b.get(at..)?;
        // As jsonrepair does: `'` and `"` close only themselves; a string opened with a
        // backtick or a curly single quote closes at any single quote (`'`, `` ` ``, `´`,
        // `‘`, `’`), and one opened with a curly double quote at any double quote.
        match (quote, b) {
            (Quote::Double | Quote::CurlyDouble, [b'"', ..])
            | (Quote::Single, [b'\'', ..])
            | (Quote::Backtick | Quote::CurlySingle, [b'`' | b'\'', ..]) => Some(1),
            (Quote::Backtick | Quote::CurlySingle, [0xC2, 0xB4, ..]) => Some(2),
            (Quote::CurlyDouble, [0xE2, 0x80, 0x9C | 0x9D, ..])
            | (Quote::Backtick | Quote::CurlySingle, [0xE2, 0x80, 0x98 | 0x99, ..]) => Some(3),
            _ => None,
        }
    }

    /// Reads a string starting at the current quote.
    pub fn string(&mut self, ctx: Ctx) -> String {
        let start = self.pos;
        let Some((quote, len)) = self.quote_at(start) else {
            return String::new();
        };
        if ctx != Ctx::Key
            && let Some(out) = self.triple_quoted(start, ctx)
        {
            return out;
        }
        if let Some(rule) = quote.rule() {
            self.record(rule, start, start + len, "\"");
        }
        self.pos += len;
        let mut st = Str {
            out: self.sink.scratch(),
            quote,
            ctx,
            start,
            inner_open: false,
            doubled: false,
            last_comma: None,
            next_colon: 0,
            next_quote: 0,
        };
        if self.closer_len(quote, self.pos) == Some(len)
            && self.byte_at(self.pos + len).is_some_and(is_word_byte)
            && ctx != Ctx::Top
        {
            self.record(RepairRule::DoubledQuote, start, self.pos + len, "\"");
            self.pos += len;
            st.doubled = true;
        }
        self.string_body(&mut st);
        st.out
    }

    /// A Python triple-quoted string (`"""..."""` or `\'\'\'...\'\'\'`) at `start`: its
    /// content as written, up to the closing triple quote; `None` when there is none. A
    /// Markdown code fence written as a value (```` ```python\nprint("hi")\n``` ````) is
    /// read the same way, without its language tag and the line breaks inside the fences.
    fn triple_quoted(&mut self, start: usize, ctx: Ctx) -> Option<String> {
        let opener = self.b.get(start..start + 3)?;
        let fence = opener == b"```";
        if opener != b"\"\"\"" && opener != b"\'\'\'" && !(fence && ctx != Ctx::Top) {
            return None;
        }
        let rest = self.b.get(start + 3..)?;
        let close = start + 3 + memchr::memmem::find(rest, opener)?;
        let mut content = self.src.get(start + 3..close)?;
        if fence {
            content = fence_body(content);
        }
        let mut out = self.sink.scratch();
        out.push_str(content);
        self.pos = close + 3;
        self.record(RepairRule::TripleQuotes, start, self.pos, "\"...\"");
        Some(out)
    }

    fn string_body(&mut self, st: &mut Str) {
        loop {
            let run = self.pos;
            loop {
                self.pos += self.plain_run(st, run);
                match self.plain(st, run) {
                    Some(len) => self.pos += len,
                    None => break,
                }
            }
            // Runs start and end at ASCII bytes, the first byte of a curly quote or the
            // end: always character boundaries.
            if self.pos > run {
                debug_assert!(
                    self.src.is_char_boundary(self.pos),
                    "a run ends in a character"
                );
                st.out.push_str(self.src.get(run..self.pos).unwrap_or(""));
            }
            let Some(c) = self.peek() else {
                self.unterminated(st);
                return;
            };
            if self.special(st, c) {
                return;
            }
        }
    }

    /// Length of the run of bytes from the current position that are plain content of the
    /// string for sure. Where no `,` or `:` can end the string (an array element, or a
    /// member with no `:` near enough for [`Self::bare_member_after`]), they belong to the
    /// run, and the last comma in it is noted.
    fn plain_run(&self, st: &mut Str, run: usize) -> usize {
        let rest = self.b.get(self.pos..).unwrap_or_default();
        let sure = match st.ctx {
            Ctx::Key => 0,
            Ctx::Item | Ctx::Top => rest.len(),
            Ctx::Member => st.next_colon.saturating_sub(self.pos + 2 * WINDOW + 80),
        };
        if sure == 0 {
            return rest
                .iter()
                .position(|&c| SPECIAL.contains(c))
                .unwrap_or(rest.len());
        }
        // The window ends at a character boundary: a run must not end inside a character.
        let mut sure = sure.min(rest.len());
        while !self.src.is_char_boundary(self.pos + sure) {
            sure -= 1;
        }
        let window = rest.get(..sure).unwrap_or_default();
        let n = window
            .iter()
            .position(|&c| SPECIAL_NOT_PUNCT.contains(c))
            .unwrap_or(window.len());
        if let Some(c) = memchr::memrchr(b',', window.get(..n).unwrap_or_default()) {
            st.last_comma = Some((self.pos + c, st.out.len() + (self.pos + c - run)));
        }
        n
    }

    /// The length of the special character at the current position when it is plain
    /// content of the string (a comma or colon that ends nothing, a quote that cannot close
    /// it), so the run being copied goes on; `None` when [`Self::special`] must see it.
    fn plain(&self, st: &mut Str, run: usize) -> Option<usize> {
        let c = self.peek()?;
        match c {
            b',' if st.ctx != Ctx::Key => {
                if st.ctx == Ctx::Member
                    && !st.inner_open
                    && self.colon_near(st, self.pos)
                    && self.bare_member_after(self.pos)
                {
                    return None;
                }
                st.last_comma = Some((self.pos, st.out.len() + (self.pos - run)));
                Some(1)
            }
            b':' if st.ctx != Ctx::Key => Some(1),
            b'\'' | b'`' | 0xC2 | 0xE2 if self.closer_len(st.quote, self.pos).is_none() => self
                .src
                .get(self.pos..)
                .and_then(|s| s.chars().next())
                .map(char::len_utf8),
            _ => None,
        }
    }

    /// False when no `:` is near enough after the comma at `at` for
    /// [`Self::bare_member_after`] to find `, word:` (a quick check before the full one).
    fn colon_near(&self, st: &mut Str, at: usize) -> bool {
        if st.next_colon < at {
            let rest = self.b.get(at..).unwrap_or_default();
            st.next_colon = memchr::memchr(b':', rest).map_or(usize::MAX, |i| at + i);
        }
        st.next_colon <= at + 2 * WINDOW + 80
    }

    /// Handles one special byte; true when the string has ended.
    fn special(&mut self, st: &mut Str, c: u8) -> bool {
        match c {
            b'\\' => self.escape(st),
            b',' if st.ctx != Ctx::Key => {
                if st.ctx == Ctx::Member && !st.inner_open && self.bare_member_after(self.pos) {
                    self.record(RepairRule::MissingClosingQuote, self.pos, self.pos, "\"");
                    return true;
                }
                st.last_comma = Some((self.pos, st.out.len()));
                st.out.push(',');
                self.pos += 1;
            }
            b':' if st.ctx == Ctx::Key && self.colon_ends_key(st, self.pos) => {
                self.record(RepairRule::MissingClosingQuote, self.pos, self.pos, "\"");
                return true;
            }
            b'\n' if st.ctx != Ctx::Key && self.line_starts_element(st.ctx) => {
                // A string running to the end of a line before a line that starts the next
                // member or element: its closing quote is missing. A comma ending the line
                // separates the elements.
                if let Some((src, out_len)) = st.last_comma
                    && st
                        .out
                        .get(out_len + 1..)
                        .is_some_and(|s| skip_block_comments(s).is_empty())
                {
                    st.out.truncate(out_len);
                    self.pos = src;
                }
                // `"value4',`: closed with a quote of another kind, which is no content.
                let other = self.pos.checked_sub(1).filter(|&q| {
                    st.quote == Quote::Double
                        && matches!(self.byte_at(q), Some(b'\'' | b'`'))
                        && st.out.ends_with(['\'', '`'])
                });
                let start = other.unwrap_or(self.pos);
                if other.is_some() {
                    st.out.pop();
                }
                self.record(RepairRule::MissingClosingQuote, start, self.pos, "\"");
                return true;
            }
            c if c < 0x20 => {
                self.record(RepairRule::ControlCharacter, self.pos, self.pos + 1, "");
                st.out.push(char::from(c));
                self.pos += 1;
            }
            _ => return self.quote_or_char(st),
        }
        false
    }

    /// Whether the quote at `at` (of `len` bytes) may close the string: the very quote it
    /// was opened with, or another single quote (`` `foo´ ``) directly followed by the end
    /// of the value. Elsewhere another quote is content (`` `single quote: '` ``).
    fn may_close(&self, quote: Quote, at: usize, len: usize) -> bool {
        let own = match (quote, self.b.get(at..).unwrap_or_default()) {
            (Quote::Backtick, [b'`', ..]) | (Quote::CurlySingle, [0xE2, 0x80, 0x98 | 0x99, ..]) => {
                true
            }
            (Quote::Backtick | Quote::CurlySingle, _) => false,
            _ => true,
        };
        own || matches!(self.byte_at(at + len), Some(b'\n' | b'\r'))
            || self
                .next_solid(at + len)
                .is_none_or(|(_, b)| matches!(b, b',' | b':' | b'}' | b']' | b')'))
    }

    fn quote_or_char(&mut self, st: &mut Str) -> bool {
        let at = self.pos;
        let len = self
            .closer_len(st.quote, at)
            .filter(|&len| self.may_close(st.quote, at, len));
        let Some(len) = len else {
            let ch = self.text(at, at + 1);
            let ch = ch.chars().next().map_or(1, char::len_utf8);
            st.out.push_str(self.text(at, at + ch));
            self.pos += ch.max(1);
            return false;
        };
        match self.decide(st, at, len) {
            Decision::Close => {
                self.trim_quote_line(st, at);
                self.pos += len;
                if st.doubled && self.closer_len(st.quote, self.pos) == Some(len) {
                    self.pos += len;
                } else if st.ctx != Ctx::Key && self.stray_closer(st.quote, len) {
                    // `"item5"",`: a second closing quote right after the first.
                    self.record(RepairRule::DoubledQuote, self.pos, self.pos + len, "");
                    self.pos += len;
                }
                if st.quote != Quote::Double && len == 1 && self.b.get(at) == Some(&b'"') {
                    self.record(RepairRule::CurlyQuotes, at, at + 1, "\"");
                }
                true
            }
            Decision::Inner => {
                self.record(RepairRule::UnescapedQuote, at, at + len, "\\\"");
                st.out.push_str(self.text(at, at + len));
                self.pos += len;
                false
            }
            Decision::Concat(cut, src) => {
                self.join_lost_quote(&mut st.out, (cut, src), at + len);
                st.last_comma = st.last_comma.filter(|&(_, out_len)| out_len < cut);
                st.inner_open = false;
                self.pos = at + len;
                false
            }
            Decision::EndAtComma(src, out_len) => {
                st.out.truncate(out_len);
                self.pos = src;
                self.record(RepairRule::MissingClosingQuote, src, src, "\"");
                true
            }
        }
    }

    /// True when the current position holds one more closing quote of the string just
    /// closed, followed by what ends a value (`,`, a closing bracket, a line break or the
    /// end): a quote doubled by mistake, not the start of another string.
    fn stray_closer(&self, quote: Quote, len: usize) -> bool {
        self.closer_len(quote, self.pos) == Some(len)
            && self.closer_len(quote, self.pos + len).is_none()
            && self
                .next_solid(self.pos + len)
                .is_none_or(|(_, b)| matches!(b, b',' | b'}' | b']'))
    }

    fn decide(&self, st: &mut Str, at: usize, len: usize) -> Decision {
        let after = at + len;
        let glued = self.byte_at(after).is_some_and(is_word_byte);
        if let Some((cut, src)) = self.lost_quote_concat(&st.out, st.ctx, at, len) {
            return Decision::Concat(cut, src);
        }
        match st.ctx {
            Ctx::Key => {
                return if glued && !self.value_glued(after) {
                    Decision::Inner
                } else {
                    Decision::Close
                };
            }
            Ctx::Top if self.top_inner(st.quote, after) => return Decision::Inner,
            Ctx::Top => return Decision::Close,
            Ctx::Member | Ctx::Item => {}
        }
        let closing_style = st.out.chars().last().is_some_and(|c| !c.is_whitespace());
        if let Some((src, out_len)) = st.last_comma
            && st
                .out
                .get(out_len + 1..)
                .is_some_and(|s| skip_block_comments(s).is_empty())
            && self.element_starts(st.ctx, at)
            && !self
                .next_solid(after)
                .is_some_and(|n| self.terminates(st.ctx, Some(n)))
        {
            // `{"a": "x, "b": 1}`, `["one, "two"]`: the quote opens the next element. Not
            // when the value ends right after it (`[",", "b"]` is valid as it stands).
            return Decision::EndAtComma(src, out_len);
        }
        if st.inner_open && closing_style {
            st.inner_open = false;
            return Decision::Inner;
        }
        let next = self.next_solid(after);
        if self.terminates(st.ctx, next) {
            return Decision::Close;
        }
        if !closing_style {
            if let Some((src, out_len)) = st.last_comma
                && st.ctx == Ctx::Member
                && st
                    .out
                    .get(out_len + 1..)
                    .is_some_and(|s| skip_block_comments(s).is_empty())
                && self.quoted_key_at(at)
            {
                return Decision::EndAtComma(src, out_len);
            }
            st.inner_open = true;
            return Decision::Inner;
        }
        if glued {
            // `["a"null, 1]`: a value glued to the quote means the comma is missing.
            return if self.value_glued(after) {
                Decision::Close
            } else {
                Decision::Inner
            };
        }
        let next_is_quote = next.is_some_and(|(i, _)| self.quote_at(i).is_some());
        if st.ctx == Ctx::Item || next_is_quote || !self.later_closer(st.quote, after) {
            Decision::Close
        } else {
            Decision::Inner
        }
    }

    /// A quote inside a lone top-level string (`"The TV has a 24" screen"`): words follow
    /// it, and the text ends, soon, with the string's own quote, the only other one.
    fn top_inner(&self, quote: Quote, after: usize) -> bool {
        let rest = self.b.get(after..).unwrap_or_default();
        if rest.len() > WINDOW {
            return false;
        }
        let Some(last) = rest.iter().rposition(|b| !b.is_ascii_whitespace()) else {
            return false;
        };
        let words = self
            .next_solid(after)
            .is_some_and(|(_, b)| b.is_ascii_alphabetic());
        let closer = (last.saturating_sub(2)..=last)
            .find(|&p| self.closer_len(quote, after + p) == Some(last - p + 1));
        words && closer.is_some_and(|c| (0..c).all(|p| self.closer_len(quote, after + p).is_none()))
    }

    /// True when a number or a keyword that ends there starts at `at`, right after a
    /// closing quote: `"a"5}` or `"a"true,` is a key whose colon is missing, `["a"null]` an
    /// element whose comma is missing, not a quote inside the string.
    fn value_glued(&self, at: usize) -> bool {
        let rest = self.b.get(at..).unwrap_or_default();
        let word = rest
            .iter()
            .take_while(|&&c| is_word_byte(c) || c == b'.')
            .count();
        let ends = matches!(
            rest.get(word),
            None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
        );
        let text = rest.get(..word).unwrap_or_default();
        let number = text.first().is_some_and(u8::is_ascii_digit)
            && text.iter().all(|c| c.is_ascii_digit() || *c == b'.');
        ends && (number
            || matches!(
                text,
                b"true" | b"false" | b"null" | b"True" | b"False" | b"None"
            ))
    }

    /// A closing quote alone on its line: the line break before it is layout, not content.
    fn trim_quote_line(&mut self, st: &mut Str, at: usize) {
        let before = self.b.get(..at).unwrap_or_default();
        let blank = before
            .iter()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        let tail = before.get(at - blank..).unwrap_or_default();
        if blank > 0 && tail.contains(&b'\n') && st.out.as_bytes().ends_with(tail) {
            st.out.truncate(st.out.len() - blank);
            self.record(RepairRule::ControlCharacter, at - blank, at, "");
        }
    }

    /// True when the byte after a quote shows that the quote ended a value.
    pub(super) fn terminates(&self, ctx: Ctx, next: Option<(usize, u8)>) -> bool {
        let Some((i, b)) = next else {
            return true;
        };
        let then_closes = || {
            self.next_solid(i + 1)
                .is_none_or(|(_, b)| matches!(b, b',' | b'}' | b']' | b')'))
        };
        let comment = b == b'#' || (b == b'/' && matches!(self.byte_at(i + 1), Some(b'/' | b'*')));
        match (ctx, b) {
            _ if comment => true,
            (_, b'+') => self
                .next_solid(i + 1)
                .is_some_and(|(q, _)| self.quote_at(q).is_some()),
            (_, b',') | (Ctx::Member, b'}') | (Ctx::Item, b']') => true,
            (Ctx::Item, b')') => self.stack.last() == Some(&b'('),
            (Ctx::Member, b']') | (Ctx::Item, b'}') => then_closes(),
            _ => false,
        }
    }

    /// True when a later quote (within the window) could close the string: one followed by
    /// the end of a member.
    fn later_closer(&self, quote: Quote, from: usize) -> bool {
        let limit = (from + WINDOW).min(self.b.len());
        let mut i = from;
        while i < limit {
            if let Some(len) = self.closer_len(quote, i)
                && self
                    .next_solid(i + len)
                    .is_none_or(|(_, b)| matches!(b, b',' | b'}' | b']'))
            {
                return true;
            }
            i += 1;
        }
        false
    }

    /// True when the quote at `at` opens the next member (`"key":`) of an object, or the
    /// next string element (`"x",` or `"x"]` on one line) of an array.
    fn element_starts(&self, ctx: Ctx, at: usize) -> bool {
        match ctx {
            Ctx::Member => self.quoted_key_at(at),
            Ctx::Item => {
                let limit = (at + 1 + WINDOW).min(self.b.len());
                let rest = self.b.get(at + 1..limit).unwrap_or_default();
                memchr::memchr2(b'"', b'\n', rest).is_some_and(|i| {
                    rest.get(i) == Some(&b'"')
                        && self
                            .next_solid(at + 2 + i)
                            .is_some_and(|(_, b)| matches!(b, b',' | b']'))
                })
            }
            _ => false,
        }
    }

    /// At a line break inside a string: true when the next line starts the next member or
    /// element (see [`Self::element_starts`]).
    fn line_starts_element(&self, ctx: Ctx) -> bool {
        self.next_solid(self.pos + 1).is_some_and(|(q, b)| {
            b == b'"'
                && self
                    .b
                    .get(self.pos + 1..q)
                    .is_some_and(|gap| !gap.contains(&b'\n'))
                && self.element_starts(ctx, q)
        })
    }

    /// True when a quoted key followed by `:` starts at the quote `at`.
    pub fn quoted_key_at(&self, at: usize) -> bool {
        let limit = (at + 1 + WINDOW).min(self.b.len());
        let Some(rest) = self.b.get(at + 1..limit) else {
            return false;
        };
        memchr::memchr(b'"', rest)
            .is_some_and(|i| self.next_solid(at + 2 + i).is_some_and(|(_, b)| b == b':'))
    }

    /// True when `, word:` follows the comma at `at` inside a string whose closing quote is
    /// missing (no quote ends a value before the next one opens).
    fn bare_member_after(&self, at: usize) -> bool {
        let b = self.b;
        let limit = (at + 1 + WINDOW).min(b.len());
        let mut i = at + 1;
        while i < limit && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if !b
            .get(i)
            .is_some_and(|&c| i < limit && (c.is_ascii_alphabetic() || c == b'_'))
        {
            return false;
        }
        let word_start = i;
        while b
            .get(i)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            i += 1;
        }
        let colon = match b.get(i) {
            Some(b':') => true,
            Some(c) if c.is_ascii_whitespace() => self.next_solid(i).map(|(_, c)| c) == Some(b':'),
            _ => false,
        };
        if i - word_start > 64 || !colon {
            return false;
        }
        let limit = (at + WINDOW).min(self.b.len());
        let window = self.b.get(at..limit).unwrap_or_default();
        let closer = memchr::memchr_iter(b'"', window).find(|&q| !escaped_at(window, q));
        closer.is_none_or(|q| {
            !self
                .next_solid(at + q + 1)
                .is_none_or(|(_, b)| matches!(b, b',' | b'}'))
        })
    }

    /// True when a `:` inside a key ends the key (its closing quote is missing): the next
    /// unescaped `"` after it is not followed by a colon, so it closes no key. However long
    /// the key (a valid one with `: ` in it is read whole), each byte is looked at about
    /// once: the quote found is kept for the key's next colons.
    fn colon_ends_key(&self, st: &mut Str, at: usize) -> bool {
        if st.next_quote <= at {
            let rest = self.b.get(at + 1..).unwrap_or_default();
            st.next_quote = memchr::memchr_iter(b'"', rest)
                .find(|&i| !escaped_at(rest, i))
                .map_or(usize::MAX, |i| at + 1 + i);
        }
        st.next_quote == usize::MAX
            || self
                .next_solid(st.next_quote + 1)
                .is_none_or(|(_, b)| b != b':')
    }

    /// The text ended inside the string: close it, giving back trailing closing brackets
    /// (and fence backticks) that the open containers need.
    fn unterminated(&mut self, st: &mut Str) {
        let eof = self.b.len();
        if st.ctx != Ctx::Key {
            let k = self.closer_suffix();
            let suffix = self.b.get(eof - k..).unwrap_or_default();
            if k > 0 && st.out.as_bytes().ends_with(suffix) {
                st.out.truncate(st.out.len() - k);
                self.pos = eof - k;
                if self.end_at_last_comma(st) {
                    return;
                }
            }
        }
        let trimmed = st.out.trim_end().len();
        st.out.truncate(trimmed);
        self.record(RepairRule::UnterminatedString, st.start, eof, "\"");
        if st.ctx != Ctx::Key {
            self.drop_cut_concat(&mut st.out);
        }
    }

    /// A string never closed, in a text that ends by closing its containers, whose last
    /// comma is followed by a number or a keyword only (`["https://x.com/,2]`): the closing
    /// quote was lost before that comma, where the structure resumes. Ends the string there
    /// (true).
    fn end_at_last_comma(&mut self, st: &mut Str) -> bool {
        let Some((src, out_len)) = st.last_comma else {
            return false;
        };
        let tail = st.out.get(out_len + 1..).unwrap_or_default().trim();
        let scalar = matches!(tail, "true" | "false" | "null")
            || serde_json::from_str::<serde_json::Number>(tail).is_ok();
        if !scalar || st.ctx == Ctx::Top {
            return false;
        }
        st.out.truncate(out_len);
        self.pos = src;
        self.record(RepairRule::MissingClosingQuote, src, src, "\"");
        true
    }

    /// Length of the trailing run of blanks, backticks and closing brackets that close the
    /// innermost open containers in order.
    fn closer_suffix(&self) -> usize {
        let mut closers = Vec::new();
        let mut i = self.b.len();
        let mut cut = i;
        while i > 0 && closers.len() <= self.stack.len() {
            let b = self.b[i - 1];
            if matches!(b, b'}' | b']' | b')') {
                closers.push(b);
            } else if !(b.is_ascii_whitespace() || b == b'`') {
                break;
            }
            i -= 1;
            cut = i;
        }
        closers.reverse();
        let n = self.stack.len();
        let matches = closers.len() <= n
            && closers
                .iter()
                .enumerate()
                .all(|(j, &c)| closes(self.stack[n - 1 - j], c));
        if matches { self.b.len() - cut } else { 0 }
    }
}

/// True when `closer` closes a container opened with `opener`.
pub(crate) fn closes(opener: u8, closer: u8) -> bool {
    matches!((opener, closer), (b'{', b'}') | (b'[', b']') | (b'(', b')'))
}

/// The code inside a fence written as a value: past the language tag and the line break
/// after the opening fence, before the line break of the closing one.
fn fence_body(content: &str) -> &str {
    let tag = content
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '_')))
        .unwrap_or(content.len());
    let body = match content.get(tag..) {
        Some(rest) => rest
            .strip_prefix('\n')
            .or_else(|| rest.strip_prefix("\r\n"))
            .unwrap_or(content),
        None => content,
    };
    body.strip_suffix('\n')
        .map_or(body, |b| b.strip_suffix('\r').unwrap_or(b))
}

/// True when the byte at `i` of `b` is escaped: an odd number of backslashes before it.
fn escaped_at(b: &[u8], i: usize) -> bool {
    let before = b.get(..i).unwrap_or_default();
    before.iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}
