//! Unquoted values: keywords in any case, Python and JavaScript literals, numbers in loose
//! formats, call wrappers such as `ObjectId("...")`, string concatenation, and plain text.

use serde_json::Value;

use super::{Ctx, Parser, is_word_byte};
use crate::number::normalize_number;
use crate::rules::Rule;

impl Parser<'_> {
    /// Reads an unquoted value.
    pub fn scalar(&mut self, ctx: Ctx) -> Option<Value> {
        let start = self.pos;
        let end = self.scan_token(ctx);
        let word = self.text(start, end).trim_end();
        if word.is_empty() {
            return None;
        }
        let word_end = start + word.len();
        self.pos = word_end;
        if self.peek() == Some(b'(') && word.bytes().all(is_word_byte) {
            return Some(self.call(start));
        }
        if self.peek() == Some(b'"') && ctx != Ctx::Top {
            self.pos += 1;
            self.record(Rule::MissingOpeningQuote, word_end, self.pos, "");
        }
        if word.bytes().all(|b| matches!(b, b'-' | b'+' | b'.')) && word != "..." {
            self.record(Rule::StrayText, start, word_end, "");
            return None;
        }
        if let Some(v) = self.keyword(word, start, word_end) {
            return Some(v);
        }
        if let Some(v) = self.truncated_literal(word, start, word_end) {
            return Some(v);
        }
        if let Some(v) = self.number(word, start, word_end) {
            return Some(v);
        }
        if word == "..." {
            self.record(Rule::Ellipsis, start, word_end, "");
            return None;
        }
        let text = word.to_owned();
        let quoted = Value::String(text.clone()).to_string();
        let rule = if text.contains(char::is_whitespace) {
            Rule::UnquotedText
        } else {
            Rule::UnquotedValue
        };
        self.record(rule, start, word_end, &quoted);
        Some(Value::String(text))
    }

    /// End of an unquoted token: up to a delimiter of the context, with brackets inside the
    /// token balanced (`words{in braces}`).
    fn scan_token(&self, ctx: Ctx) -> usize {
        let numeric = self
            .peek()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'));
        let mut nest = 0usize;
        let mut i = self.pos;
        while let Some(b) = self.byte_at(i) {
            match b {
                b'{' | b'[' => nest += 1,
                b'}' | b']' if nest > 0 => nest -= 1,
                b'}' | b']' | b')' | b',' | b'"' | b'\n' | b'\r' => break,
                b'(' if nest == 0 && i > self.pos => break,
                b':' if ctx == Ctx::Item => break,
                b if numeric && b.is_ascii_whitespace() => break,
                _ => {}
            }
            i += 1;
        }
        i
    }

    fn keyword(&mut self, word: &str, start: usize, end: usize) -> Option<Value> {
        let (value, rule) = match word {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            "null" => return Some(Value::Null),
            "True" => (Value::Bool(true), Rule::PythonLiteral),
            "False" => (Value::Bool(false), Rule::PythonLiteral),
            "None" => (Value::Null, Rule::PythonLiteral),
            "undefined" => (Value::Null, Rule::Undefined),
            "NaN" | "Infinity" | "-Infinity" | "+Infinity" | "-NaN" => {
                (Value::Null, Rule::NonFiniteNumber)
            }
            w if w.eq_ignore_ascii_case("true") => (Value::Bool(true), Rule::KeywordCase),
            w if w.eq_ignore_ascii_case("false") => (Value::Bool(false), Rule::KeywordCase),
            w if w.eq_ignore_ascii_case("null") => (Value::Null, Rule::KeywordCase),
            _ => return None,
        };
        self.record(rule, start, end, &value.to_string());
        Some(value)
    }

    /// `tru` at the very end of the text: a keyword cut off.
    fn truncated_literal(&mut self, word: &str, start: usize, end: usize) -> Option<Value> {
        if end < self.b.len() {
            return None;
        }
        let value = [
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("null", Value::Null),
        ]
        .into_iter()
        .find(|(k, _)| k.len() > word.len() && k.starts_with(word))?
        .1;
        self.record(Rule::TruncatedLiteral, start, end, &value.to_string());
        Some(value)
    }

    fn number(&mut self, word: &str, start: usize, end: usize) -> Option<Value> {
        let first = word.as_bytes().first()?;
        if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
            return None;
        }
        if let Ok(n) = serde_json::from_str::<serde_json::Number>(word) {
            return Some(Value::Number(n));
        }
        let (text, rule) = normalize_number(word)?;
        let n = serde_json::from_str::<serde_json::Number>(&text).ok()?;
        self.record(rule, start, end, &text);
        Some(Value::Number(n))
    }

    /// `Name(args)`: a call wrapper around a value, such as `ObjectId("...")`.
    fn call(&mut self, start: usize) -> Value {
        let value = self.array();
        self.record(Rule::CallWrapper, start, self.pos, &value.to_string());
        value
    }

    /// `"a" + "b"`: joins concatenated strings.
    pub fn concatenation(&mut self, mut s: String, ctx: Ctx) -> Value {
        while let Some((plus, b'+')) = self.next_solid(self.pos)
            && let Some((q, _)) = self.next_solid(plus + 1)
            && self.quote_at(q).is_some()
        {
            let at = self.pos;
            self.pos = q;
            let more = self.string(ctx);
            self.record(Rule::StringConcatenation, at, q, "");
            s.push_str(&more);
        }
        Value::String(s)
    }
}
