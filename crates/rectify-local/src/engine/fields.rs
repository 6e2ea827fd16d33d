//! Writing an object answer with the grammar narrowed after each property (see
//! [`crate::grounding::fields`]): the output is scanned as it grows; when a top-level
//! property is complete, the answer's grammar is compiled again without the values taken so
//! far and the tokens generated so far are replayed into it.

use llguidance::ParserFactory;
use serde_json::Value;

use super::contrast::Point;
use super::grammar::{Constraint, constraint_for};
use crate::grounding::fields::FieldPlan;

/// Where a field-by-field answer is.
pub(crate) struct FieldRun {
    plan: FieldPlan,
    scan: Scan,
    /// Properties written so far, and their scalar values.
    written: Vec<String>,
    taken: Vec<Value>,
    /// Every token generated so far.
    tokens: Vec<u32>,
    /// The byte length of each token's text.
    lengths: Vec<usize>,
    /// The output so far.
    bytes: Vec<u8>,
}

impl FieldRun {
    /// A run over `plan` and the matcher of the whole answer.
    pub fn start(plan: FieldPlan, factory: &ParserFactory) -> (Self, Constraint) {
        let constraint = constraint_for(factory, Some(&plan.schema));
        let run = Self {
            plan,
            scan: Scan::default(),
            written: Vec::new(),
            taken: Vec::new(),
            tokens: Vec::new(),
            lengths: Vec::new(),
            bytes: Vec::new(),
        };
        (run, constraint)
    }

    /// Takes the generated `token` (whose text is `piece`): when it completes a property, the
    /// matcher to continue with (already past every token so far).
    pub fn push(
        &mut self,
        token: u32,
        piece: &[u8],
        factory: &ParserFactory,
    ) -> Option<Constraint> {
        self.tokens.push(token);
        self.lengths.push(piece.len());
        self.bytes.extend(piece);
        let mut completed = false;
        for &byte in piece {
            if let Some((key, value)) = self.scan.feed(byte) {
                if let Some(value) = value.filter(|v| v.is_string() || v.is_number()) {
                    self.taken.push(value);
                }
                self.written.extend(key);
                completed = true;
            }
        }
        if !completed || self.scan.closed {
            return None;
        }
        let schema = self.plan.schema_after(&self.written, &self.taken);
        let mut constraint = constraint_for(factory, Some(&schema));
        let replayed = constraint
            .matcher
            .as_mut()
            .map(|m| m.consume_tokens(&self.tokens));
        match replayed {
            Some(Ok(())) => Some(constraint),
            Some(Err(error)) => Some(Constraint {
                matcher: None,
                warnings: vec![format!(
                    "narrowed grammar rejected the answer so far: {error}"
                )],
            }),
            None => None,
        }
    }
}

impl FieldRun {
    /// When the next token starts the value of a top-level string field with a choice of
    /// values, and other string fields are still to write: the point to contrast them at (see
    /// [`super::contrast`]).
    pub fn point(&self) -> Option<Point> {
        if !self.scan.value_pending() {
            return None;
        }
        let key = key_text(&self.scan.key)?;
        let properties = self.plan.schema.get("properties")?.as_object()?;
        let property = properties.get(&key)?;
        let choices = property.get("enum").and_then(Value::as_array)?;
        // Strings only: a number's first token is one digit (`3` of `3` and `33`).
        let kind = value_kind(property).filter(|k| *k == "string" && choices.len() >= 2)?;
        let others: Vec<String> = properties
            .iter()
            .filter(|(k, _)| **k != key && !self.written.contains(k))
            .filter(|(_, p)| value_kind(p) == Some(kind))
            .map(|(k, _)| k.clone())
            .collect();
        if others.is_empty() {
            return None;
        }
        let (from_token, from_byte) = self.boundary(self.scan.key_start);
        let key_end = (self.scan.key_start + self.scan.key.len() + 2).min(self.bytes.len());
        Some(Point {
            key,
            others,
            from_token,
            head: String::from_utf8_lossy(&self.bytes[from_byte..self.scan.key_start]).into_owned(),
            tail: String::from_utf8_lossy(&self.bytes[key_end..]).into_owned(),
            request: self.plan.text.clone(),
        })
    }

