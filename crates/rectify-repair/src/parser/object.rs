//! Objects: missing and extra commas, colons and braces, unquoted keys, set-like objects.

use super::string::closes;
use super::{Ctx, Parser, Seg, Sink, WINDOW, bracket};
use crate::rules::RepairRule;

impl<S: Sink> Parser<'_, '_, S> {
    /// Reads an object starting at `{`.
    pub fn object(&mut self) -> S::Val {
        if !self.open(b'{') {
            return self.sink.null();
        }
        self.pos += 1;
        let mut map = self.sink.begin_object();
        let mut set = Vec::new();
        self.members(&mut map, &mut set);
        self.stack.pop();
        self.finish_object(map, set)
    }

    fn finish_object(&mut self, mut map: S::Obj, set: Vec<String>) -> S::Val {
        if set.is_empty() {
            return self.sink.end_object(map);
        }
        if S::object_len(&map) == 0 {
            self.record(RepairRule::SetToArray, self.pos, self.pos, "[...]");
            return self.sink.strings(map, set);
        }
        for _ in &set {
            self.record(RepairRule::MissingValue, self.pos, self.pos, "null");
        }
        self.sink.add_nulls(&mut map, set);
        self.sink.end_object(map)
    }

    /// Reads members into `map` until the object closes; keys without values go to `set`.
    pub fn members(&mut self, map: &mut S::Obj, set: &mut Vec<String>) {
        self.members_since(map, set, self.pos);
    }

    /// [`Self::members`] of an object whose earlier members start at `start` (an object
    /// reopened, or one whose first member was read before its brace was known missing).
    pub fn members_since(&mut self, map: &mut S::Obj, set: &mut Vec<String>, start: usize) {
        let outer = std::mem::replace(&mut self.members_start, start);
        self.each_member(map, set);
        self.members_start = outer;
    }

    fn each_member(&mut self, map: &mut S::Obj, set: &mut Vec<String>) {
        while !self.stopped() {
            self.skip_blank();
            let at = self.pos;
            if self.at_stop() {
                self.record(RepairRule::MissingClosingBracket, at, at, "}");
                return;
            }
            match self.peek() {
                None => return,
                Some(b'}') => {
                    self.pos += 1;
                    return;
                }
                Some(c @ (b']' | b')')) => {
                    if self.close_mismatch(c, b'}') {
                        return;
                    }
                }
                Some(b',') => self.stray_comma(b'}'),
                // `{"a": 1, ...}`: a placeholder for members left out, as in a list.
                Some(b'.') if self.b.get(at..at + 3) == Some(b"...") => {
                    self.pos += 3;
                    self.record(RepairRule::Ellipsis, at, self.pos, "");
                    self.after_member();
                }
                Some(b':') => {
                    self.pos += 1;
                    self.record(RepairRule::StrayText, at, at + 1, "");
                }
                Some(b'{') if self.in_array_object() => {
                    self.close_before_object(at);
                    return;
                }
                Some(b'[' | b'{') => self.value_in_key_position(map, at),
                _ => self.member(map, set),
            }
            if self.pos == at && !self.stopped() {
                // Nothing read (a character no rule takes, such as a vertical tab where a key
                // should be): it is stray text, so the loop always moves on.
                let len = self
                    .src
                    .get(at..)
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                self.pos = at + len;
                self.record(RepairRule::StrayText, at, self.pos, "");
            }
        }
    }

    /// A closing bracket of the wrong kind: if an enclosing container wants it, the current
    /// one was left open; otherwise it was meant to close the current one, unless a comma
    /// follows (then it is an extra bracket). True when the current container is closed.
    pub fn close_mismatch(&mut self, found: u8, wanted: u8) -> bool {
        let at = self.pos;
        let opener = match found {
            b'}' => b'{',
            b']' => b'[',
            _ => b'(',
        };
        let wanted = bracket(wanted);
        if self.ancestor_opened(opener) {
            self.record(RepairRule::MissingClosingBracket, at, at, wanted);
            return true;
        }
        self.pos += 1;
        if self.next_solid(self.pos).map(|(_, b)| b) == Some(b',') {
            self.record(RepairRule::ExtraClosingBracket, at, at + 1, "");
            return false;
        }
        self.record(RepairRule::MismatchedBracket, at, at + 1, wanted);
        true
    }

