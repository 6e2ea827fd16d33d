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

/// Scans string content in `bytes[from..]`, updating the escape state and count.
pub(crate) fn scan_string(
    bytes: &[u8],
    from: usize,
    escape: &mut Escape,
    escape_at: &mut usize,
    chars: &mut usize,
) -> StrScan {
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
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
                0..0x20 => return StrScan::Control,
                _ if b & 0xC0 != 0x80 && !b.is_ascii_whitespace() => *chars += 1,
                _ => {}
            },
        }
        i += 1;
    }
    StrScan::More
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
