//! Field-level scoring of an answer against hand-written expected values.
//!
//! A field is a leaf of the expected value: a string (matched ignoring case and surrounding
//! whitespace), a number (matched by value: `1250` is `1250.00`), a boolean, a
//! `{"one_of": [...]}` of accepted answers, or a list of scalars (one field, matched as a set:
//! same length, every expected item present). Objects and lists of objects are walked.

use serde_json::Value;

/// Fields of `expected` that `answer` gets right, and all fields.
pub fn score(expected: &Value, answer: Option<&Value>) -> (usize, usize) {
    let mut tally = (0, 0);
    walk(expected, answer, &mut tally);
    tally
}

fn walk(expected: &Value, answer: Option<&Value>, tally: &mut (usize, usize)) {
    match expected {
        Value::Object(map) if !is_alternatives(expected) => {
            for (key, sub) in map {
                walk(sub, answer.and_then(|a| a.get(key)), tally);
            }
        }
        Value::Array(items)
            if items.iter().any(Value::is_object) && !items.iter().any(is_alternatives) =>
        {
            for (index, sub) in items.iter().enumerate() {
                walk(sub, answer.and_then(|a| a.get(index)), tally);
            }
        }
        leaf => {
            tally.1 += 1;
            tally.0 += usize::from(answer.is_some_and(|a| matches(leaf, a)));
        }
    }
}

fn is_alternatives(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|m| m.len() == 1 && m.contains_key("one_of"))
}

/// Whether `answer` matches the expected leaf.
fn matches(expected: &Value, answer: &Value) -> bool {
    match (expected, answer) {
        (Value::Object(map), _) => map
            .get("one_of")
            .and_then(Value::as_array)
            .is_some_and(|alternatives| alternatives.iter().any(|e| matches(e, answer))),
        (Value::Array(items), Value::Array(got)) => {
            items.len() == got.len() && items.iter().all(|e| got.iter().any(|g| matches(e, g)))
        }
        (Value::String(e), Value::String(g)) => e.trim().to_lowercase() == g.trim().to_lowercase(),
        (Value::Number(e), Value::Number(g)) => match (e.as_f64(), g.as_f64()) {
            (Some(e), Some(g)) => (e - g).abs() < 1e-9,
            _ => false,
        },
        (e, g) => e == g,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_match_as_documented() {
        let expected = json!({
            "customer": "ACME Corp",
            "total": 1250,
            "paid": false,
            "hotel": {"one_of": ["Harbour Hotel", "the Harbour Hotel"]},
            "tags": ["a", "b"],
            "items": [{"product": "tea", "quantity": 5}]
        });
        let answer = json!({
            "customer": " acme corp", "total": 1250.00, "paid": false,
            "hotel": "The Harbour Hotel", "tags": ["b", "a"],
            "items": [{"product": "tea", "quantity": 4}]
        });
        assert_eq!(score(&expected, Some(&answer)), (6, 7));
        assert_eq!(score(&expected, None), (0, 7));
        let wrong = json!({"customer": "example customer", "total": 3, "paid": true,
                           "hotel": "Hotel", "tags": ["a"], "items": []});
        assert_eq!(score(&expected, Some(&wrong)), (0, 7));
    }
}
