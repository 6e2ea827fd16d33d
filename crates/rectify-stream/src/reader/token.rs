//! Scalars being read: each keeps how far it was scanned, so a token cut by a chunk boundary
//! is continued, never read again from its start.

/// Where an escape inside a string stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    /// Not in an escape.
    None,
    /// Just after a backslash.
    Backslash,
    /// Inside `\uXXXX`: how many hex digits are still to come.
    Hex(u8),
}

/// A scalar token not yet ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// A string from its opening quote at `start`.
    Str {
        start: usize,
        key: bool,
        escape: Escape,
        /// Where the escape being read began (to cut it off a partial value).
        escape_at: usize,
        /// A lower bound of the characters read so far (`\u` escapes and white space not
        /// counted): a safe repair can trim white space, never drop other characters.
        chars: usize,
    },
    /// A number from `start`.
    Number { start: usize },
    /// `true`, `false` or `null` from `start`.
    Literal { start: usize },
}

/// What scanning a string over some bytes found.
pub(crate) enum StrScan {
    /// The closing quote is at this offset.
    End(usize),
    /// The bytes ran out.
    More,
    /// A raw control character: not strict JSON.
    Control,
}

/// Scans string content in `bytes[from..]`, updating the escape state and count. Runs of
/// plain bytes (no quote, backslash or control character) are counted in one pass.
pub(crate) fn scan_string(
    bytes: &[u8],
    from: usize,
    escape: &mut Escape,
    escape_at: &mut usize,
    chars: &mut usize,
) -> StrScan {
    let mut i = from;
    while i < bytes.len() {
        if *escape == Escape::None {
            let run = plain_run(&bytes[i..]);
            *chars += counted(&bytes[i..i + run]);
            i += run;
        }
        let Some(&b) = bytes.get(i) else { break };
        match *escape {
            Escape::Backslash => {
                *escape = if b == b'u' {
                    Escape::Hex(4)
                } else {
                    *chars += 1;
                    Escape::None
                };
            }
            Escape::Hex(n) => {
                *escape = if n > 1 {
                    Escape::Hex(n - 1)
                } else {
                    Escape::None
                }
            }
            Escape::None => match b {
                b'"' => return StrScan::End(i),
                b'\\' => {
                    *escape = Escape::Backslash;
                    *escape_at = i;
                }
                _ => return StrScan::Control,
            },
        }
        i += 1;
    }
    StrScan::More
}

/// How many bytes from the start are plain string content: not a quote, a backslash or a
/// control character.
fn plain_run(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(bytes.len())
}

/// The characters in plain string content that a safe repair cannot trim: every character
/// but white space (UTF-8 continuation bytes are not characters of their own).
fn counted(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80 && !b.is_ascii_whitespace())
        .count()
}

/// True when `raw` is a number as strict JSON writes it:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn is_json_number(raw: &[u8]) -> bool {
    let digits = |from: usize| {
        from + raw
            .get(from..)
            .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count())
    };
    let mut i = usize::from(raw.first() == Some(&b'-'));
    i = match raw.get(i) {
        Some(b'0') => i + 1,
        Some(b'1'..=b'9') => digits(i + 1),
        _ => return false,
    };
    if raw.get(i) == Some(&b'.') {
        let end = digits(i + 1);
        if end == i + 1 {
            return false;
        }
        i = end;
    }
    if matches!(raw.get(i), Some(b'e' | b'E')) {
        i += 1 + usize::from(matches!(raw.get(i + 1), Some(b'+' | b'-')));
        let end = digits(i);
        if end == i {
            return false;
        }
        i = end;
    }
    i == raw.len()
}

/// The end of a number or literal starting at `from`: the first byte that cannot be part of
/// it, or `None` when the bytes ran out first.
pub(crate) fn scan_word(bytes: &[u8], from: usize, number: bool) -> Option<usize> {
    let part = |b: &u8| {
        if number {
            b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E')
        } else {
            b.is_ascii_alphabetic()
        }
    };
    bytes
        .get(from..)?
        .iter()
        .position(|b| !part(b))
        .map(|n| from + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_strict_json_numbers() {
        for ok in ["0", "-0", "12", "-3.25", "1e9", "1.5E+3", "2e-07", "10.0"] {
            assert!(is_json_number(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1.2.3", "--1", "1-2", "0x1",
        ] {
            assert!(!is_json_number(bad.as_bytes()), "{bad}");
        }
    }
}