    /// True when the innermost container is an object inside an array.
    fn in_array_object(&self) -> bool {
        let n = self.stack.len();
        n >= 2 && self.stack[n - 1] == b'{' && self.stack[n - 2] == b'['
    }

    /// `[{"x": 1, {"x": 2}]`: an object starts where a key should be, inside an object in
    /// an array; the current object was not closed. It closes before the comma that ended
    /// its last member (which then separates the elements), or before the `{`.
    fn close_before_object(&mut self, at: usize) {
        let before = self.b.get(..at).unwrap_or_default();
        let blank = before
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let comma = at - blank;
        let close = if comma > 0 && self.byte_at(comma - 1) == Some(b',') {
            comma - 1
        } else {
            at
        };
        self.record(RepairRule::MissingClosingBracket, close, close, "}");
        self.pos = close;
    }

    /// A comma where no value precedes it: leading, doubled or trailing.
    pub fn stray_comma(&mut self, closer: u8) {
        let at = self.pos;
        self.pos += 1;
        let next = self.next_solid(self.pos).map(|(_, b)| b);
        let trailing = next.is_none_or(|b| b == closer || matches!(b, b'}' | b']' | b')'));
        let rule = if trailing {
            RepairRule::TrailingComma
        } else {
            RepairRule::ExtraComma
        };
        self.record(rule, at, at + 1, "");
    }

    /// An array or object where a key should be: `{"a": [1], [2]}` continues the previous
    /// array; anything else is dropped.
    fn value_in_key_position(&mut self, map: &mut S::Obj, at: usize) {
        let mark = self.sink.mark();
        let value = self.value(Ctx::Member);
        if self.sink.continue_array(map, value, mark) {
            self.record(RepairRule::ArrayContinuation, at, self.pos, "");
        } else {
            self.record(RepairRule::StrayText, at, self.pos, "");
        }
        self.after_member();
    }

    fn member(&mut self, map: &mut S::Obj, set: &mut Vec<String>) {
        let key_start = self.pos;
        let Some((key, quoted)) = self.key() else {
            return;
        };
        self.skip_blank();
        match self.peek() {
            Some(b':') => self.pos += 1,
            None => {
                self.record(RepairRule::TruncatedMember, key_start, self.pos, "");
                return;
            }
            Some(b',' | b'}') => {
                if quoted {
                    set.push(key);
                } else {
                    self.record(RepairRule::StrayText, key_start, self.pos, "");
                }
                if self.peek() == Some(b',') {
                    self.pos += 1;
                }
                return;
            }
            Some(b'=') => {
                // `"a" = 1`, `"a" => 1`: an assignment or a hash rocket in place of the colon.
                let len = if self.byte_at(self.pos + 1) == Some(b'>') {
                    2
                } else {
                    1
                };
                self.record(RepairRule::MissingColon, self.pos, self.pos + len, ":");
                self.pos += len;
            }
            Some(_) => self.record(RepairRule::MissingColon, self.pos, self.pos, ":"),
        }
        self.member_value(map, key, key_start);
    }

    /// Reads the value of member `key` and inserts it.
    pub fn member_value(&mut self, map: &mut S::Obj, key: String, key_start: usize) {
        if !self.sink.key(map, &key) {
            self.bailed = true;
            return;
        }
        self.path.push(Seg::Key(key));
        let value = self.value(Ctx::Member);
        if value.is_none() && !self.stopped() {
            self.record(RepairRule::MissingValue, self.pos, self.pos, "null");
        }
        let Some(Seg::Key(key)) = self.path.pop() else {
            return;
        };
        if self.stopped() {
            return;
        }
        let value = match value {
            Some(v) => v,
            None => self.sink.null(),
        };
        if self.sink.member(map, key, value) {
            // The record covers the earlier member too: its value is the one dropped.
            let start = self.members_start.min(key_start);
            self.record(RepairRule::DuplicateKey, start, self.pos, "");
        }
        self.after_member();
    }

