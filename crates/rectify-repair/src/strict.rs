//! A strict JSON check that allocates nothing: where the first JSON value of a text ends,
//! exactly as `serde_json::Deserializer::from_str(text).into_iter::<Value>()` decides it
//! (same grammar, same nesting limit, same rule for what may follow a number or literal),
//! for the text path, which must take the same branches as the value path.

/// serde_json's nesting limit: the 128th open bracket is an error.
const MAX_NESTING: usize = 127;

/// Where the first JSON value of `text` ends, when `text` (after JSON whitespace) starts
/// with one that serde_json's stream deserializer accepts; `None` otherwise.
pub(crate) fn first_value_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let start = skip_ws(b, 0);
    let first = *b.get(start)?;
    let end = value(b, start)?;
    if matches!(first, b'[' | b'{' | b'"') {
        return Some(end);
    }
    match b.get(end) {
        None
        | Some(b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':') => {
            Some(end)
        }
        Some(_) => None,
    }
}

/// True when `text` is one JSON value (with JSON whitespace around it), as
/// `serde_json::from_str::<Value>` accepts it.
pub(crate) fn is_json(text: &str) -> bool {
    first_value_end(text).is_some_and(|end| skip_ws(text.as_bytes(), end) == text.len())
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
        i += 1;
    }
    i
}

/// One value at `i` (no leading whitespace); the offset after it.
fn value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'{' | b'[' => container(b, i),
        b'"' => string(b, i),
        b'n' => literal(b, i, b"null"),
        b't' => literal(b, i, b"true"),
        b'f' => literal(b, i, b"false"),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// End of the JSON number starting at `i`, if one does.
pub(crate) fn number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |i: usize| b.iter().skip(i).take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i)? {
        b'0' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => return None,
        b'0' => i += 1,
        b'1'..=b'9' => i += digits(i),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

fn string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        i += to_special(b.get(i..)?)?;
        match b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => i = unicode_escape(b, i)?,
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// Offset of the first `"`, `\` or control character in `rest`, eight bytes at a time
/// (the word trick serde_json uses: the lowest flagged byte is exact).
fn to_special(rest: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let special = |c: &u8| *c == b'"' || *c == b'\\' || *c < 0x20;
    let mut at = 0;
    for chunk in rest.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let quote = w ^ (ONES * u64::from(b'"'));
        let slash = w ^ (ONES * u64::from(b'\\'));
        let found = (w.wrapping_sub(ONES * 0x20) & !w)
            | (quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash);
        let found = found & (ONES << 7);
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    rest.get(at..)?.iter().position(special).map(|k| at + k)
}

/// `\uXXXX` at `i`, surrogates paired as serde_json requires for text; the offset after.
fn unicode_escape(b: &[u8], i: usize) -> Option<usize> {
    let n = hex4(b, i + 2)?;
    match n {
        0xDC00..=0xDFFF => None,
        0xD800..=0xDBFF => {
            let low = (b.get(i + 6..i + 8)? == b"\\u").then(|| hex4(b, i + 8))??;
            (0xDC00..=0xDFFF).contains(&low).then_some(i + 12)
        }
        _ => Some(i + 6),
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)?.iter().try_fold(0u32, |n, &c| {
        let d = char::from(c).to_digit(16)?;
        Some(n * 16 + d)
    })
}

/// An array or object, nested ones included, with an explicit stack of closers.
fn container(b: &[u8], i: usize) -> Option<usize> {
    let mut closers = Closers::default();
    let mut i = i;
    loop {
        // `i` is at the start of a value.
        match b.get(i)? {
            b'[' | b'{' => {
                let (open, close) = if b.get(i) == Some(&b'[') {
                    (b'[', b']')
                } else {
                    (b'{', b'}')
                };
                if closers.len() >= MAX_NESTING {
                    return None;
                }
                closers.push(close);
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&close) {
                    closers.pop();
                    i += 1;
                } else {
                    if open == b'{' {
                        i = key(b, i)?;
                    }
                    continue;
                }
            }
            _ => i = value(b, i)?,
        }
        // After a complete value: close containers or move to the next element.
        loop {
            let Some(&close) = closers.last() else {
                return Some(i);
            };
            i = skip_ws(b, i);
            match b.get(i)? {
                c if *c == close => {
                    closers.pop();
                    i += 1;
                }
                b',' => {
                    i = skip_ws(b, i + 1);
                    if close == b'}' {
                        i = key(b, i)?;
                    }
                    break;
                }
                _ => return None,
            }
        }
    }
}

/// The closing brackets of the open containers, innermost last; no allocation.
struct Closers {
    open: [u8; MAX_NESTING],
    len: usize,
}

impl Default for Closers {
    fn default() -> Self {
        Closers {
            open: [0; MAX_NESTING],
            len: 0,
        }
    }
}

