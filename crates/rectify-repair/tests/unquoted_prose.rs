//! Unquoted prose as a member's value (issue 12, item 10): models write
//! `{name: Home Page, description: Landing page, with hero}` and Markdown answers whose
//! values run over several lines. The prose goes on past a comma or a line break until the
//! next member (`key:`), a closing bracket or the end; nothing is dropped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::{RepairOptions, repair, repair_to_json};
use serde_json::{Map, Value, json};

fn unsafe_ok() -> RepairOptions {
    RepairOptions::default().with_unsafe(true)
}

/// Prose: segments of lowercase words joined by `, ` or a blank line, its first segment of
/// at least two words.
fn prose() -> impl Strategy<Value = String> {
    let words = |min| prop::collection::vec("[a-z]{2,8}", min..4).prop_map(|w| w.join(" "));
    (
        words(2),
        prop::collection::vec((words(1), prop::bool::ANY), 0..3),
    )
        .prop_map(|(first, rest)| {
            let mut out = first;
            for (segment, blank_line) in rest {
                out.push_str(if blank_line { ",\n\n" } else { ", " });
                out.push_str(&segment);
            }
            out
        })
}

proptest! {
    /// Every member's prose comes back whole, under its own key, on both paths.
    #[test]
    fn prose_values_are_kept_whole(
        members in prop::collection::btree_map("[a-z]{1,6}_[a-z]{1,6}", prose(), 1..4),
        newline in prop::bool::ANY,
    ) {
        let sep = if newline { ",\n" } else { ", " };
        let body: Vec<String> = members.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let text = format!("{{{}}}", body.join(sep));
        let want: Map<String, Value> = members
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.trim().to_owned())))
            .collect();
        let out = repair(&text, &unsafe_ok());
        prop_assert_eq!(out.value.clone(), Some(Value::Object(want)), "{}", text);
        let written = repair_to_json(&text, &unsafe_ok());
        let reread: Value = serde_json::from_str(written.json.as_deref().unwrap()).unwrap();
        prop_assert_eq!(Some(reread), out.value);
    }
}

#[test]
fn a_markdown_value_runs_to_the_closing_brace() {
    let text = "{\n  \"my_field_0\": true,\n  \"my_field_1\": **First fragment, Another fragment**\n\nFrag 2, frag 3.\n}";
    assert_eq!(
        repair(text, &unsafe_ok()).value,
        Some(json!({
            "my_field_0": true,
            "my_field_1": "**First fragment, Another fragment**\n\nFrag 2, frag 3."
        }))
    );
}

#[test]
fn prose_stops_at_the_next_member() {
    let out = repair(
        "{description: Landing page, with hero, name: Home}",
        &unsafe_ok(),
    );
    assert_eq!(
        out.value,
        Some(json!({"description": "Landing page, with hero", "name": "Home"}))
    );
    let quoted = repair("{\"a\": some text,\n\"b\": 1}", &unsafe_ok());
    assert_eq!(quoted.value, Some(json!({"a": "some text", "b": 1})));
    // One word is a value, not prose: `{a: b, c}` keeps its old reading.
    let word = repair("{\"a\": hello, world}", &unsafe_ok());
    assert_eq!(word.value, Some(json!({"a": "hello"})));
}

#[test]
fn words_with_a_comment_mark_a_quote_or_a_keyword_are_a_guess() {
    for text in [
        "{\"a\": yes # confirmed\n}",
        "{\"a\": true false}",
        "{\"a\": null null, \"b\": 1}",
        "{'a': New York'}",
    ] {
        let out = repair(text, &RepairOptions::default());
        assert!(!out.is_valid(), "{text}: {:?}", out.value);
    }
}

proptest! {
    /// Words with no comma, colon or line break in a member's value end where the member
    /// ends: a safe reading. Going on past a comma, or in a list, the end is a guess.
    #[test]
    fn plain_words_are_a_safe_value(words in prop::collection::vec("[a-z]{2,8}", 2..5)) {
        let value = words.join(" ");
        prop_assume!(!["true", "false", "null", "nan", "none", "inf", "infinity", "undefined"]
            .iter()
            .any(|k| words.iter().any(|w| w == k)));
        let safe = repair(&format!("{{name: {value}, n: 1}}"), &RepairOptions::default());
        prop_assert_eq!(safe.value, Some(json!({"name": value.clone(), "n": 1})));
        prop_assert!(safe.repairs.iter().all(|r| r.code != "json.unquoted_text"));
        let past_comma = format!("{{name: {value}, {value}, n: 1}}");
        prop_assert!(repair(&past_comma, &RepairOptions::default()).value.is_none());
        let listed = format!("{{names: [{value}]}}");
        prop_assert!(repair(&listed, &RepairOptions::default()).value.is_none());
    }

    /// A number followed by words in a member's value is one text.
    #[test]
    fn a_number_followed_by_words_is_text(n in 0u32..100_000, words in prop::collection::vec("[A-Z][a-z]{1,6}", 1..3)) {
        let value = format!("{n} {}", words.join(" "));
        let text = format!("{{street: {value}, city: Oslo}}");
        let out = repair(&text, &unsafe_ok());
        prop_assert_eq!(out.value, Some(json!({"street": value, "city": "Oslo"})), "{}", text);
    }

    /// Literals, numbers, strings and containers in a list without commas are each a value.
    #[test]
    fn list_values_without_commas_stay_apart(items in prop::collection::vec(prop_oneof![
        Just(json!(true)), Just(json!(false)), Just(Value::Null),
        (0i32..1000).prop_map(Value::from),
        "[a-z]{1,6}".prop_map(Value::String),
        Just(json!({"k": 1})), Just(json!([1, 2])),
    ], 1..6)) {
        let body: Vec<String> = items.iter().map(Value::to_string).collect();
        let text = format!("[{}]", body.join(" "));
        let out = repair(&text, &unsafe_ok());
        prop_assert_eq!(out.value, Some(Value::Array(items)), "{}", text);
    }
}

#[test]
fn a_string_closed_with_another_quote_at_the_end_of_a_line() {
    let text = "{\"key\": [\n  \"value1\",\n  \"value4',\n  \"value5\"\n]}";
    let out = repair(text, &unsafe_ok());
    assert_eq!(
        out.value,
        Some(json!({"key": ["value1", "value4", "value5"]}))
    );
    assert!(
        out.repairs
            .iter()
            .any(|r| r.code == "json.missing_closing_quote" && r.before == "'")
    );
    // A literal before a plain word starts text.
    let words = repair("[true love, null value]", &unsafe_ok());
    assert_eq!(words.value, Some(json!(["true love", "null value"])));
}

proptest! {
    /// A closing quote doubled by mistake before a comma or a closing bracket is dropped,
    /// recorded: no empty string is invented.
    #[test]
    fn a_doubled_closing_quote_adds_no_element(items in prop::collection::vec("[a-z0-9]{1,6}", 1..5), doubled in 0usize..5) {
        let doubled = doubled % items.len();
        let body: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, s)| if i == doubled { format!("\"{s}\"\"") } else { format!("\"{s}\"") })
            .collect();
        let text = format!("[{}]", body.join(", "));
        let out = repair(&text, &unsafe_ok());
        prop_assert_eq!(out.value, Some(json!(items)), "{}", text);
        prop_assert!(out.repairs.iter().any(|r| r.code == "json.doubled_quote"));
    }
}
