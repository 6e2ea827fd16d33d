//! A list target: when the schema's root is an array of strings and the answer is a Markdown
//! list (`- apple`, `* apple`, `1. apple`), its items are the array; the lines around the list
//! (an introduction, a closing remark) are dropped, recorded.

use rectify_core::Repair;
use serde_json::Value;

use super::schema::{resolve, types};
use super::text_reading;
use crate::rules::RepairRule;

/// The items of the Markdown list `text` holds as an array, with the repair that reads them;
/// `None` when it holds no list line.
pub(super) fn read(text: &str) -> Option<(Value, Repair)> {
    let items = list_items(text);
    if items.is_empty() {
        return None;
    }
    let value = Value::Array(items.into_iter().map(Value::String).collect());
    Some(text_reading(RepairRule::TextAsList, text.trim(), value))
}

/// True when `schema` (at its root) wants an array whose items are strings.
pub(super) fn list_target(schema: &Value) -> bool {
    let root = resolve(schema, schema);
    types(root) == ["array"]
        && root
            .get("items")
            .is_some_and(|items| types(resolve(schema, items)) == ["string"])
}

/// The items of the Markdown list lines of `text` (bullets `-`, `*`, `+`, `•` or numbers
/// `1.`, `1)`, followed by a blank), in order.
fn list_items(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| item(line.trim_start()))
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

fn item(line: &str) -> Option<&str> {
    let rest = ["- ", "* ", "+ ", "• "]
        .iter()
        .find_map(|bullet| line.strip_prefix(bullet))
        .or_else(|| {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            let after = line.get(digits..)?;
            (digits > 0 && digits < 4)
                .then(|| {
                    after
                        .strip_prefix(". ")
                        .or_else(|| after.strip_prefix(") "))
                })
                .flatten()
        })?;
    Some(rest.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_lines_are_read_and_other_lines_dropped() {
        let text = "Items:\n- apple\n     - banana\n* cherry\n\nThat is all.";
        assert_eq!(list_items(text), ["apple", "banana", "cherry"]);
        assert_eq!(
            list_items("1. foo\n\n2) bar\n10. baz"),
            ["foo", "bar", "baz"]
        );
        assert!(list_items("-5 degrees and 2024. Nothing here").is_empty());
    }

    #[test]
    fn only_an_array_of_strings_is_a_list_target() {
        let strings = serde_json::json!({"type": "array", "items": {"type": "string"}});
        assert!(list_target(&strings));
        assert!(!list_target(&serde_json::json!({"type": "array"})));
        assert!(!list_target(
            &serde_json::json!({"type": "array", "items": {"type": "integer"}})
        ));
    }
}