impl Closers {
    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, close: u8) {
        if let Some(slot) = self.open.get_mut(self.len) {
            *slot = close;
            self.len += 1;
        }
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    fn last(&self) -> Option<&u8> {
        self.len.checked_sub(1).and_then(|i| self.open.get(i))
    }
}

/// A key and its colon at `i`; the offset of the member's value.
fn key(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let i = skip_ws(b, string(b, i)?);
    (b.get(i) == Some(&b':')).then(|| skip_ws(b, i + 1))
}

/// True when the text after a valid first value goes on with more structure (another value,
/// a comma, a bracket or a colon), after white space and comments: the text is then read
/// leniently as a whole instead of as a value followed by prose.
/// `first` is the valid value and `rest` the text after it: besides more structure, a string
/// goes on with `+ "more"` (concatenation) and a scalar with a scalar on the next line
/// (newline-delimited scalars).
pub(crate) fn continues(first: &str, rest: &str) -> bool {
    let tail = rest.trim_start();
    let scalar_start =
        |t: &str| t.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '"'));
    let concatenated = first.starts_with('"')
        && skip_block_comments(tail)
            .strip_prefix('+')
            .is_some_and(|t| skip_block_comments(t).starts_with('"'));
    let next_line =
        scalar_start(first) && scalar_start(tail) && rest[..rest.len() - tail.len()].contains('\n');
    concatenated || next_line || structure_follows(tail) || string_goes_on(first, tail)
}

/// `t` past leading white space and `/* */` comments (`"a" + /*note*/ "b"`).
pub(crate) fn skip_block_comments(t: &str) -> &str {
    let mut rest = t.trim_start();
    while let Some(end) = rest
        .strip_prefix("/*")
        .and_then(|c| c.find("*/").map(|e| e + 4))
    {
        rest = rest[end..].trim_start();
    }
    rest
}

/// `"The TV has a 24" screen"`, `"abc +"def"`: a string followed by words that end, soon,
/// with the only other quote of the text. The quote after the valid string was content (or
/// opened the next part of a concatenation), not its end.
fn string_goes_on(first: &str, tail: &str) -> bool {
    let tail = tail.trim_end();
    first.starts_with('"')
        && tail.len() <= crate::parser::WINDOW
        && tail.starts_with(|c: char| c.is_ascii_alphabetic())
        && tail.find('"') == Some(tail.len() - 1)
}

/// True when `tail` goes on with another value, a comma, a bracket or a colon, after white
/// space and comments.
fn structure_follows(tail: &str) -> bool {
    let mut rest = tail;
    loop {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            return rest.starts_with(['{', '[', ',', '}', ']', ':']);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn serde(text: &str) -> Option<usize> {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        match stream.next() {
            Some(Ok(_)) => Some(stream.byte_offset()),
            _ => None,
        }
    }

    #[test]
    fn specials_are_found_at_the_first_one() {
        for (text, at) in [
            ("abcdefghij\"", Some(10)),
            ("abc\u{1}defgh", Some(3)),
            ("\u{7f}\u{80}é\\", Some(5)),
            ("abcdefgh", None),
            ("ab\"\"", Some(2)),
            ("\u{1f}\u{20}\u{21}\u{22}", Some(0)),
            ("12345678\u{20}\u{21}\u{22}", Some(10)),
            ("12345678123456\u{0}", Some(14)),
        ] {
            assert_eq!(to_special(text.as_bytes()), at, "{text:?}");
        }
    }

    #[test]
    fn agrees_with_serde_json() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let mut texts: Vec<String> = [
            "",
            " ",
            "1",
            "-0",
            "01",
            "1.",
            "1.5e+3",
            "-",
            "1x",
            "1 x",
            "1,",
            "1]",
            "tru",
            "true",
            "truex",
            "true ",
            "null}",
            "\"a\"",
            "\"a",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"\\x\"",
            "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
            "\"\u{1}\"",
            "\"é☺\"",
            "[]",
            "{}",
            "[1,]",
            "[,1]",
            "[1 2]",
            "{\"a\":1,}",
            "{\"a\" : 1 , \"b\" : [ {} ] }",
            "{a:1}",
            "{\"a\"}",
            "{\"a\":}",
            "[1] [2]",
            "{\"a\":1} trailing",
            "  [1]x",
            "[\"\\ud800\"]",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud800\\\"",
            "[1}",
            "{\"a\":1]",
            "[[[]]]",
            "\"\\u00e9\"",
            "[-]",
            "[0.0e0]",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        texts.extend([deep(126), deep(127), deep(128), deep(129)]);
        texts.push("{\"a\":".repeat(127) + "1" + &"}".repeat(127));
        texts.push("{\"a\":".repeat(128) + "1" + &"}".repeat(128));
        for t in &texts {
            assert_eq!(first_value_end(t), serde(t), "{t:?}");
            let whole = serde_json::from_str::<Value>(t).is_ok();
            assert_eq!(is_json(t), whole, "{t:?}");
        }
    }
}
