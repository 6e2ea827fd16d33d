//! The grammar schema of a grounded request: free strings become "one of the request's
//! spans", free numbers "one of the numbers written in it".

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};

use super::OPT_OUT;
use super::fit::Context;
use super::flags;
use super::spans::{self, Mention};

/// What a request offers to the answer's leaves.
#[derive(Debug, Clone)]
pub struct Offer {
    /// The text the values come from.
    pub text: String,
    /// Spans of its words ([`spans::spans`]).
    pub spans: BTreeSet<String>,
    /// Numbers written in it, with their context ([`spans::mentions`]).
    pub mentions: Vec<Mention>,
    /// Whether number leaves are tied to [`Offer::mentions`]; otherwise they stay free.
    pub numbers: bool,
}

impl Offer {
    /// What `text` offers.
    pub fn from_text(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            spans: spans::spans(text),
            mentions: spans::mentions(text),
            numbers: true,
        }
    }
}

/// Keywords whose values are subschemas (one, a list, or a map of them).
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
];
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP: &[&str] = &["properties", "$defs", "definitions", "patternProperties"];

/// `schema` with every free string and number leaf restricted to what `offer` holds that fits
/// the field (see [`super::fit`]), and every string `enum` to the choices the request names
/// (when it names some), and every boolean the request states to that value ([`flags`]). A
/// leaf is free when its `type` is exactly `string`, `number`, `integer` or `boolean` and it
/// has no `enum`, `const`, `pattern` or `format`; a leaf (or subtree) marked
/// `"x-rectify-grounded": false` is left alone, and so is a leaf for which the request offers
/// no value that fits its bounds. The marker is removed everywhere.
pub fn ground(schema: &Value, offer: &Offer) -> Value {
    let context = Context::of(schema, &offer.text);
    let mut schema = schema.clone();
    let mut walk = Walk {
        offer,
        context: &context,
    };
    walk.rewrite(&mut schema, "", true);
    schema
}

struct Walk<'a> {
    offer: &'a Offer,
    context: &'a Context,
}

impl Walk<'_> {
    /// Rewrites `schema`, the schema of the field `name` (the nearest property's name).
    fn rewrite(&mut self, schema: &mut Value, name: &str, enabled: bool) {
        let Some(obj) = schema.as_object_mut() else {
            return;
        };
        let enabled = enabled && obj.remove(OPT_OUT) != Some(Value::Bool(false));
        for key in ONE {
            if let Some(sub) = obj.get_mut(*key) {
                self.rewrite(sub, name, enabled);
            }
        }
        for key in LIST {
            if let Some(Value::Array(subs)) = obj.get_mut(*key) {
                for sub in subs {
                    self.rewrite(sub, name, enabled);
                }
            }
        }
        for key in MAP {
            if let Some(Value::Object(subs)) = obj.get_mut(*key) {
                for (prop, sub) in subs.iter_mut() {
                    let name = if *key == "properties" { prop } else { name };
                    self.rewrite(sub, name, enabled);
                }
            }
        }
        if enabled && let Some(values) = self.leaf_values(obj, name) {
            obj.insert("enum".to_owned(), Value::Array(values));
        }
    }

    /// The values a free leaf may take, `None` when it is not free or nothing fits.
    fn leaf_values(&self, obj: &Map<String, Value>, name: &str) -> Option<Vec<Value>> {
        if let Some(Value::Array(choices)) = obj.get("enum") {
            return named_choices(choices, &self.offer.spans).or_else(|| {
                let strings: Vec<String> = choices
                    .iter()
                    .map(|c| c.as_str().map(str::to_owned))
                    .collect::<Option<_>>()?;
                let kept = flags::choices(&strings, &self.offer.text)?;
                Some(kept.into_iter().map(Value::String).collect())
            });
        }
        if ["const", "pattern", "format"]
            .iter()
            .any(|k| obj.contains_key(*k))
        {
            return None;
        }
        let values: Vec<Value> = match obj.get("type").and_then(Value::as_str)? {
            "string" => {
                let fitting = strings(obj, &self.offer.spans);
                self.context
                    .strings(name, fitting, &self.offer.text, &self.offer.mentions)
                    .into_iter()
                    .map(Value::String)
                    .collect()
            }
            "integer" | "number" if !self.offer.numbers => return None,
            "integer" => self.numbers(obj, name, true),
            "number" => self.numbers(obj, name, false),
            "boolean" => vec![Value::Bool(flags::flag(name, &self.offer.text)?)],
            _ => return None,
        };
        (!values.is_empty()).then_some(values)
    }

    fn numbers(&self, obj: &Map<String, Value>, name: &str, integer: bool) -> Vec<Value> {
        let fitting: Vec<&Mention> = self
            .offer
            .mentions
            .iter()
            .filter(|m| fits(obj, m.written.value()))
            .filter(|m| !integer || m.written.integer_literal().is_some())
            .collect();
        let mut seen = BTreeSet::new();
        self.context
            .numbers(name, fitting)
            .into_iter()
            .filter_map(|m| {
                if integer {
                    m.written.integer_literal()
                } else {
                    Some(m.written.literal.clone())
                }
            })
            .filter(|literal| seen.insert(literal.clone()))
            .filter_map(|literal| literal.parse::<Number>().ok().map(Value::Number))
            .collect()
    }
}

