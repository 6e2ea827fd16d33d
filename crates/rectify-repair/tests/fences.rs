//! A fence inside a fence: a model wraps its whole answer in an unlabelled fence and puts the
//! payload in a labelled one inside it. The labelled fence holds the payload; the prose
//! around it, inside and outside the outer fence, is not a candidate.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::{RepairOptions, repair, repair_to_json};
use serde_json::{Value, json};

/// Small JSON objects: string, number and boolean members, one nested list.
fn document() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,8}",
        "[A-Za-z ,.!?]{0,20}",
        any::<i32>(),
        any::<bool>(),
        prop::collection::vec("[a-z]{0,6}", 0..4),
    )
        .prop_map(
            |(key, text, n, flag, list)| json!({ key: text, "n": n, "flag": flag, "list": list }),
        )
}

/// A line of prose: words and punctuation, no brackets, quotes or backticks.
fn prose() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z ,.!?]{0,30}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_labelled_fence_inside_holds_the_payload(
        doc in document(),
        lines in prop::collection::vec(prose(), 4),
        pretty in any::<bool>(),
    ) {
        let body = if pretty {
            serde_json::to_string_pretty(&doc).unwrap()
        } else {
            doc.to_string()
        };
        let text = format!(
            "{}\n```\n{}\n```json\n{body}\n```\n{}\n```\n{}\n",
            lines[0], lines[1], lines[2], lines[3]
        );
        let options = RepairOptions::default();
        let out = repair(&text, &options);
        prop_assert_eq!(out.value.as_ref(), Some(&doc), "{}", text);
        prop_assert!(out.repairs.iter().all(|r| r.code == "extract.code_fence"
            || r.code == "extract.prose"), "{:?}", out.repairs);
        let fast = repair_to_json(&text, &options);
        prop_assert_eq!(fast.json, Some(doc.to_string()));
    }
}

#[test]
fn a_fence_whose_content_starts_with_the_payload_is_not_looked_into() {
    let text = "```\n{\"a\": \"x\"}\n```\n";
    let out = repair(text, &RepairOptions::default());
    assert_eq!(out.value, Some(json!({"a": "x"})));
}

proptest! {
    /// Code in a fence written as a member's value is that member's string, line breaks,
    /// blank lines and quotes included, on both the value and the text path.
    #[test]
    fn a_fence_as_a_value_is_its_code(
        lines in prop::collection::vec("[a-z =()\"']{0,12}", 1..5),
        tag in "(python|js|)",
    ) {
        let code = lines.join("\n");
        prop_assume!(!code.contains("```"));
        // Unlabelled, code that starts like JSON is read as a fence around JSON (layout).
        prop_assume!(!tag.is_empty() || !code.trim_start().starts_with(['"', '\'']));
        let text = format!("{{\"code\": ```{tag}\n{code}\n```, \"n\": 1}}");
        let out = repair(&text, &RepairOptions::default());
        prop_assert_eq!(out.value.clone(), Some(json!({"code": code, "n": 1})), "{}", text);
        prop_assert!(out.repairs.iter().any(|r| r.code == "json.triple_quotes"));
        let written = repair_to_json(&text, &RepairOptions::default());
        let reread: Value = serde_json::from_str(written.json.as_deref().unwrap()).unwrap();
        prop_assert_eq!(Some(reread), out.value);
    }
}

#[test]
fn code_in_another_language_is_no_payload() {
    let options = RepairOptions::default();
    // The only fence is code: the JSON in the prose after it is the answer.
    let after = "```rust\nlet x = 42;\n```\nThe result is {\"data\": \"inline\"}";
    let out = repair(after, &options);
    assert_eq!(out.value, Some(json!({"data": "inline"})));
    assert!(out.repairs.iter().any(|r| r.code == "extract.prose"));
    // Beside a JSON fence, a code fence is no candidate (no choice to make).
    let beside = "```json\n{\"a\": 1}\n```\n```rust\nfn x() {}\n```";
    let out = repair(beside, &options);
    assert_eq!(out.value, Some(json!({"a": 1})));
    assert!(out.is_valid());
    // A code-labelled fence that opens with a bracket may still be the payload, after a
    // comment line too; the prose after it is then no candidate.
    let dict = "```python\n{\"a\": 1}\n```";
    assert_eq!(repair(dict, &options).value, Some(json!({"a": 1})));
    let commented = "```python\n# the result\n{\"a\": 1, \"b\": 2}\n```\nValues are in [0, 1].";
    assert_eq!(
        repair(commented, &options).value,
        Some(json!({"a": 1, "b": 2}))
    );
    // Two fences that may both hold a payload: a choice, refused without `--unsafe`.
    let two = "```js\n// answer\n{\"a\": 1}\n```\n```json\n{\"b\": 2}\n```";
    assert!(!repair(two, &options).is_valid());
}
