//! Unquoted values: keywords in any case, Python and JavaScript literals, numbers in loose
//! formats, call wrappers such as `ObjectId("...")`, string concatenation, and plain text.

use super::text::write_escaped;
use super::{Ctx, Parser, Sink, is_word_byte};
use crate::number::normalize_number;
use crate::rules::RepairRule;

impl<S: Sink> Parser<'_, '_, S> {
    /// Reads an unquoted value.
    pub fn scalar(&mut self, ctx: Ctx) -> Option<S::Val> {
        let start = self.pos;
        let end = self.scan_token(ctx);
        let word = self.text(start, end).trim_end();
        if word.is_empty() {
            return None;
        }
        let word_end = start + word.len();
        self.pos = word_end;
        if self.peek() == Some(b'(') && callee(word).bytes().all(is_word_byte) {
            return Some(self.call(start));
        }
        if self.peek() == Some(b'"') && (ctx != Ctx::Top || self.blank_from(self.pos + 1)) {
            self.pos += 1;
            self.record(RepairRule::MissingOpeningQuote, word_end, self.pos, "");
        }
        if word.bytes().all(|b| matches!(b, b'-' | b'+' | b'.')) && word != "..." {
            self.record(RepairRule::StrayText, start, word_end, "");
            return None;
        }
        if let Some(v) = self.keyword(word, start, word_end) {
            return Some(v);
        }
        if let Some(v) = self.truncated_literal(word, start, word_end) {
            return Some(v);
        }
        if let Some(v) = self.number(word, start, word_end) {
            return Some(v);
        }
        if word == "..." {
            self.record(RepairRule::Ellipsis, start, word_end, "");
            return None;
        }
        let mut quoted = String::with_capacity(word.len() + 2);
        write_escaped(&mut quoted, word);
        let one_word = !word.contains(char::is_whitespace);
        let rule = if one_word || (ctx == Ctx::Member && plain_words(word)) {
            RepairRule::UnquotedValue
        } else {
            RepairRule::UnquotedText
        };
        self.record(rule, start, word_end, &quoted);
        let mut text = self.sink.scratch();
        text.push_str(word);
        Some(self.sink.string(text))
    }

    /// End of an unquoted token: up to a delimiter of the context, with brackets inside the
    /// token balanced (`words{in braces}`).
    fn scan_token(&self, ctx: Ctx) -> usize {
        let number_byte = |b: u8| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.');
        // A number ends at a blank; text that only starts with digits (`404abc def`) does not.
        let mut numeric = self.peek().is_some_and(number_byte);
        let mut nest = 0usize;
        // Whether the token holds two words yet: only then may it be prose.
        let mut spaced = false;
        let mut i = self.pos;
        while let Some(b) = self.byte_at(i) {
            match b {
                b'0'..=b'9' => {}
                b'/' if self.comment_at(i, numeric) => break,
                b'{' | b'[' if numeric => break,
                // `ObjectId(`: a call; `This is F(3)`: text with brackets in it.
                b'(' if nest == 0
                    && i > self.pos
                    && callee(self.text(self.pos, i).trim_end())
                        .bytes()
                        .all(is_word_byte) =>
                {
                    break;
                }
                b'{' | b'[' | b'(' => nest += 1,
                b'}' | b']' | b')' if nest > 0 => nest -= 1,
                // `description: Landing page, with hero`: prose goes on past a comma or a
                // line break that no next member follows.
                b',' | b'\n' | b'\r'
                    if spaced && ctx == Ctx::Member && nest == 0 && self.prose_goes_on(i) => {}
                b'}' | b']' | b')' | b',' | b'"' | b'\n' | b'\r' => break,
                b':' if ctx == Ctx::Item && self.b.get(i + 1..i + 3) != Some(b"//") => break,
                // `1;` at the end of the text: a statement's semicolon, not part of the value.
                b';' if ctx == Ctx::Top && self.blank_from(i + 1) => break,
                // `[true null 42]`: a keyword is a value of its own in a list.
                b' ' | b'\t'
                    if ctx == Ctx::Item
                        && is_keyword(self.text(self.pos, i))
                        && self.value_follows(i) =>
                {
                    break;
                }
                // `123 Main St`: a number followed by words is text.
                b if numeric && b.is_ascii_whitespace() => {
                    let word = ctx == Ctx::Member
                        && self
                            .next_solid(i)
                            .is_some_and(|(_, b)| b.is_ascii_alphabetic());
                    if !(word && self.prose_follows(i)) {
                        break;
                    }
                }
                _ => {}
            }
            spaced |= b != b' ' && i > self.pos && self.byte_at(i - 1) == Some(b' ');
            numeric &= number_byte(b) || matches!(b, b'e' | b'E' | b'_');
            i += 1;
        }
        i
    }

