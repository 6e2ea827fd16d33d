//! Arrays and tuples: missing and extra commas, ellipses, `"key": value` without braces.

use super::{Ctx, Parser, Seg, Sink, bracket};
use crate::rules::RepairRule;

impl<S: Sink> Parser<'_, '_, S> {
    /// Reads an array at `[`, or a tuple at `(` (a tuple of one value without a comma is
    /// that value).
    pub fn array(&mut self) -> S::Val {
        self.array_or_tuple().0
    }

    /// Reads an array or a tuple; true when it was a tuple kept as an array (several values,
    /// or one and a comma).
    pub fn array_or_tuple(&mut self) -> (S::Val, bool) {
        let start = self.pos;
        let Some(opener) = self.peek() else {
            return (self.sink.null(), false);
        };
        if !self.open(opener) {
            return (self.sink.null(), false);
        }
        self.pos += 1;
        let mut items = self.sink.begin_array();
        let commas = self.elements(&mut items, opener);
        self.stack.pop();
        if opener != b'(' {
            return (self.sink.end_array(items, false), false);
        }
        self.record(RepairRule::Tuple, start, self.pos, "[...]");
        let unwrap = S::array_len(&items) == 1 && commas == 0;
        (self.sink.end_array(items, unwrap), !unwrap)
    }

    /// Reads elements until the array closes; returns the number of commas seen.
    fn elements(&mut self, items: &mut S::Arr, opener: u8) -> usize {
        let closer = if opener == b'(' { b')' } else { b']' };
        let mut commas = 0;
        while !self.stopped() {
            self.skip_blank();
            let at = self.pos;
            if self.at_stop() {
                self.record(RepairRule::MissingClosingBracket, at, at, bracket(closer));
                break;
            }
            match self.peek() {
                None => break,
                Some(c) if c == closer => {
                    self.pos += 1;
                    break;
                }
                Some(c @ (b']' | b')' | b'}')) => {
                    if self.close_mismatch(c, closer) {
                        break;
                    }
                }
                Some(b',') => self.stray_comma(closer),
                Some(b'.') if self.b.get(at..at + 3) == Some(b"...") => {
                    self.pos += 3;
                    self.record(RepairRule::Ellipsis, at, self.pos, "");
                    commas += usize::from(self.after_member());
                }
                _ => commas += usize::from(self.element(items, at)),
            }
        }
        commas
    }

    /// Reads one element; true when a comma followed it.
    fn element(&mut self, items: &mut S::Arr, at: usize) -> bool {
        self.path.push(Seg::Index(S::array_len(items)));
        let mark = self.sink.mark();
        let value = self.value(Ctx::Item);
        self.path.pop();
        let Some(value) = value else {
            if !self.stopped() {
                let len = self.text(at, at + 1).len().max(1);
                self.pos = at + len;
                self.record(RepairRule::StrayText, at, self.pos, "");
            }
            return false;
        };
        let value = if self.next_solid(self.pos).map(|(_, b)| b) == Some(b':') {
            match self.sink.take_string(value, mark, S::array_len(items)) {
                Ok(key) => self.braceless_object(key, at),
                Err(v) => v,
            }
        } else {
            value
        };
        self.sink.item(items, value);
        self.after_member()
    }

    /// `["key": "value"]`: an object whose opening brace is missing.
    fn braceless_object(&mut self, key: String, at: usize) -> S::Val {
        if !self.open(b'{') {
            return self.sink.null();
        }
        self.record(RepairRule::MissingOpeningBrace, at, at, "{");
        self.skip_blank();
        self.pos += 1;
        let mut map = self.sink.begin_object();
        self.member_value(&mut map, key, at);
        let mut set = Vec::new();
        self.members_since(&mut map, &mut set, at);
        self.stack.pop();
        self.sink.add_nulls(&mut map, set);
        self.sink.end_object(map)
    }
}
