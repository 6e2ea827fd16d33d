//! Grounding: the values of an extraction answer come from the request.
//!
//! Measured on Gemma 3 270M (issue 16): under a schema grammar alone the model fills the
//! shape with placeholders from the prompt's example (`"example customer"`, `3`) or with numbers
//! from the wrong place. For an extraction request ("Extract the invoice: ACME Corp owes
//! 1250.00 EUR"), the grammar therefore lets free strings be only spans of the request's words
//! and free numbers only numbers written in it ([`schema::ground`]); the model still chooses
//! which span goes where. After decoding, [`ungrounded`] lists the values not found in the
//! request (fields the grammar left free), reported in the response metadata.
//!
//! [`Grounding::Auto`] (the default) grounds requests that read as extraction
//! ([`is_extraction`]); `RECTIFY_LOCAL_GROUNDING=off` or a schema marked
//! `"x-rectify-grounded": false` (whole schema or one field) opts out.

pub mod fields;
pub mod fit;
pub mod flags;
pub mod lists;
pub mod schema;
pub mod shape;
pub mod spans;
pub mod words;

use std::collections::BTreeSet;

use rectify_provider::{Request, Role};
use serde_json::Value;

use crate::LocalError;

/// The schema keyword that opts a field (or a whole schema) out of grounding.
pub const OPT_OUT: &str = "x-rectify-grounded";

/// When answers are tied to the request's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Grounding {
    /// Never: strings and numbers are free within the schema.
    Off,
    /// For requests that read as extraction ([`is_extraction`]).
    #[default]
    Auto,
    /// For every request with a schema.
    On,
}

impl std::str::FromStr for Grounding {
    type Err = LocalError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.trim().to_ascii_lowercase().as_str() {
            "off" | "false" | "0" | "no" => Ok(Self::Off),
            "auto" => Ok(Self::Auto),
            "on" | "true" | "1" | "yes" => Ok(Self::On),
            other => Err(LocalError::InvalidOption {
                name: "RECTIFY_LOCAL_GROUNDING".to_owned(),
                message: format!("`{other}` is not one of off, auto, on"),
            }),
        }
    }
}

/// Phrases that make a request an extraction request: the answer is in the text it quotes.
const EXTRACTION_CUES: &[&str] = &[
    "extract",
    "pull out",
    "fill in",
    "parse",
    "from this",
    "from these",
    "from the following",
    "from the text",
    "from the message",
    "from the email",
    "from the note",
    "from the sentence",
];