    /// At a comma or line break at `i` inside an unquoted member value of several words
    /// (the caller knows): true when the value is not a number and what follows is more
    /// prose, not the next member (`key:`, a quoted key), a closing bracket, a comment or the
    /// end of the text.
    fn prose_goes_on(&self, i: usize) -> bool {
        let numeric = self
            .byte_at(self.pos)
            .is_some_and(|b| b.is_ascii_digit() || b == b'-');
        !numeric && self.prose_follows(i + 1)
    }

    /// True when prose starts at the first non-blank byte from `from`: a word not followed
    /// by `:`, `=` or a quote (a key), or punctuation that starts no value.
    fn prose_follows(&self, from: usize) -> bool {
        let Some((next, b)) = self.next_solid(from) else {
            return false;
        };
        if !(is_word_byte(b) || matches!(b, b'*' | b'(' | b'-' | b'.' | b'!' | b'?')) {
            return false;
        }
        let mut end = next;
        while self.byte_at(end).is_some_and(is_word_byte) {
            end += 1;
        }
        while self.byte_at(end) == Some(b' ') {
            end += 1;
        }
        !matches!(self.byte_at(end), Some(b':' | b'"' | b'=') | None)
    }

    /// True when a value that is not a plain word starts at the first non-blank byte from
    /// `from`: a quote, a bracket, a number or a keyword.
    fn value_follows(&self, from: usize) -> bool {
        let Some((next, b)) = self.next_solid(from) else {
            return false;
        };
        if matches!(b, b'"' | b'\'' | b'{' | b'[' | b'-') || b.is_ascii_digit() {
            return true;
        }
        let mut end = next;
        while self.byte_at(end).is_some_and(is_word_byte) {
            end += 1;
        }
        is_keyword(self.text(next, end))
    }

    /// True when a comment starts at the `/` at `i` inside a token: `/*` anywhere, `//` after
    /// a number, at the token's start or after a blank (not in `http://`).
    fn comment_at(&self, i: usize, numeric: bool) -> bool {
        match self.byte_at(i + 1) {
            Some(b'*') => true,
            Some(b'/') => numeric || i == self.pos || self.byte_at(i - 1) == Some(b' '),
            _ => false,
        }
    }

    fn keyword(&mut self, word: &str, start: usize, end: usize) -> Option<S::Val> {
        let (value, rule) = match word {
            "true" => return Some(self.sink.boolean(true)),
            "false" => return Some(self.sink.boolean(false)),
            "null" => return Some(self.sink.null()),
            "True" => (Some(true), RepairRule::PythonLiteral),
            "False" => (Some(false), RepairRule::PythonLiteral),
            "None" => (None, RepairRule::PythonLiteral),
            "undefined" => (None, RepairRule::Undefined),
            "NaN" | "Infinity" | "-Infinity" | "+Infinity" | "-NaN" | "+NaN" => {
                (None, RepairRule::NonFiniteNumber)
            }
            w if w.eq_ignore_ascii_case("true") => (Some(true), RepairRule::KeywordCase),
            w if w.eq_ignore_ascii_case("false") => (Some(false), RepairRule::KeywordCase),
            w if w.eq_ignore_ascii_case("null") => (None, RepairRule::KeywordCase),
            w if spaced_non_finite(w) => (None, RepairRule::NonFiniteNumber),
            _ => return None,
        };
        Some(self.literal(rule, start, end, value))
    }

    /// Records `rule` for a literal written as `true`, `false` (`Some`) or `null` (`None`).
    fn literal(
        &mut self,
        rule: RepairRule,
        start: usize,
        end: usize,
        value: Option<bool>,
    ) -> S::Val {
        let after = match value {
            Some(true) => "true",
            Some(false) => "false",
            None => "null",
        };
        self.record(rule, start, end, after);
        match value {
            Some(b) => self.sink.boolean(b),
            None => self.sink.null(),
        }
    }

    /// `tru` at the very end of the text: a keyword cut off.
    fn truncated_literal(&mut self, word: &str, start: usize, end: usize) -> Option<S::Val> {
        if end < self.b.len() {
            return None;
        }
        let value = [("true", Some(true)), ("false", Some(false)), ("null", None)]
            .into_iter()
            .find(|(k, _)| k.len() > word.len() && k.starts_with(word))?
            .1;
        Some(self.literal(RepairRule::TruncatedLiteral, start, end, value))
    }

