//! JavaScript regular expression literals (`/[a-z]+/i`) read as strings, as written.

use super::{Parser, Sink};
use crate::rules::RepairRule;

impl<S: Sink> Parser<'_, '_, S> {
    /// Reads the regular expression literal at the current position as a string holding its
    /// text (slashes and flags included); `None`, with nothing consumed, when none starts
    /// here.
    pub fn regex(&mut self) -> Option<S::Val> {
        let start = self.pos;
        let end = regex_end(self.b, start)?;
        let ends_value = self
            .next_solid(end)
            .is_none_or(|(_, b)| matches!(b, b',' | b'}' | b']' | b')' | b';'));
        if !ends_value {
            return None;
        }
        let text = self.text(start, end).to_owned();
        let mut quoted = String::with_capacity(text.len() + 2);
        super::text::write_escaped(&mut quoted, &text);
        self.record(RepairRule::RegexLiteral, start, end, &quoted);
        self.pos = end;
        Some(self.sink.string(text))
    }
}

/// The longest body of a regular expression literal looked for: every `/` at a value's start
/// is tried, so an unbounded look (`[/[x, /[x, ...]`, each class open to the end of the
/// line) would make a long line quadratic.
const MAX_BODY: usize = 1024;

/// One past the flags of the regular expression literal that starts at `at` in `b`: a `/`
/// not starting a comment, a body on one line of at most [`MAX_BODY`] bytes (escapes and
/// `[...]` classes may hold `/`), the closing `/` and its flags. `None` when there is no such
/// literal.
pub(crate) fn regex_end(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'/') || matches!(b.get(at + 1), Some(b'/' | b'*') | None) {
        return None;
    }
    let mut i = at + 1;
    let mut class = false;
    loop {
        if i - at > MAX_BODY {
            return None;
        }
        match *b.get(i)? {
            b'\n' | b'\r' => return None,
            b'\\' => {
                if matches!(b.get(i + 1), Some(b'\n' | b'\r') | None) {
                    return None;
                }
                i += 2;
                continue;
            }
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => break,
            _ => {}
        }
        i += 1;
    }
    i += 1;
    while b.get(i).is_some_and(u8::is_ascii_lowercase) {
        i += 1;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::regex_end;

    #[test]
    fn literal_ends_after_its_flags() {
        assert_eq!(regex_end(b"/[a-z]_/", 0), Some(8));
        assert_eq!(regex_end(b"/a/gi, 1", 0), Some(5));
        assert_eq!(regex_end(b"/[/]x/", 0), Some(6));
        assert_eq!(regex_end(br"/\//", 0), Some(4));
    }

    #[test]
    fn comments_unclosed_and_multiline_are_not_literals() {
        assert_eq!(regex_end(b"// note", 0), None);
        assert_eq!(regex_end(b"/* note */", 0), None);
        assert_eq!(regex_end(b"/abc", 0), None);
        assert_eq!(regex_end(b"/ab\nc/", 0), None);
        assert_eq!(regex_end(b"/", 0), None);
        assert_eq!(regex_end(b"/ab\\", 0), None);
    }

    #[test]
    fn a_body_longer_than_the_limit_is_not_a_literal() {
        let long = format!("/{}/", "a".repeat(super::MAX_BODY));
        assert_eq!(regex_end(long.as_bytes(), 0), None);
        let short = format!("/{}/", "a".repeat(super::MAX_BODY - 2));
        assert_eq!(regex_end(short.as_bytes(), 0), Some(short.len()));
    }
}
