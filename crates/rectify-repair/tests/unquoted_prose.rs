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
