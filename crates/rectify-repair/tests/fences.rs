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
