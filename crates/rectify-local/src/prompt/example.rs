//! Builds an example value that follows a JSON Schema, for the few-shot prompt.
//!
//! The example shows a base model the shape of the answer: every property, one or two array
//! items, enum and const values, lengths and bounds respected where simple, ids like `^T[0-9]+$`
//! filled in. Items of an array differ from each other (the n-th item gets the n-th enum value,
//! numbered strings and ids): measured on Gemma 3 270M, identical example items taught the model
//! to repeat items, which breaks uniqueness rules. Explicit `examples`, `default` and `const`
//! win. Local `$ref`s (`#/$defs/..`, `#/definitions/..`) are followed; depth is bounded so
//! recursive schemas terminate.

use serde_json::{Map, Value, json};

const MAX_DEPTH: usize = 8;

/// An example instance of `schema`.
pub fn example_for(schema: &Value) -> Value {
    Builder { root: schema }.value(schema, "value", 0, 0)
}

struct Builder<'a> {
    root: &'a Value,
}

impl Builder<'_> {
    /// `item` is the 1-based position in the nearest enclosing array, 0 outside arrays.
    fn value(&self, schema: &Value, name: &str, depth: usize, item: usize) -> Value {
        let Some(obj) = schema.as_object() else {
            return json!(null);
        };
        if depth > MAX_DEPTH {
            return json!(null);
        }
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return match self.resolve(reference) {
                Some(target) => self.value(target, name, depth + 1, item),
                None => json!(null),
            };
        }
        if let Some(value) = explicit(obj, item) {
            return value;
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(first) = obj
                .get(key)
                .and_then(Value::as_array)
                .and_then(|a| a.first())
            {
                return self.value(first, name, depth + 1, item);
            }
        }
        match primary_type(obj) {
            "object" => self.object(obj, depth, item),
            "array" => self.array(obj, name, depth, item),
            "string" => string(obj, name, item),
            "integer" => number(obj, true, item),
            "number" => number(obj, false, item),
            "boolean" => json!(true),
            _ => json!(null),
        }
    }

    fn object(&self, obj: &Map<String, Value>, depth: usize, item: usize) -> Value {
        let mut out = Map::new();
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            for (key, sub) in props {
                out.insert(key.clone(), self.value(sub, key, depth + 1, item));
            }
        }
        Value::Object(out)
    }

    /// `item` is the position of the enclosing array item: an optional list (`minItems: 0`)
    /// in the first item is shown empty, so that lists of references (`dependsOn`) do not show
    /// the first item pointing at itself — the model copied that.
    fn array(&self, obj: &Map<String, Value>, name: &str, depth: usize, item: usize) -> Value {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(1);
        let max = obj.get("maxItems").and_then(Value::as_u64).unwrap_or(2);
        let count = if min == 0 && item == 1 {
            0
        } else {
            min.clamp(1, 2).min(max)
        };
        let items = obj.get("items").unwrap_or(&Value::Null);
        let item_name = name.strip_suffix('s').unwrap_or(name);
        let items: Vec<Value> = (1..=count)
            .map(|i| {
                let i = usize::try_from(i).unwrap_or(1);
                match self.value(items, item_name, depth + 1, i) {
                    Value::Null if !items.is_object() => json!(format!("{item_name} {i}")),
                    value => value,
                }
            })
            .collect();
        Value::Array(items)
    }

    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }
}

fn explicit(obj: &Map<String, Value>, item: usize) -> Option<Value> {
    if let Some(value) = obj.get("const") {
        return Some(value.clone());
    }
    for key in ["examples", "enum"] {
        if let Some(values) = obj
            .get(key)
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
        {
            return values.get(item.saturating_sub(1) % values.len()).cloned();
        }
    }
    obj.get("default").cloned()
}

fn primary_type(obj: &Map<String, Value>) -> &str {
    match obj.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if obj.contains_key("properties") => "object",
        _ if obj.contains_key("items") => "array",
        _ => "string",
    }
}

fn string(obj: &Map<String, Value>, name: &str, item: usize) -> Value {
    if let Some(id) = obj
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(|p| prefixed_id(p, item))
    {
        return Value::String(id);
    }
    let mut text = match obj.get("format").and_then(Value::as_str) {
        Some("date") => "2024-05-01".to_owned(),
        Some("date-time") => "2024-05-01T09:30:00Z".to_owned(),
        Some("email") => "ada@example.com".to_owned(),
        Some("uri" | "url") => "https://example.com/page".to_owned(),
        Some("uuid") => "123e4567-e89b-12d3-a456-426614174000".to_owned(),
        _ if item > 0 => format!("example {} {item}", name.replace(['_', '-'], " ")),
        _ => format!("example {}", name.replace(['_', '-'], " ")),
    };
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    while (text.chars().count() as u64) < min {
        text.push_str(" text");
    }
    if let Some(max) = obj.get("maxLength").and_then(Value::as_u64) {
        text = text
            .chars()
            .take(usize::try_from(max).unwrap_or(usize::MAX))
            .collect();
    }
    Value::String(text)
}

/// An id for patterns of the form `^PREFIX[0-9]+$` (such as `^T[0-9]+$`): `T1`, `T2`, ...
fn prefixed_id(pattern: &str, item: usize) -> Option<String> {
    let prefix = pattern.strip_prefix('^')?.strip_suffix("[0-9]+$")?;
    prefix
        .chars()
        .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
        .then(|| format!("{prefix}{}", item.max(1)))
}

fn number(obj: &Map<String, Value>, integer: bool, item: usize) -> Value {
    let lower = obj.get("minimum").and_then(Value::as_f64).or_else(|| {
        obj.get("exclusiveMinimum")
            .and_then(Value::as_f64)
            .map(|m| m + 1.0)
    });
    let upper = obj.get("maximum").and_then(Value::as_f64).or_else(|| {
        obj.get("exclusiveMaximum")
            .and_then(Value::as_f64)
            .map(|m| m - 1.0)
    });
    let value = in_range(lower, upper, item.saturating_sub(1) as f64);
    if integer {
        json!(value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or(json!(3), Value::Number)
    }
}

/// The example value of the `offset`-th array item (0 outside arrays): 3, 4, 5, ... raised to
/// the lower bound and capped at the upper one; in a small range (ten values or fewer) the
/// range itself, from its lower end, so that items get distinct values (a capped `3, 3`
/// taught the model to repeat the value and break uniqueness rules).
fn in_range(lower: Option<f64>, upper: Option<f64>, offset: f64) -> f64 {
    let lower = lower.map(f64::ceil);
    let upper = upper.map(f64::floor);
    if let (Some(low), Some(high)) = (lower, upper)
        && (0.0..10.0).contains(&(high - low))
    {
        return low + offset.rem_euclid(high - low + 1.0);
    }
    let value = lower.map_or(3.0, |l| l.max(3.0)) + offset;
    upper.map_or(value, |u| value.min(u))
}