/// Whether `text` asks to take values out of a text it quotes ("Extract the order: …",
/// "Parse this payment instruction: …", "… from this message: …").
pub fn is_extraction(text: &str) -> bool {
    let lower = text.to_lowercase();
    EXTRACTION_CUES.iter().any(|cue| {
        lower.match_indices(cue).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            before.is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// The request's own text: its user turns, joined by newlines. (On a re-ask the loop's
/// feedback is part of them; its words only add spans the model has no reason to pick.)
pub fn request_text(request: &Request) -> String {
    let turns: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
        .collect();
    turns.join("\n")
}

/// The text an extraction request quotes: what follows the instruction when the request
/// starts with one ending in a colon ("Extract the order: Jane wants …" → "Jane wants …"), so
/// the instruction's own words are not offered as values; else the whole text.
pub fn quoted_part(text: &str) -> &str {
    match text.split_once(':') {
        Some((instruction, rest))
            if is_extraction(instruction) && instruction.split_whitespace().count() <= 15 =>
        {
            rest
        }
        _ => text,
    }
}

/// Whether `request` is grounded under `mode`: it has a schema that does not opt out, and
/// `mode` is `On`, or `Auto` and the request reads as extraction.
pub fn applies(mode: Grounding, request: &Request) -> bool {
    let Some(schema) = &request.schema else {
        return false;
    };
    if schema.get(OPT_OUT) == Some(&Value::Bool(false)) {
        return false;
    }
    match mode {
        Grounding::Off => false,
        Grounding::On => true,
        Grounding::Auto => is_extraction(&request_text(request)),
    }
}

/// The longest request text that is grounded: 256 KiB, twice the longest the model's largest
/// context (32,768 tokens) holds at about four bytes a token. A longer request cannot be
/// answered anyway (the context check refuses it), and its spans are not built.
pub const MAX_GROUNDED_BYTES: usize = 256 * 1024;

/// The grammar schema for `request` under `mode`: its schema with free leaves restricted to
/// the request's spans (and, when `numbers`, its numbers), or `None` when grounding does not
/// apply or the request is longer than [`MAX_GROUNDED_BYTES`].
pub fn grammar_schema(mode: Grounding, numbers: bool, request: &Request) -> Option<Value> {
    if !applies(mode, request) {
        return None;
    }
    let text = request_text(request);
    if text.len() > MAX_GROUNDED_BYTES {
        return None;
    }
    let text = quoted_part(&text);
    let offer = schema::Offer {
        numbers,
        ..schema::Offer::from_text(text)
    };
    request.schema.as_ref().map(|s| schema::ground(s, &offer))
}

/// JSON Pointers of the string and number leaves of `value` that `text` does not contain:
/// strings not found in it (ignoring case), numbers not written in it. Strings the schema
/// lists itself (`enum`, `const`) are not counted: they come from the schema.
pub fn ungrounded(value: &Value, text: &str, schema: Option<&Value>) -> Vec<String> {
    let lower = text.to_lowercase();
    let numbers: Vec<f64> = spans::numbers(text)
        .iter()
        .map(spans::Written::value)
        .collect();
    let mut listed = BTreeSet::new();
    if let Some(schema) = schema {
        schema_constants(schema, &mut listed);
    }
    let mut out = Vec::new();
    walk(value, &mut String::new(), &mut |pointer, leaf| {
        let found = match leaf {
            Value::String(s) => listed.contains(s) || lower.contains(&s.trim().to_lowercase()),
            Value::Number(n) => n
                .as_f64()
                .is_some_and(|x| numbers.iter().any(|y| (x - y).abs() < 1e-9)),
            _ => true,
        };
        if !found {
            out.push(pointer.to_owned());
        }
    });
    out
}

/// Removes repeated values from the lists of a grounded answer, where `schema` allows the
/// shorter list (`minItems`); returns how many were removed. A small model asked for the
/// request's items tends to go round them again (`["lemons", "milk", "eggs", "lemons", …]`);
/// an extraction list that names an item twice is that loop, not the request. An object item
/// repeats when its first property is a string an earlier item's first property already
/// holds (`{"name": "Alice", …}` twice: the list's key, as names and ids usually come first).
/// A string item written inside another item (`Kim` beside `Hana Kim`) is a repeat too.
pub fn drop_repeats(value: &mut Value, schema: &Value) -> usize {
    match value {
        Value::Object(map) => map
            .iter_mut()
            .map(|(key, sub)| drop_repeats(sub, &schema["properties"][key.as_str()]))
            .sum(),
        Value::Array(items) => {
            let nested: usize = items
                .iter_mut()
                .map(|item| drop_repeats(item, &schema["items"]))
                .sum();
            let mut kept: Vec<Value> = Vec::with_capacity(items.len());
            for item in items.iter() {
                let key = |v: &Value| match v {
                    Value::Object(map) => map.values().next().filter(|k| k.is_string()).cloned(),
                    Value::String(_) | Value::Number(_) => Some(v.clone()),
                    _ => None,
                };
                let seen =
                    key(item).is_some_and(|k| kept.iter().any(|e| key(e) == Some(k.clone())));
                if !seen && !part_of_another(item, items) {
                    kept.push(item.clone());
                }
            }
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let removed = items.len() - kept.len();
            if removed > 0 && kept.len() as u64 >= min {
                *items = kept;
                nested + removed
            } else {
                nested
            }
        }
        _ => 0,
    }
}

/// Whether `item` is a string written inside another string item of `items`, as whole
/// words (`Kim` beside `Hana Kim`): the same item read again in part.
fn part_of_another(item: &Value, items: &[Value]) -> bool {
    let Value::String(part) = item else {
        return false;
    };
    let part = format!(" {} ", part.trim().to_lowercase());
    items.iter().any(|other| {
        other.as_str().is_some_and(|o| {
            let whole = format!(" {} ", o.trim().to_lowercase());
            whole != part && whole.contains(&part)
        })
    })
}

fn schema_constants(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(obj) => {
            for (key, sub) in obj {
                match (key.as_str(), sub) {
                    ("enum", Value::Array(values)) => {
                        out.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
                    }
                    ("const", Value::String(s)) => {
                        out.insert(s.clone());
                    }
                    _ => schema_constants(sub, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|s| schema_constants(s, out)),
        _ => {}
    }
}

fn walk(value: &Value, pointer: &mut String, visit: &mut impl FnMut(&str, &Value)) {
    let len = pointer.len();
    match value {
        Value::Object(map) => {
            for (key, sub) in map {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(sub, pointer, visit);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (index, sub) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&index.to_string());
                walk(sub, pointer, visit);
                pointer.truncate(len);
            }
        }
        leaf => visit(pointer, leaf),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extraction_is_read_from_the_request() {
        assert!(is_extraction("Extract the order: Jane wants 3 kettles"));
        assert!(is_extraction("Parse this payment instruction: send 5 EUR"));
        assert!(is_extraction("Get the address from this note: 1 Main St"));
        assert!(!is_extraction("Plan the migration from Postgres to SQLite"));
        assert!(!is_extraction("Write a poem about sparse data"));
    }

    #[test]
    fn the_instruction_is_not_quoted() {
        assert_eq!(
            quoted_part("Extract the order: Jane, 10:30"),
            " Jane, 10:30"
        );
        assert_eq!(quoted_part("At 10:30 extract it"), "At 10:30 extract it");
        assert_eq!(quoted_part("Plan: extract value"), "Plan: extract value");
    }

    #[test]
    fn a_request_longer_than_any_context_is_not_grounded() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let long = format!(
            "Extract the name: {}",
            "Ada Lovelace wrote notes. ".repeat(11_000)
        );
        assert!(long.len() > MAX_GROUNDED_BYTES);
        let request = Request::new(long).with_schema(schema.clone());
        assert!(applies(Grounding::Auto, &request));
        assert_eq!(grammar_schema(Grounding::Auto, true, &request), None);
        let short = Request::new("Extract the name: Ada Lovelace").with_schema(schema);
        assert!(grammar_schema(Grounding::Auto, true, &short).is_some());
    }

    #[test]
    fn modes_and_opt_out_decide() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let extraction = Request::new("Extract the name: Ada").with_schema(schema.clone());
        let plan = Request::new("Plan a trip").with_schema(schema);
        assert!(applies(Grounding::Auto, &extraction));
        assert!(!applies(Grounding::Auto, &plan));
        assert!(applies(Grounding::On, &plan));
        assert!(!applies(Grounding::Off, &extraction));
        let opted_out = Request::new("Extract the name: Ada")
            .with_schema(json!({"x-rectify-grounded": false, "type": "string"}));
        assert!(!applies(Grounding::On, &opted_out));
        assert!(grammar_schema(Grounding::Auto, true, &plan).is_none());
        assert_eq!("OFF".parse::<Grounding>().unwrap(), Grounding::Off);
        assert!("sometimes".parse::<Grounding>().is_err());
    }

    #[test]
    fn the_request_text_is_its_user_turns() {
        let request = Request::from_messages(vec![
            rectify_provider::Message::system("Be brief."),
            rectify_provider::Message::user("Extract: Ada"),
            rectify_provider::Message::assistant("{}"),
            rectify_provider::Message::user("Again."),
        ]);
        assert_eq!(request_text(&request), "Extract: Ada\nAgain.");
    }

    #[test]
    fn a_list_item_written_inside_another_is_dropped() {
        let schema = json!({"properties": {"members": {"type": "array"}}});
        let mut value = json!({"members": ["Hana Kim", "Omar Shaikh", "Kim", "Kimberly"]});
        assert_eq!(drop_repeats(&mut value, &schema), 1);
        assert_eq!(
            value,
            json!({"members": ["Hana Kim", "Omar Shaikh", "Kimberly"]})
        );
    }

    #[test]
    fn repeated_list_items_are_dropped_where_the_schema_allows() {
        let schema = json!({"properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "pair": {"type": "array", "minItems": 2},
            "rows": {"type": "array", "items": {"properties": {"n": {"type": "array"}}}}
        }});
        let mut value = json!({"tags": ["a", "b", "a", "b"], "pair": [1, 1],
                               "rows": [{"n": [2, 2, 3]}, {"n": [2]}],
                               "people": [{"name": "Al", "role": "x"}, {"name": "Bo"},
                                          {"name": "Al", "role": "y"}]});
        assert_eq!(drop_repeats(&mut value, &schema), 4);
        assert_eq!(
            value,
            json!({"tags": ["a", "b"], "pair": [1, 1], "rows": [{"n": [2, 3]}, {"n": [2]}],
                   "people": [{"name": "Al", "role": "x"}, {"name": "Bo"}]})
        );
    }

    #[test]
    fn values_missing_from_the_request_are_listed() {
        let text = "ACME Corp owes 1,250.00 EUR";
        let schema = json!({"properties": {"currency": {"enum": ["EUR", "USD"]}}});
        let value = json!({"customer": "acme corp", "total": 1250, "currency": "USD",
                           "lines": [{"note": "example note", "qty": 3}], "paid": false});
        assert_eq!(
            ungrounded(&value, text, Some(&schema)),
            ["/lines/0/note", "/lines/0/qty"]
        );
    }
}