    fn number(&mut self, word: &str, start: usize, end: usize) -> Option<S::Val> {
        let first = word.as_bytes().first()?;
        if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
            return None;
        }
        if let Some(n) = self.sink.number(word) {
            return Some(n);
        }
        let (text, rule) = normalize_number(word)?;
        if rule == RepairRule::LeadingZeros {
            // `007`, a ZIP code or an identifier: kept as written, as a string.
            let mut quoted = String::with_capacity(word.len() + 2);
            write_escaped(&mut quoted, word);
            self.record(rule, start, end, &quoted);
            let mut s = self.sink.scratch();
            s.push_str(word);
            return Some(self.sink.string(s));
        }
        let n = self.sink.number(&text)?;
        self.record(rule, start, end, &text);
        Some(n)
    }

    /// `Name(args)`: a call wrapper around a value, such as `ObjectId("...")`.
    fn call(&mut self, start: usize) -> S::Val {
        // `new NumberInt()`: a call with no argument holds no value.
        if let Some((close, b')')) = self.next_solid(self.pos + 1) {
            self.pos = close + 1;
            self.record(RepairRule::CallWrapper, start, self.pos, "null");
            return self.sink.null();
        }
        let mark = self.sink.mark();
        let logged = (self.repairs.len(), self.unrecorded);
        let (value, several) = self.array_or_tuple();
        // After a fatal error the value path renders the partly built value, which written
        // text does not hold: the streaming parse gives up (there is no value either way).
        if self.fatal.is_some() && self.bail() {
            return value;
        }
        if several && self.pos > 0 && self.byte_at(self.pos - 1) == Some(b')') {
            return self.call_text(start, value, mark, logged);
        }
        let after = self.sink.rendered(&value, mark);
        self.record(RepairRule::CallWrapper, start, self.pos, &after);
        value
    }

    /// `foo(1, 2)`: a call of several arguments is an expression, not a wrapper around a
    /// value; it is kept as written, as a string (the repairs made inside it are forgotten).
    fn call_text(
        &mut self,
        start: usize,
        value: S::Val,
        mark: usize,
        (logged, unrecorded): (usize, usize),
    ) -> S::Val {
        self.repairs.truncate(logged);
        self.unrecorded = unrecorded;
        let text = self.text(start, self.pos);
        let mut quoted = String::with_capacity(text.len() + 2);
        write_escaped(&mut quoted, text);
        self.record(RepairRule::UnquotedText, start, self.pos, &quoted);
        let mut s = self.sink.scratch();
        s.push_str(text);
        self.sink.replace_with_string(value, mark, s)
    }

    /// `"a" + "b"`: joins concatenated strings.
    pub fn concatenation(&mut self, mut s: String, ctx: Ctx) -> S::Val {
        while let Some((plus, b'+')) = self.solid_past_comments(self.pos)
            && let Some((q, _)) = self.solid_past_comments(plus + 1)
            && self.quote_at(q).is_some()
        {
            let at = self.pos;
            self.pos = q;
            let more = self.string(ctx);
            self.record(RepairRule::StringConcatenation, at, q, "");
            s.push_str(&more);
        }
        self.skip_cut_concat();
        self.sink.string(s)
    }
}

/// `- Infinity`, `+ NaN`: a sign, white space, then a non-finite number.
/// True when `word`, a member's unquoted value, is one word or several with no delimiter
/// inside (`New York`): it ended at the first comma, bracket or line break, so where it
/// ends is not a guess. Text holding a comma, colon, semicolon, bracket, quote, line break,
/// `#` or `/` (a comment may start there), or a keyword (a value of its own), went on past a
/// place where another reading could start.
fn plain_words(word: &str) -> bool {
    let delimiter = [
        ',', ':', ';', '\n', '\r', '{', '[', '(', '"', '\'', '`', '#', '/',
    ];
    // A keyword among the words (`true false`, `null null`) may be values of their own.
    !word.contains(delimiter)
        && !word
            .split_whitespace()
            .any(|w| is_keyword(w) || spaced_non_finite(w) || w.eq_ignore_ascii_case("undefined"))
}

pub(crate) fn spaced_non_finite(word: &str) -> bool {
    word.strip_prefix(['-', '+'])
        .filter(|rest| rest.starts_with(char::is_whitespace))
        .is_some_and(|rest| matches!(rest.trim_start(), "Infinity" | "NaN"))
}

/// True for the literals a list may hold unquoted: `true`, `false`, `null` and their
/// Python spellings.
fn is_keyword(word: &str) -> bool {
    matches!(word, "true" | "false" | "null" | "True" | "False" | "None")
}

/// The name of a call written `Name(...)` or `new Name(...)`.
fn callee(word: &str) -> &str {
    word.strip_prefix("new ")
        .or_else(|| word.strip_prefix("NEW "))
        .unwrap_or(word)
}
