//! Field-by-field decoding of a grounded object answer: each time the model finishes a
//! property, the grammar of the properties still to come loses the values taken so far, so a
//! value another field already took is not offered again unless the request writes it more
//! than once.
//!
//! Measured on Gemma 3 270M (issue 16): under one grammar for the whole object the model gave
//! one span to two fields (`"company": "Brightline", "title": "Brightline"`; the flight number
//! as the origin) — a small model's favourite span wins every field it fits. Decoding a field
//! knows what the fields before it took.

use serde_json::Value;

use super::spans;

/// How to decode an object answer one property at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldPlan {
    /// The grammar schema of the whole answer (an object with `properties`).
    pub schema: Value,
    /// The request's text: a value it writes twice may be taken twice.
    pub text: String,
}

/// The plan for a grounded grammar schema (see [`super::grammar_schema`]) and the text its
/// values come from: `None` unless the schema is an object with properties.
pub fn plan(schema: &Value, text: &str) -> Option<FieldPlan> {
    let properties = schema.get("properties")?.as_object()?;
    (!properties.is_empty()).then(|| FieldPlan {
        schema: schema.clone(),
        text: text.to_owned(),
    })
}

impl FieldPlan {
    /// The grammar schema once the properties `written` are written and their values `taken`:
    /// every other property's `enum` without those values and the spans that hold one or lie
    /// inside one (unless the request writes the value twice, or nothing would be left).
    pub fn schema_after(&self, written: &[String], taken: &[Value]) -> Value {
        let mut schema = self.schema.clone();
        let Some(Value::Object(properties)) = schema.get_mut("properties") else {
            return schema;
        };
        for (name, property) in properties.iter_mut() {
            if written.contains(name) {
                continue;
            }
            if let Some(Value::Array(choices)) = property.get_mut("enum") {
                let open: Vec<Value> = choices
                    .iter()
                    .filter(|c| {
                        !taken
                            .iter()
                            .any(|t| (same(c, t) || overlap(c, t)) && !self.written_twice(t))
                    })
                    .cloned()
                    .collect();
                if !open.is_empty() {
                    *choices = open;
                }
            }
        }
        schema
    }

    fn written_twice(&self, value: &Value) -> bool {
        match value {
            Value::String(s) if !s.trim().is_empty() => {
                let needle = s.trim().to_lowercase();
                self.text.to_lowercase().matches(&needle).count() >= 2
            }
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                spans::mentions(&self.text)
                    .iter()
                    .filter(|m| (m.written.value() - x).abs() < 1e-9)
                    .count()
                    >= 2
            }
            _ => true,
        }
    }
}

/// Whether two scalar values are the same value: strings ignoring case and a final period,
/// numbers by value, a string and a number when the string reads as that number.
fn same(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.replace(',', "").parse().ok(),
        _ => None,
    };
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            x.trim_end_matches('.').to_lowercase() == y.trim_end_matches('.').to_lowercase()
        }
        _ => matches!((number(a), number(b)), (Some(x), Some(y)) if (x - y).abs() < 1e-9),
    }
}

/// Whether one value's words hold the other's (`Biscuit is a beagle` and `Biscuit`; `LH`
/// and `LH 1234`): the same words of the request in two fields.
fn overlap(a: &Value, b: &Value) -> bool {
    let words = |v: &Value| -> Vec<String> {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return Vec::new(),
        };
        text.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (a, b) = (words(a), words(b));
    let holds = |long: &[String], short: &[String]| {
        !short.is_empty() && long.windows(short.len()).any(|w| w == short)
    };
    holds(&a, &b) || holds(&b, &a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_taken_once_is_not_offered_again() {
        let schema = json!({"type": "object", "properties": {
            "company": {"enum": ["Brightline", "Toronto"]},
            "title": {"enum": ["Brightline", "data engineer", "Brightline is hiring"]},
            "count": {"enum": [2, 3]},
            "only": {"enum": ["Brightline"]}
        }});
        let plan = plan(
            &schema,
            "Brightline is hiring a data engineer in Toronto, 2 or 2",
        )
        .unwrap();
        let written = ["company".to_owned(), "count".to_owned()];
        let taken = [json!("brightline"), json!(2)];
        let after = plan.schema_after(&written, &taken);
        let props = &after["properties"];
        assert_eq!(props["company"], schema["properties"]["company"]);
        assert_eq!(props["title"]["enum"], json!(["data engineer"]));
        // The last field would be left with nothing.
        assert_eq!(props["only"]["enum"], json!(["Brightline"]));
        let twice = plan.schema_after(&[], &[json!(2)]);
        assert_eq!(twice["properties"]["count"]["enum"], json!([2, 3]));
        assert!(same(&json!("275.40"), &json!(275.4)));
        assert!(overlap(&json!("LH"), &json!("LH 1234")));
        assert!(super::plan(&json!({"type": "string"}), "text").is_none());
    }
}
