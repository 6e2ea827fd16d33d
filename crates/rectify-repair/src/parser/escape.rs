//! Escapes inside strings: JSON escapes decoded, surrogate pairs joined, invalid escapes
//! (`\d`, `\'`, a lone surrogate) kept or replaced, `\x41` and a backslash ending a line
//! read as JavaScript and Python read them, each recorded as `json.invalid_escape`.

use super::string::Str;
use super::{Parser, Sink};
use crate::rules::RepairRule;

impl<S: Sink> Parser<'_, '_, S> {
    /// Reads an escape sequence at the backslash.
    pub(super) fn escape(&mut self, st: &mut Str) {
        let at = self.pos;
        let Some(c) = self.byte_at(at + 1) else {
            // An escape cut off by the end of the text: half of it is not content.
            self.record(RepairRule::InvalidEscape, at, at + 1, "");
            self.pos += 1;
            return;
        };
        let decoded = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(st),
            // `\x41` (JavaScript, Python): the character of two hex digits.
            b'x' if let Some(c) = self.hex2(at + 2) => {
                let mut after = String::new();
                super::text::write_escaped(&mut after, c.encode_utf8(&mut [0; 4]));
                let after = after.trim_matches('"').to_owned();
                self.record(RepairRule::InvalidEscape, at, at + 4, &after);
                st.out.push(c);
                self.pos += 4;
                return;
            }
            // A backslash ending a line continues the string on the next (JavaScript,
            // Python, JSON5): neither is content.
            b'\n' | b'\r' => {
                let end = if self.b.get(at + 1..at + 3) == Some(b"\r\n") {
                    at + 3
                } else {
                    at + 2
                };
                self.record(RepairRule::InvalidEscape, at, end, "");
                self.pos = end;
                return;
            }
            b'\'' | b'`' => {
                self.record(
                    RepairRule::InvalidEscape,
                    at,
                    at + 2,
                    self.text(at + 1, at + 2),
                );
                char::from(c)
            }
            0xE2 if self.quote_at(at + 1).is_some() => {
                self.record(RepairRule::InvalidEscape, at, at + 1, "");
                self.pos += 1;
                return;
            }
            _ => {
                self.record(RepairRule::InvalidEscape, at, at + 2, "\\\\");
                st.out.push('\\');
                self.pos += 1;
                return;
            }
        };
        st.out.push(decoded);
        self.pos += 2;
    }

    fn hex2(&self, at: usize) -> Option<char> {
        let digits = self.b.get(at..at + 2)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let text = std::str::from_utf8(digits).ok()?;
        char::from_u32(u32::from_str_radix(text, 16).ok()?)
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.b.get(at..at + 4)?;
        let text = std::str::from_utf8(digits).ok()?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(text, 16).ok()
    }

    fn unicode_escape(&mut self, st: &mut Str) {
        let at = self.pos;
        let Some(code) = self.hex4(at + 2) else {
            let rest = self.b.get(at + 2..).unwrap_or_default();
            if rest.len() < 4 && rest.iter().all(u8::is_ascii_hexdigit) {
                // `"\u26` cut off by the end of the text: the escape is dropped, recorded.
                self.record(RepairRule::InvalidEscape, at, self.b.len(), "");
                self.pos = self.b.len();
                return;
            }
            self.record(RepairRule::InvalidEscape, at, at + 2, "\\\\u");
            st.out.push('\\');
            self.pos += 1;
            return;
        };
        self.pos += 6;
        if (0xD800..0xDC00).contains(&code)
            && self.b.get(self.pos..self.pos + 2) == Some(b"\\u")
            && let Some(low) = self.hex4(self.pos + 2)
            && (0xDC00..0xE000).contains(&low)
        {
            self.pos += 6;
            let c = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            st.out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
            return;
        }
        if let Some(c) = char::from_u32(code) {
            st.out.push(c);
        } else {
            self.record(RepairRule::InvalidEscape, at, self.pos, "\u{fffd}");
            st.out.push('\u{fffd}');
        }
    }
}
