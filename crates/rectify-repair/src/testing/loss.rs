//! The no-silent-loss property, shared by its property test and its fuzz target: every key,
//! string and number of a broken document is in the repaired value, unless a recorded repair
//! covers it (names it, with its snippet, as removed or changed).
//!
//! Documents are generated so that their keys, strings and numbers are all distinct and none
//! is part of another; they are then broken by edits of the kinds models make (a quote,
//! colon, comma or bracket deleted; junk inserted).

use serde_json::{Map, Value};

use crate::{RepairOptions, repair};

/// The shape of a document; its tokens are numbered when it is built.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A scalar: null, a boolean, an integer, a decimal, or a string (by `n % 8`).
    Leaf(u8),
    /// An array of the shapes.
    Array(Vec<Shape>),
    /// An object with one member per shape.
    Object(Vec<Shape>),
}

impl Shape {
    /// A shape drawn from `bytes` (for fuzzing): at most `depth` levels and 5 children.
    pub fn from_bytes(bytes: &mut impl Iterator<Item = u8>, depth: u8) -> Shape {
        let b = bytes.next().unwrap_or(0);
        if depth == 0 || b < 128 {
            return Shape::Leaf(b % 8);
        }
        let n = usize::from(b % 5) + 1;
        let children = (0..n)
            .map(|_| Shape::from_bytes(bytes, depth - 1))
            .collect();
        if b.is_multiple_of(2) {
            Shape::Array(children)
        } else {
            Shape::Object(children)
        }
    }
}

/// A token of the document: its text as written inside the JSON text.
#[derive(Debug)]
pub struct Token {
    /// The text.
    pub text: String,
    /// A number (an edit that joins it to digits cuts it).
    pub number: bool,
}

/// Builds the value of `shape`, numbering keys, strings and numbers so that no token is
/// part of another.
pub fn build(shape: &Shape, n: &mut usize, tokens: &mut Vec<Token>) -> Value {
    *n += 1;
    let id = *n;
    let mut word = |text: String, number: bool| {
        tokens.push(Token {
            text: text.clone(),
            number,
        });
        text
    };
    match shape {
        Shape::Leaf(0) => Value::Null,
        Shape::Leaf(1) => Value::Bool(id.is_multiple_of(2)),
        Shape::Leaf(2) => Value::from(word(format!("{id}0{id}"), true).parse::<u64>().unwrap_or(0)),
        Shape::Leaf(3) => {
            let text = word(format!("-{id}.{id}5"), true);
            serde_json::from_str(&text).unwrap_or(Value::Null)
        }
        Shape::Leaf(4) => Value::String(word(format!("s{id}q and more"), false)),
        Shape::Leaf(_) => Value::String(word(format!("s{id}q"), false)),
        Shape::Array(items) => Value::Array(items.iter().map(|s| build(s, n, tokens)).collect()),
        Shape::Object(members) => {
            let mut map = Map::new();
            for member in members {
                *n += 1;
                let key = format!("k{}x", *n);
                tokens.push(Token {
                    text: key.clone(),
                    number: false,
                });
                map.insert(key, build(member, n, tokens));
            }
            Value::Object(map)
        }
    }
}

/// Junk inserted into a document.
pub const JUNK: &[&str] = &[
    "x",
    "zz top",
    "// note\n",
    "/* c */",
    "#",
    "...",
    "\u{a0}",
    "\u{200b}",
    "\n",
    "  ",
    "'",
    "\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "True",
    "\\",
];

/// One edit of a document.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Delete the `which`-th character of a class: a quote, a colon, a comma or a bracket.
    Delete(u8, usize),
    /// Insert junk (`JUNK[j % len]`) at a fraction of the length.
    Insert(f64, usize),
}

impl Edit {
    /// An edit drawn from `bytes` (for fuzzing).
    pub fn from_bytes(bytes: &mut impl Iterator<Item = u8>) -> Edit {
        let kind = bytes.next().unwrap_or(0);
        let at = bytes.next().unwrap_or(0);
        if kind % 4 == 3 {
            Edit::Insert(f64::from(at) / 256.0, usize::from(kind / 4))
        } else {
            Edit::Delete(kind % 4, usize::from(at))
        }
    }
}

/// `text` with the edits applied, in order.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out: Vec<char> = text.chars().collect();
    for e in edits {
        match *e {
            Edit::Delete(class, which) => {
                let of_class = |c: char| match class {
                    0 => c == '"',
                    1 => c == ':',
                    2 => c == ',',
                    _ => matches!(c, '{' | '}' | '[' | ']'),
                };
                let at: Vec<usize> = (0..out.len()).filter(|&i| of_class(out[i])).collect();
                if !at.is_empty() {
                    out.remove(at[which % at.len()]);
                }
            }
            Edit::Insert(at, j) => {
                let i = ((out.len() as f64) * at) as usize;
                for (k, c) in JUNK[j % JUNK.len()].chars().enumerate() {
                    out.insert((i + k).min(out.len()), c);
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Keys, strings and number texts of `value`.
fn atoms(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Number(n) => out.push(n.to_string()),
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| atoms(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                atoms(v, out);
            }
        }
        _ => {}
    }
}

/// Where `token` is written in `text`, when it is there whole (an edit may have cut it).
fn find(text: &str, token: &Token) -> Option<usize> {
    let at = text.find(&token.text)?;
    let digit_around = |i: Option<&u8>| i.is_some_and(u8::is_ascii_digit);
    let b = text.as_bytes();
    let cut = token.number
        && (digit_around(at.checked_sub(1).and_then(|i| b.get(i)))
            || digit_around(b.get(at + token.text.len())));
    (!cut).then_some(at)
}

/// The tokens of `text` that are neither in the repaired value nor covered by a repair.
pub fn lost(text: &str, tokens: &[Token], options: &RepairOptions) -> Vec<String> {
    let out = repair(text, options);
    let Some(value) = &out.value else {
        return Vec::new();
    };
    let mut found = Vec::new();
    atoms(value, &mut found);
    let mut lost = Vec::new();
    for token in tokens {
        let Some(at) = find(text, token) else {
            continue;
        };
        let end = at + token.text.len();
        let kept = found.iter().any(|a| a.contains(&token.text));
        let named = out.repairs.iter().any(|r| {
            r.location
                .span
                .is_some_and(|s| s.start <= at && s.end >= end && !r.before.is_empty())
        });
        if !kept && !named {
            lost.push(token.text.clone());
        }
    }
    lost
}