    /// The last token boundary at or before the byte `at`: its token index and byte offset.
    fn boundary(&self, at: usize) -> (usize, usize) {
        let mut offset = 0;
        for (index, &len) in self.lengths.iter().enumerate() {
            if offset + len > at {
                return (index, offset);
            }
            offset += len;
        }
        (self.lengths.len(), offset)
    }
}

/// A key's text from its JSON-escaped bytes.
fn key_text(raw: &[u8]) -> Option<String> {
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend(raw);
    quoted.push(b'"');
    serde_json::from_slice(&quoted).ok()
}

/// Whether a property holds a string or a number (`None` for anything else).
fn value_kind(property: &Value) -> Option<&'static str> {
    let by_type = match property.get("type").and_then(Value::as_str) {
        Some("string") => Some("string"),
        Some("number" | "integer") => Some("number"),
        Some(_) => return None,
        None => None,
    };
    by_type.or_else(|| {
        let first = property.get("enum")?.as_array()?.first()?;
        match first {
            Value::String(_) => Some("string"),
            Value::Number(_) => Some("number"),
            _ => None,
        }
    })
}

/// A scanner of a JSON object's text that reports each top-level property when its value
/// ends.
#[derive(Debug, Default)]
struct Scan {
    depth: usize,
    in_string: bool,
    escape: bool,
    in_key: bool,
    in_value: bool,
    key: Vec<u8>,
    value: Vec<u8>,
    /// The object is closed.
    closed: bool,
    /// Bytes fed so far.
    at: usize,
    /// Byte offset of the current top-level key's opening quote.
    key_start: usize,
}

impl Scan {
    /// Feeds one byte; when it ends a top-level property, its key and value (`None` when the
    /// text does not parse).
    fn feed(&mut self, byte: u8) -> Option<(Option<String>, Option<Value>)> {
        let offset = self.at;
        self.at += 1;
        if self.in_string {
            self.string_byte(byte);
            return None;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && !self.in_value {
                    self.in_key = true;
                    self.key_start = offset;
                    self.key.clear();
                } else {
                    self.value.push(byte);
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth > 1 {
                    self.value.push(byte);
                }
            }
            b'}' | b']' if self.depth == 1 => {
                self.depth = 0;
                self.closed = true;
                return self.end_value();
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.value.push(byte);
            }
            b':' if self.depth == 1 && !self.in_value => {
                self.in_value = true;
                self.value.clear();
            }
            b',' if self.depth == 1 => return self.end_value(),
            _ if self.in_value => self.value.push(byte),
            _ => {}
        }
        None
    }

    /// Whether a top-level value has begun and holds nothing yet (at most its opening quote).
    fn value_pending(&self) -> bool {
        self.depth == 1 && self.in_value && (self.value.is_empty() || self.value == b"\"")
    }

    fn string_byte(&mut self, byte: u8) {
        let closing = !self.escape && byte == b'"';
        self.escape = !self.escape && byte == b'\\';
        if closing {
            self.in_string = false;
        }
        if self.in_key {
            if closing {
                self.in_key = false;
            } else {
                self.key.push(byte);
            }
        } else {
            self.value.push(byte);
        }
    }

    fn end_value(&mut self) -> Option<(Option<String>, Option<Value>)> {
        if !self.in_value {
            return None;
        }
        self.in_value = false;
        Some((
            key_text(&self.key),
            serde_json::from_slice(&self.value).ok(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_are_reported_when_their_values_end() {
        let mut scan = Scan::default();
        let text = br#"{"a":"x, \"y\"","b\"":[1,{"c":2}],"d":3.5}"#;
        let found: Vec<_> = text.iter().filter_map(|&b| scan.feed(b)).collect();
        assert_eq!(
            found,
            [
                (Some("a".to_owned()), Some(json!("x, \"y\""))),
                (Some("b\"".to_owned()), Some(json!([1, {"c": 2}]))),
                (Some("d".to_owned()), Some(json!(3.5))),
            ]
        );
        assert!(scan.closed);
    }
}
