//! A list target: when the schema's root is an array of scalars (strings, numbers, booleans,
//! enum values) and the answer is a Markdown list (`- apple`, `* apple`, `1. apple`), its
//! items are the array, each read as the item schema wants (`- one` → `"ONE"`); the lines
//! around the list (an introduction, a closing remark) are dropped, recorded.

use rectify_core::{Applicability, Repair};
use serde_json::Value;

use super::schema::{resolve, types};
use super::text_reading;
use crate::rules::RepairRule;

/// The items of the Markdown list `text` holds as the array `schema` (resolved in `root`)
/// wants, with the repair that reads them; `None` when it holds no list line or an item does
/// not read.
pub(super) fn read(root: &Value, schema: &Value, text: &str) -> Option<(Value, Repair)> {
    let items = list_items(text);
    if items.is_empty() {
        return None;
    }
    typed(root, schema, RepairRule::TextAsList, text.trim(), items)
}

/// `items`, read out of `text` under `rule`, each read as the item schema of `schema`
/// (resolved in `root`) wants (the text of a string item as it is). The repair is unsafe
/// when `rule` or an item's reading is; `None` when an item does not read.
pub(super) fn typed(
    root: &Value,
    schema: &Value,
    rule: RepairRule,
    text: &str,
    items: Vec<String>,
) -> Option<(Value, Repair)> {
    let item_schema = resolve(root, resolve(root, schema).get("items")?);
    let mut careful = false;
    let values = items
        .into_iter()
        .map(|item| {
            let (value, reading) = super::text::read(root, item_schema, &item)?;
            careful |= reading.applicability == Applicability::Unsafe;
            Some(value)
        })
        .collect::<Option<Vec<Value>>>()?;
    let (value, mut repair) = text_reading(rule, text, Value::Array(values));
    if careful {
        repair.applicability = Applicability::Unsafe;
    }
    Some((value, repair))
}

/// True when `schema` (resolved in `root`) wants an array whose items are scalars.
pub(super) fn list_target(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    types(schema) == ["array"]
        && schema
            .get("items")
            .is_some_and(|items| super::scalar_schema(root, items, 0))
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
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

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
    fn only_an_array_of_scalars_is_a_list_target() {
        let strings = json!({"type": "array", "items": {"type": "string"}});
        assert!(list_target(&strings, &strings));
        let target = |schema: Value| list_target(&schema, &schema);
        assert!(target(json!({"type": "array", "items": {"enum": ["A"]}})));
        assert!(!target(json!({"type": "array"})));
        assert!(!target(
            json!({"type": "array", "items": {"type": "object"}})
        ));
    }

    #[test]
    fn items_are_read_as_the_item_schema_wants() {
        let enums = json!({"type": "array", "items": {"enum": ["ONE", "TWO"]}});
        let (value, repair) = read(&enums, &enums, "Here:\n- one\n- TWO\n").unwrap();
        assert_eq!(value, json!(["ONE", "TWO"]));
        assert_eq!(repair.applicability, Applicability::Safe);
        let numbers = json!({"type": "array", "items": {"type": "integer"}});
        let (value, repair) = read(&numbers, &numbers, "1. 12\n2. 7").unwrap();
        assert_eq!(value, json!([12, 7]));
        assert_eq!(repair.applicability, Applicability::Unsafe);
        assert!(read(&enums, &enums, "- ONE\n- FOUR").is_none());
    }
}
