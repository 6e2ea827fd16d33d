//! Values starting, tokens continuing across chunks, values completing.

use serde_json::{Map, Value};

use super::frame::{Frame, InArray, InObject};
use super::token::{Escape, StrScan, Token, scan_string, scan_word};
use super::{Mode, Observer, Reader};

impl Reader {
    /// The first byte of a value at `pos`.
    pub(super) fn start_value(&mut self, b: u8) {
        let start = self.pos;
        match b {
            b'{' | b'[' => self.open_container(b == b'{'),
            b'"' => self.open_token(Token::Str {
                start,
                key: false,
                escape: Escape::None,
                escape_at: 0,
                chars: 0,
            }),
            b'-' | b'0'..=b'9' => self.open_token(Token::Number { start }),
            b't' | b'f' | b'n' => self.open_token(Token::Literal { start }),
            _ => self.unexpected(b),
        }
    }

    fn open_container(&mut self, object: bool) {
        if self.stack.len() >= self.options.max_depth {
            let depth = self.options.max_depth;
            return self.give_up(format!("the value nests deeper than {depth} levels"));
        }
        let start = self.pos;
        self.stack.push(if object {
            Frame::Object {
                start,
                map: Map::new(),
                key: None,
                expect: InObject::Key { close: true },
            }
        } else {
            Frame::Array {
                start,
                items: Vec::new(),
                expect: InArray::Item { close: true },
            }
        });
        self.pos += 1;
    }

    pub(super) fn open_token(&mut self, token: Token) {
        self.token = Some(token);
        // A string's scan starts after its quote; numbers and literals at their first byte.
        if matches!(token, Token::Str { .. }) {
            self.pos += 1;
        }
    }

    /// Scans the open token over the new text; false when the text ran out first.
    pub(super) fn continue_token(&mut self, token: Token, observer: &mut impl Observer) -> bool {
        match token {
            Token::Str {
                start,
                key,
                mut escape,
                mut escape_at,
                mut chars,
            } => {
                let scan = scan_string(
                    self.text.as_bytes(),
                    self.pos,
                    &mut escape,
                    &mut escape_at,
                    &mut chars,
                );
                match scan {
                    StrScan::End(end) => {
                        self.token = None;
                        self.pos = end + 1;
                        self.string_done(start, key, observer);
                    }
                    StrScan::More => {
                        self.pos = self.text.len();
                        self.token = Some(Token::Str {
                            start,
                            key,
                            escape,
                            escape_at,
                            chars,
                        });
                        if !key {
                            observer.string_grew(self.view(), chars);
                        }
                        return false;
                    }
                    StrScan::Control => {
                        self.give_up(format!(
                            "a control character in the string at byte {start} is not strict JSON"
                        ));
                    }
                }
            }
            Token::Number { start } | Token::Literal { start } => {
                let number = matches!(token, Token::Number { .. });
                let Some(end) = scan_word(self.text.as_bytes(), self.pos, number) else {
                    self.pos = self.text.len();
                    return false;
                };
                self.token = None;
                self.pos = end;
                self.word_done(start, end, number, observer);
            }
        }
        self.reading()
    }

    fn string_done(&mut self, start: usize, key: bool, observer: &mut impl Observer) {
        let raw = &self.text[start..self.pos];
        let Ok(text) = serde_json::from_str::<String>(raw) else {
            return self.give_up(format!("the string at byte {start} has a bad escape"));
        };
        if key {
            return self.key_done(text, observer);
        }
        self.complete(Value::String(text), start, observer);
    }

    fn key_done(&mut self, text: String, observer: &mut impl Observer) {
        let repeated =
            matches!(self.stack.last(), Some(Frame::Object { map, .. }) if map.contains_key(&text));
        if repeated {
            observer.repeated_key(self.view(), &text);
        }
        if let Some(Frame::Object { key, expect, .. }) = self.stack.last_mut() {
            *key = Some(text);
            *expect = InObject::Colon;
        }
    }

    fn word_done(&mut self, start: usize, end: usize, number: bool, observer: &mut impl Observer) {
        let raw = &self.text[start..end];
        let value = match (number, raw) {
            (false, "true") => Value::Bool(true),
            (false, "false") => Value::Bool(false),
            (false, "null") => Value::Null,
            (true, _) => match serde_json::from_str::<serde_json::Number>(raw) {
                Ok(n) => Value::Number(n),
                Err(_) => {
                    return self.give_up(format!("`{raw}` at byte {start} is not a JSON number"));
                }
            },
            _ => return self.give_up(format!("`{raw}` at byte {start} is not strict JSON")),
        };
        self.complete(value, start, observer);
    }

    /// The container closing at `pos`.
    pub(super) fn close(&mut self, observer: &mut impl Observer) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let start = frame.start();
        self.pos += 1;
        self.complete(frame.into_value(), start, observer);
    }

    /// A value from `start` to `pos` has ended. The root is complete at once; any other
    /// value waits for the next byte, which must be a `,` or its container's closing bracket
    /// (the repair reads `1/3` or `"a"b"` as one string).
    fn complete(&mut self, value: Value, start: usize, observer: &mut impl Observer) {
        if self.stack.is_empty() {
            observer.completed(self.view(), &value, &self.text[start..self.pos]);
            self.root = Some(value);
            self.mode = Mode::Done;
            return;
        }
        self.pending = Some(Pending {
            value,
            start,
            end: self.pos,
        });
    }

    /// The byte `b` after an ended value: settles it when `b` may follow it, else stops.
    pub(super) fn follow(&mut self, b: u8, observer: &mut impl Observer) {
        let fits = match self.stack.last() {
            Some(Frame::Object { .. }) => matches!(b, b',' | b'}'),
            Some(Frame::Array { .. }) => matches!(b, b',' | b']'),
            None => true,
        };
        if !fits {
            return self.unexpected(b);
        }
        if let Some(pending) = self.pending.take() {
            self.settle(pending, observer);
        }
    }

    /// A value is complete and final in its container: told to the observer, then kept.
    fn settle(&mut self, pending: Pending, observer: &mut impl Observer) {
        let Pending { value, start, end } = pending;
        self.settled += 1;
        observer.completed(self.view(), &value, &self.text[start..end]);
        match self.stack.last_mut() {
            None => {}
            Some(Frame::Object {
                map, key, expect, ..
            }) => {
                if let Some(key) = key.take() {
                    map.insert(key, value);
                }
                *expect = InObject::Next;
            }
            Some(Frame::Array { items, expect, .. }) => {
                items.push(value);
                *expect = InArray::Next;
            }
        }
    }
}

/// A value that has ended and waits for the byte after it.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) value: Value,
    start: usize,
    end: usize,
}
