//! Arrays and tuples: missing and extra commas, ellipses, `"key": value` without braces.

use serde_json::{Map, Value};

use super::{Ctx, Parser, Seg};
use crate::rules::Rule;

impl Parser<'_> {
    /// Reads an array at `[`, or a tuple at `(` (a tuple of one value without a comma is
    /// that value).
    pub fn array(&mut self) -> Value {
        let start = self.pos;
        let Some(opener) = self.peek() else {
            return Value::Null;
        };
        if !self.open(opener) {
            return Value::Null;
        }
        self.pos += 1;
        let mut items = Vec::new();
        let commas = self.elements(&mut items, opener);
        self.stack.pop();
        if opener != b'(' {
            return Value::Array(items);
        }
        self.record(Rule::Tuple, start, self.pos, "[...]");
        if items.len() == 1 && commas == 0 {
            return items.pop().unwrap_or(Value::Null);
        }
        Value::Array(items)
    }

    /// Reads elements until the array closes; returns the number of commas seen.
    fn elements(&mut self, items: &mut Vec<Value>, opener: u8) -> usize {
        let closer = if opener == b'(' { b')' } else { b']' };
        let mut commas = 0;
        while self.fatal.is_none() {
            self.skip_blank();
            let at = self.pos;
            if self.at_stop() {
                let wanted = char::from(closer).to_string();
                self.record(Rule::MissingClosingBracket, at, at, &wanted);
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
                    self.record(Rule::Ellipsis, at, self.pos, "");
                    commas += usize::from(self.after_member());
                }
                _ => commas += usize::from(self.element(items, at)),
            }
        }
        commas
    }

    /// Reads one element; true when a comma followed it.
    fn element(&mut self, items: &mut Vec<Value>, at: usize) -> bool {
        self.path.push(Seg::Index(items.len()));
        let value = self.value(Ctx::Item);
        self.path.pop();
        let Some(value) = value else {
            if self.fatal.is_none() {
                let len = self.text(at, at + 1).len().max(1);
                self.pos = at + len;
                self.record(Rule::StrayText, at, self.pos, "");
            }
            return false;
        };
        let value = match value {
            Value::String(key) if self.next_solid(self.pos).map(|(_, b)| b) == Some(b':') => {
                self.braceless_object(key, at)
            }
            v => v,
        };
        items.push(value);
        self.after_member()
    }

    /// `["key": "value"]`: an object whose opening brace is missing.
    fn braceless_object(&mut self, key: String, at: usize) -> Value {
        if !self.open(b'{') {
            return Value::Null;
        }
        self.record(Rule::MissingOpeningBrace, at, at, "{");
        self.skip_blank();
        self.pos += 1;
        let mut map = Map::new();
        self.member_value(&mut map, key, at);
        let mut set = Vec::new();
        self.members(&mut map, &mut set);
        self.stack.pop();
        for key in set {
            map.entry(key).or_insert(Value::Null);
        }
        Value::Object(map)
    }
}
