//! An array-of-strings schema root: a Markdown list in the answer is the array
//! (`coerce.text_as_list`), and nothing else changes because of it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::{RepairOptions, repair};
use serde_json::{Value, json};

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn options(schema: Value) -> RepairOptions {
    RepairOptions::default().with_schema(schema)
}

#[test]
fn a_markdown_list_is_the_array_the_schema_wants() {
    let text = "Your response should be a list. For example:\n\n1. foo\n\n2. bar\n\n3. baz";
    let out = repair(text, &options(strings()));
    assert_eq!(out.value, Some(json!(["foo", "bar", "baz"])));
    assert_eq!(out.repairs.len(), 1);
    assert_eq!(out.repairs[0].code, "coerce.text_as_list");
    assert!(out.repairs[0].before.contains("Your response"));
}

#[test]
fn list_items_are_read_as_the_item_schema_wants() {
    let levels = json!({"type": "array", "items": {"enum": ["LOW", "MEDIUM", "HIGH"]}});
    let out = repair("Priorities:\n- high\n- Low", &options(levels.clone()));
    assert_eq!(out.value, Some(json!(["HIGH", "LOW"])));
    assert_eq!(out.repairs.len(), 1);
    assert_eq!(out.repairs[0].code, "coerce.text_as_list");
    // An item that names no allowed value: no list is read.
    assert_eq!(
        repair("- high\n- urgent", &options(levels.clone())).value,
        None
    );
    let comma = repair("low, medium", &options(levels).with_unsafe(true));
    assert_eq!(comma.value, Some(json!(["LOW", "MEDIUM"])));
}

#[test]
fn json_that_fits_and_other_schemas_are_left_alone() {
    let json_list = repair("[\"a\", \"b\"]", &options(strings()));
    assert_eq!(json_list.value, Some(json!(["a", "b"])));
    assert!(json_list.repairs.is_empty());
    // Reading a number out of text is unsafe: refused unless allowed.
    let numbers = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(repair("- 1\n- 2", &options(numbers.clone())).value, None);
    let allowed = options(numbers).with_unsafe(true);
    assert_eq!(repair("- 1\n- 2", &allowed).value, Some(json!([1, 2])));
    assert_eq!(repair("- 1\n- two", &allowed).value, None);
    assert_eq!(repair("- a\n- b", &RepairOptions::default()).value, None);
    let at_least_three = json!({"type": "array", "items": {"type": "string"}, "minItems": 3});
    assert_eq!(repair("- a\n- b", &options(at_least_three)).value, None);
}

#[test]
fn values_written_as_a_list_stay_one_list_when_the_schema_wants_one() {
    let out = repair(
        "\"foo, foo2\",bar,baz",
        &options(strings()).with_unsafe(true),
    );
    assert_eq!(out.value, Some(json!(["foo, foo2", "bar", "baz"])));
    assert!(
        out.diagnostics
            .iter()
            .all(|d| d.code != "repair.ambiguous_candidates")
    );
    // One value that fits alone still wins over a list that does not.
    let object = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let out = repair("{\"a\": 1}\n{\"b\": 2}", &options(object).with_unsafe(true));
    assert_eq!(out.value, Some(json!({"a": 1})));
}

fn line() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "apple",
        "two words",
        "x: 1",
        "{\"a\": 1}",
        "[",
        "```",
        "- ",
        "",
        "   ",
        "é ü",
        "\"q\"",
    ]);
    let prefix = prop::sample::select(vec!["", "- ", "* ", "+ ", "• ", "1. ", "12) ", "  - ", "-"]);
    (prefix, word).prop_map(|(p, w)| format!("{p}{w}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Whatever the lines, a value read as a list holds only trimmed pieces of the text, and
    /// the recorded repair names the text it read.
    #[test]
    fn list_items_come_from_the_text(lines in prop::collection::vec(line(), 0..8)) {
        let text = lines.join("\n");
        let out = repair(&text, &options(strings()));
        if out.repairs.iter().any(|r| r.code == "coerce.text_as_list") {
            let items = out.value.as_ref().and_then(Value::as_array).unwrap();
            prop_assert!(!items.is_empty());
            for item in items {
                let s = item.as_str().unwrap();
                prop_assert!(!s.is_empty() && s == s.trim() && text.contains(s), "{s:?} not in {text:?}");
            }
        }
    }
}
