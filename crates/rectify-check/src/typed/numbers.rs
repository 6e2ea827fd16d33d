//! Numbers made safe for the caller's `Deserialize` impls.
//!
//! The workspace builds serde_json with `arbitrary_precision`, so a number keeps the exact
//! text the model wrote (`10.50`, `1e3`). serde_json hands such a number to a visitor as a
//! plain f64 only when its text is the f64's own formatting; otherwise it sends a private
//! map, which `#[serde(flatten)]` fields and untagged enums (they buffer the input) cannot
//! turn back into a number: `10.50` then fails to deserialize into an `f64` inside them.
//! Before a value is deserialized into the caller's type, every number that is not an
//! integer that fits 64 bits is rewritten as its f64, whose text then round-trips: what
//! serde_json without `arbitrary_precision` would have parsed. Integers that fit are
//! untouched (serde_json visits them as integers already), numbers beyond f64 stay as
//! written, and the checked value itself keeps the model's text.

use std::borrow::Cow;

use serde_json::{Number, Value};

/// `value` with every non-integer number in its f64 formatting; borrowed when nothing
/// needed to change.
pub(crate) fn plain_numbers(value: &Value) -> Cow<'_, Value> {
    if needs_change(value) {
        Cow::Owned(rewrite(value))
    } else {
        Cow::Borrowed(value)
    }
}

fn needs_change(value: &Value) -> bool {
    match value {
        Value::Number(n) => plain(n).is_some_and(|p| p.to_string() != n.to_string()),
        Value::Array(items) => items.iter().any(needs_change),
        Value::Object(map) => map.values().any(needs_change),
        _ => false,
    }
}

fn rewrite(value: &Value) -> Value {
    match value {
        Value::Number(n) => Value::Number(plain(n).unwrap_or_else(|| n.clone())),
        Value::Array(items) => Value::Array(items.iter().map(rewrite).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), rewrite(v))).collect())
        }
        other => other.clone(),
    }
}

/// The f64 form of a number that is not a 64-bit integer (`None` for those and for numbers
/// beyond f64, which are left as written).
fn plain(n: &Number) -> Option<Number> {
    if n.is_u64() || n.is_i64() {
        return None;
    }
    n.as_f64()
        .filter(|f| f.is_finite())
        .and_then(Number::from_f64)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(untagged)]
    enum Amount {
        Number(f64),
        Text(String),
    }

    #[test]
    fn decimals_reach_untagged_enums_as_numbers() {
        let value: Value = serde_json::from_str(r#"[10.50, 1e3, 0.1, 7, "x"]"#).unwrap();
        let plain = plain_numbers(&value);
        assert!(matches!(plain, Cow::Owned(_)));
        let amounts: Vec<Amount> = Vec::deserialize(plain.as_ref()).unwrap();
        assert_eq!(
            amounts,
            [
                Amount::Number(10.5),
                Amount::Number(1000.0),
                Amount::Number(0.1),
                Amount::Number(7.0),
                Amount::Text("x".into())
            ]
        );
    }

    #[test]
    fn values_without_such_numbers_are_borrowed() {
        let value = json!({"a": [1, -2, 0.5, "t", null]});
        assert!(matches!(plain_numbers(&value), Cow::Borrowed(_)));
        let huge: Value = serde_json::from_str("1e400").unwrap();
        assert!(matches!(plain_numbers(&huge), Cow::Borrowed(_)));
        // Past 64 bits an integer becomes the f64 serde_json would otherwise have parsed.
        let big: Value = serde_json::from_str("123456789012345678901234567890").unwrap();
        assert_eq!(plain_numbers(&big).to_string(), "1.2345678901234568e+29");
    }
}
