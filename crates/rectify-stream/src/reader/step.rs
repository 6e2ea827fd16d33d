//! Values starting, tokens continuing across chunks, values completing.

use super::frame::{Frame, InArray, InObject, Span};
use super::members::Members;
use super::token::{Escape, StrScan, Token, is_json_number, scan_string, scan_word};
use super::{Completed, Grown, Mode, Observer, Reader};

impl Reader {
    /// The first byte of a value at `pos`.
    pub(super) fn start_value(&mut self, b: u8, observer: &mut impl Observer) {
        let start = self.pos;
        match b {
            b'{' => {
                observer.object_opened(self.view());
                self.open_container(true);
            }
            b'[' => self.open_container(false),
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
                members: Members::default(),
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
                            let end = if escape == Escape::None {
                                self.text.len()
                            } else {
                                escape_at
                            };
                            let grown = Grown {
                                start,
                                raw: &self.text[start + 1..end],
                                chars,
                            };
                            observer.string_grew(self.view(), grown);
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

    /// A string ended at `pos`: a key is kept for the path; a value is only checked. A
    /// string with an escape is read by serde_json (which rejects a bad escape or a lone
    /// surrogate); one without is taken as it is.
    fn string_done(&mut self, start: usize, key: bool, observer: &mut impl Observer) {
        let raw = &self.text[start..self.pos];
        let body = &raw[1..raw.len() - 1];
        let text = if body.contains('\\') {
            match serde_json::from_str::<String>(raw) {
                Ok(text) => text,
                Err(_) => {
                    return self.give_up(format!("the string at byte {start} has a bad escape"));
                }
            }
        } else if key {
            body.to_owned()
        } else {
            String::new()
        };
        if key {
            return self.key_done(text, observer);
        }
        self.complete(start, observer);
    }

    fn key_done(&mut self, text: String, observer: &mut impl Observer) {
        let repeated = matches!(self.stack.last(),
            Some(Frame::Object { members, .. }) if members.contains(&text));
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
        let fine = if number {
            is_json_number(raw.as_bytes())
        } else {
            matches!(raw, "true" | "false" | "null")
        };
        if !fine {
            let what = if number {
                "a JSON number"
            } else {
                "strict JSON"
            };
            return self.give_up(format!("`{raw}` at byte {start} is not {what}"));
        }
        self.complete(start, observer);
    }

    /// The container closing at `pos`; a comma just before it (read leniently) is noted.
    pub(super) fn close(&mut self, observer: &mut impl Observer) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        if frame.closed_after_comma() {
            self.trailing.push(self.comma);
        }
        let start = frame.start();
        self.pos += 1;
        self.complete(start, observer);
    }

    /// A value from `start` to `pos` has ended. The root is complete at once; any other
    /// value waits for the next byte, which must be a `,` or its container's closing bracket
    /// (the repair reads `1/3` or `"a"b"` as one string).
    fn complete(&mut self, start: usize, observer: &mut impl Observer) {
        let span = Span {
            start,
            end: self.pos,
        };
        if self.stack.is_empty() {
            observer.completed(self.view(), self.completed_at(span));
            self.root = Some(span);
            self.mode = Mode::Done;
            return;
        }
        self.pending = Some(span);
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
        if let Some(span) = self.pending.take() {
            self.settle(span, observer);
        }
    }

    /// A value is complete and final in its container: told to the observer, then kept.
    fn settle(&mut self, span: Span, observer: &mut impl Observer) {
        self.settled += 1;
        observer.completed(self.view(), self.completed_at(span));
        match self.stack.last_mut() {
            None => {}
            Some(Frame::Object {
                members,
                key,
                expect,
                ..
            }) => {
                if let Some(key) = key.take() {
                    members.insert(key, span);
                }
                *expect = InObject::Next;
            }
            Some(Frame::Array { items, expect, .. }) => {
                items.push(span);
                *expect = InArray::Next;
            }
        }
    }

    /// The complete value at `span`, for an observer.
    fn completed_at(&self, span: Span) -> Completed<'_> {
        Completed {
            raw: &self.text[span.start..span.end],
            trailing: &self.trailing,
            start: span.start,
        }
    }
}
