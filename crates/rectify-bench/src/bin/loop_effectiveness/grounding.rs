//! How much of an extraction answer comes from the request: the share of its leaf values
//! (strings and numbers) that appear in the prompt. Validity says nothing about content; a
//! base model can fill a valid shape with placeholders copied from the few-shot example.

use serde_json::Value;

/// Leaves of `value` found in `prompt`, and all leaves (booleans and nulls are not counted).
pub fn grounded(prompt: &str, value: &Value) -> (usize, usize) {
    let text = prompt.to_lowercase();
    let numbers = numbers_in(prompt);
    let mut found = (0, 0);
    walk(value, &mut |leaf| {
        let hit = match leaf {
            Value::String(s) => !s.trim().is_empty() && text.contains(&s.trim().to_lowercase()),
            Value::Number(n) => n.as_f64().is_some_and(|x| numbers.contains(&x)),
            _ => return,
        };
        found.0 += usize::from(hit);
        found.1 += 1;
    });
    found
}

fn walk(value: &Value, visit: &mut impl FnMut(&Value)) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| walk(v, visit)),
        Value::Object(map) => map.values().for_each(|v| walk(v, visit)),
        leaf => visit(leaf),
    }
}

/// Every number written in `text` (`1250.00`, `45`, `2025`).
fn numbers_in(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter_map(|w| w.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_strings_and_numbers_from_the_prompt() {
        let prompt = "ACME Corp owes 1250.00 EUR for the March deliveries.";
        let answer = json!({"customer": "ACME corp", "total": 1250, "currency": "EUR",
                            "note": "example note", "paid": false, "lines": [3]});
        assert_eq!(grounded(prompt, &answer), (3, 5));
    }
}