/// The choices of a string `enum` that the request names (ignoring case), when it names at
/// least one and not all: "tickets are 35 GBP" leaves `GBP` of `EUR, USD, GBP`.
fn named_choices(choices: &[Value], spans: &BTreeSet<String>) -> Option<Vec<Value>> {
    let named: Vec<Value> = choices
        .iter()
        .filter(|c| {
            c.as_str()
                .is_some_and(|c| spans.iter().any(|s| s.eq_ignore_ascii_case(c)))
        })
        .cloned()
        .collect();
    (!named.is_empty() && named.len() < choices.len()).then_some(named)
}

fn strings(obj: &Map<String, Value>, spans: &BTreeSet<String>) -> Vec<String> {
    let min = bound(obj, "minLength").unwrap_or(0.0);
    let max = bound(obj, "maxLength").unwrap_or(f64::INFINITY);
    spans
        .iter()
        .filter(|s| (min..=max).contains(&(s.chars().count() as f64)))
        .cloned()
        .collect()
}

fn fits(obj: &Map<String, Value>, x: f64) -> bool {
    bound(obj, "minimum").is_none_or(|m| x >= m)
        && bound(obj, "maximum").is_none_or(|m| x <= m)
        && bound(obj, "exclusiveMinimum").is_none_or(|m| x > m)
        && bound(obj, "exclusiveMaximum").is_none_or(|m| x < m)
}

fn bound(obj: &Map<String, Value>, key: &str) -> Option<f64> {
    obj.get(key).and_then(Value::as_f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grounded(schema: &Value, text: &str) -> Value {
        ground(schema, &Offer::from_text(text))
    }

    #[test]
    fn free_leaves_take_the_request_values_and_others_stay() {
        let schema = json!({
            "type": "object",
            "properties": {
                "customer": {"type": "string", "maxLength": 9},
                "total": {"type": "number", "minimum": 100},
                "count": {"type": "integer"},
                "currency": {"enum": ["EUR", "USD"]},
                "due": {"type": "string", "format": "date"},
                "note": {"type": "string", "x-rectify-grounded": false},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}}
            }
        });
        let out = grounded(&schema, "ACME Corp owes 1250.00 EUR for 3 crates.");
        let props = &out["properties"];
        let customer = props["customer"]["enum"].as_array().unwrap();
        assert!(customer.contains(&json!("ACME Corp")));
        assert!(customer.iter().all(|s| s.as_str().unwrap().len() <= 9));
        assert_eq!(props["total"]["enum"].to_string(), "[1250.00]");
        // 1250 is written with a currency: the money field's, not the count's.
        assert_eq!(props["count"]["enum"].to_string(), "[3]");
        assert_eq!(props["currency"], json!({"enum": ["EUR"]}));
        assert_eq!(props["due"], schema["properties"]["due"]);
        assert_eq!(props["note"], json!({"type": "string"}));
        assert!(
            props["tags"]["items"]["enum"]
                .as_array()
                .unwrap()
                .contains(&json!("ACME"))
        );
    }

    #[test]
    fn a_leaf_with_nothing_that_fits_stays_free() {
        let schema = json!({"type": "integer", "minimum": 5000});
        assert_eq!(grounded(&schema, "3 crates for 1250 EUR"), schema);
        let currency = json!({"enum": ["EUR", "USD"]});
        assert_eq!(grounded(&currency, "3 crates, paid in gold"), currency);
        assert_eq!(grounded(&currency, "EUR or usd?"), currency);
        let off = json!({"x-rectify-grounded": false, "type": "object",
                         "properties": {"a": {"type": "string"}}});
        assert_eq!(
            grounded(&off, "anything"),
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        );
    }
}