    /// After a member or element: a comma, a closing bracket or a missing comma.
    pub fn after_member(&mut self) -> bool {
        self.skip_blank();
        match self.peek() {
            Some(b',') => {
                let at = self.pos;
                self.pos += 1;
                self.skip_blank();
                let closing = self
                    .peek()
                    .is_none_or(|b| self.stack.last().is_some_and(|&o| closes(o, b)));
                if closing {
                    self.record(RepairRule::TrailingComma, at, at + 1, "");
                }
                true
            }
            Some(b'}' | b']' | b')') | None => false,
            Some(b'{') if self.in_array_object() => false,
            Some(_) => {
                self.record(RepairRule::MissingComma, self.pos, self.pos, ",");
                false
            }
        }
    }

    /// Reads a key: quoted, unquoted, or prefixed by stray words (`COMMENT "key"`).
    fn key(&mut self) -> Option<(String, bool)> {
        if self.quote_at(self.pos).is_some() {
            return Some((self.string(Ctx::Key), true));
        }
        let start = self.pos;
        let mut end = start;
        while self
            .byte_at(end)
            .is_some_and(|b| !matches!(b, b':' | b',' | b'}' | b']' | b'{' | b'[' | b'"' | b'\n'))
        {
            end += 1;
        }
        let word = self.text(start, end).trim_end();
        if word.is_empty() {
            let len = self.text(start, start + 1).len().max(1);
            self.pos = start + len;
            self.record(RepairRule::StrayText, start, self.pos, "");
            return None;
        }
        let word = self.first_word_before_quote(word);
        let word_end = start + word.len();
        self.pos = word_end;
        if let Some((q, _)) = self.next_solid(word_end)
            && self.quote_at(q).is_some()
        {
            if q == word_end && self.byte_at(q) == Some(b'"') && self.colon_after(q + 1) {
                // `name":` — the key's opening quote is missing.
                self.pos = q + 1;
                self.record_quoted(RepairRule::MissingOpeningQuote, start, self.pos, word);
                return Some((self.owned_key(word), true));
            }
            let closed = self.quoted_end(q);
            if closed.is_none_or(|end| self.colon_after(end)) {
                // `COMMENT "key":` — words before the key.
                self.record(RepairRule::StrayText, start, q, "");
                self.pos = q;
                return Some((self.string(Ctx::Key), true));
            }
            // `k 'v'` — a key whose colon is missing; the quoted text is its value.
        }
        self.record_quoted(RepairRule::UnquotedKey, start, word_end, word);
        Some((self.owned_key(word), false))
    }

    fn owned_key(&mut self, word: &str) -> String {
        let mut key = self.sink.scratch();
        key.push_str(word);
        key
    }

    /// `k 'v'`: the first word of an unquoted key when blank and a quote follow it (the
    /// key's colon is missing); otherwise the whole `word`.
    fn first_word_before_quote<'w>(&self, word: &'w str) -> &'w str {
        let Some(blank) = word.find(char::is_whitespace) else {
            return word;
        };
        let rest = word.get(blank..).unwrap_or("").trim_start();
        let at = self.pos + (word.len() - rest.len());
        if self.quote_at(at).is_some() {
            word.get(..blank).unwrap_or(word)
        } else {
            word
        }
    }

    /// True when the next solid byte at or after `at` is `:`.
    fn colon_after(&self, at: usize) -> bool {
        self.next_solid(at).is_some_and(|(_, b)| b == b':')
    }

    /// One past the quote closing the string opened at `q`, when it closes within the
    /// window.
    fn quoted_end(&self, q: usize) -> Option<usize> {
        let (quote, len) = self.quote_at(q)?;
        let limit = (q + WINDOW).min(self.b.len());
        (q + len..limit).find_map(|i| match self.quote_at(i) {
            Some((other, n)) if other == quote => Some(i + n),
            _ => None,
        })
    }
}
