//! Several candidates with a schema: each is repaired and the one that fits best stands
//! (fewest errors, then fewest coercions); the others are recorded as left out (issue 12,
//! item 9).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_repair::{RepairOptions, repair};
use serde_json::{Value, json};

fn person() -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name", "age"]
    })
}

fn options() -> RepairOptions {
    RepairOptions::default()
        .with_unsafe(true)
        .with_schema(person())
}

/// When only one candidate fits, the schema decided: the choice is the safe
/// `extract.schema_choice`, applied without permission, and the candidate left out is
/// recorded with its text.
#[test]
fn prose_with_two_objects_gives_the_one_that_fits() {
    let text = r#"Here is one {"a": 1} and the answer {"name": "Ada", "age": 36} hope it helps"#;
    let safe_only = RepairOptions::default().with_schema(person());
    for options in [options(), safe_only] {
        let out = repair(text, &options);
        assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
        let left_out: Vec<&str> = out
            .repairs
            .iter()
            .filter(|r| r.code == "extract.schema_choice")
            .map(|r| r.before.as_str())
            .collect();
        assert_eq!(left_out, vec![r#"{"a": 1}"#]);
    }
}

/// Two candidates that both fit: the first stands, but choosing is not the schema's doing
/// (`extract.multiple_values`, unsafe, with a warning).
#[test]
fn two_fitting_candidates_are_an_unsafe_choice() {
    let text = r#"{"name": "Ada", "age": 36} or {"name": "Bo", "age": 7}"#;
    let refused = repair(text, &RepairOptions::default().with_schema(person()));
    assert_eq!(refused.value, None);
    let out = repair(text, &options());
    assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
    assert!(
        out.repairs
            .iter()
            .any(|r| r.code == "extract.multiple_values")
    );
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.code == "repair.ambiguous_candidates")
    );
}

#[test]
fn fewer_coercions_break_a_tie() {
    let text = "```json\n{\"name\": \"Ada\", \"age\": \"36\"}\n```\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```";
    let out = repair(text, &options());
    assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
    assert!(
        out.repairs
            .iter()
            .all(|r| r.code != "coerce.string_to_number")
    );
    assert!(
        out.diagnostics
            .iter()
            .all(|d| d.code != "repair.ambiguous_candidates")
    );
}

#[test]
fn unquoted_values_with_spaces_split_at_known_keys() {
    let schema = json!({"type": "object", "properties": {
        "type": {"type": "string"}, "name": {"type": "string"}, "description": {"type": "string"}}});
    let text = "{type: page, name: Home Page, description: Landing page with hero}";
    let out = repair(
        text,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_schema(schema),
    );
    assert_eq!(
        out.value,
        Some(json!({"type": "page", "name": "Home Page", "description": "Landing page with hero"}))
    );
}

/// Without a schema, a second object in the prose after the first is data: dropping it is
/// choosing between values (`extract.multiple_values`, unsafe), as for `[1] [2]` — never a safe
/// prose repair. Prose without a value after it is still dropped safely.
#[test]
fn a_second_value_in_trailing_prose_is_not_dropped_as_prose() {
    let text = r#"Here: {"a": 1} and also {"b": 2}"#;
    let safe = repair(text, &RepairOptions::default());
    assert!(
        safe.diagnostics
            .iter()
            .any(|d| d.code == "repair.unsafe" && d.message.contains("extract.multiple_values")),
        "{:#?}",
        safe.diagnostics
    );
    let unsafe_ok = repair(text, &RepairOptions::default().with_unsafe(true));
    assert_eq!(unsafe_ok.value, Some(json!({"a": 1})));
    assert!(
        unsafe_ok
            .repairs
            .iter()
            .any(|r| r.code == "extract.multiple_values" && r.before.contains(r#"{"b": 2}"#)),
        "{:#?}",
        unsafe_ok.repairs
    );
    let prose = repair(
        r#"Here: {"a": 1} hope this {helps}"#,
        &RepairOptions::default(),
    );
    assert_eq!(prose.value, Some(json!({"a": 1})));
    assert!(
        prose.repairs.iter().all(|r| r.code == "extract.prose"),
        "{:#?}",
        prose.repairs
    );
}

#[test]
fn several_objects_for_an_array_of_objects_are_all_kept() {
    let list = json!({"type": "array", "items": person()});
    let options = RepairOptions::default().with_unsafe(true).with_schema(list);
    let prose = r#"Here: {"name": "Ada", "age": 36} and {"name": "Bo", "age": 7}"#;
    let fences = "```json\n{\"name\": \"Ada\", \"age\": 36}\n```\n```json\n{\"name\": \"Bo\", \"age\": 7}\n```";
    for text in [prose, fences] {
        let out = repair(text, &options);
        assert_eq!(
            out.value,
            Some(json!([{"name": "Ada", "age": 36}, {"name": "Bo", "age": 7}])),
            "{text}"
        );
        assert!(
            out.repairs
                .iter()
                .any(|r| r.code == "extract.schema_choice")
        );
    }
    // An example that does not fit next to the answer's array: the array stands.
    let out = repair(
        r#"Example: {"name": "X"}. Answer: [{"name": "Ada", "age": 36}]"#,
        &options,
    );
    assert_eq!(out.value, Some(json!([{"name": "Ada", "age": 36}])));
}

#[test]
fn prose_after_a_repaired_value_may_hold_the_candidate_that_fits() {
    let text = r#"Let me think. The user wants {name}. So: {"name": "Ada", "age": 36}"#;
    // The repairs inside the candidate left out (an unsafe `json.stray_text`) give way to
    // the record of its drop: no permission is needed.
    let out = repair(text, &RepairOptions::default().with_schema(person()));
    assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
    let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(
        codes,
        vec!["extract.prose", "extract.prose", "extract.schema_choice"]
    );
}

#[test]
fn a_value_dropped_after_a_repaired_one_is_an_unsafe_choice() {
    // Without a schema the first value stands, as after a valid one; the JSON dropped after
    // it is recorded as a choice between values (unsafe), not as prose.
    let text = r#"{"a": 1,} and then {"b": 2}"#;
    let refused = repair(text, &RepairOptions::default());
    assert_eq!(refused.value, None);
    let out = repair(text, &RepairOptions::default().with_unsafe(true));
    assert_eq!(out.value, Some(json!({"a": 1})));
    let dropped: Vec<&str> = out
        .repairs
        .iter()
        .filter(|r| r.code == "extract.multiple_values")
        .map(|r| r.before.as_str())
        .collect();
    assert_eq!(dropped, vec![r#"and then {"b": 2}"#]);
}

#[test]
fn doubled_braces_are_a_template_escape() {
    let text = r#"{{"name": "Ada", "age": 36, "tags": [{{"id": "{x}"}}]}}"#;
    let out = repair(text, &RepairOptions::default());
    assert_eq!(
        out.value,
        Some(json!({"name": "Ada", "age": 36, "tags": [{"id": "{x}"}]}))
    );
    let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(codes, vec!["json.doubled_braces"]);
}

#[test]
fn reasoning_blocks_before_the_answer_are_prose() {
    let text = "<think>The user wants {name} and maybe {\"name\": \"Bob\"}.</think>\n{\"name\": \"Ada\", \"age\": 36}";
    for options in [RepairOptions::default(), options()] {
        let out = repair(text, &options);
        assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
        let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes, vec!["extract.prose"]);
        assert!(out.repairs[0].before.starts_with("<think>"));
    }
    // A scalar answer after the block: read from the text after it, safely.
    let number = RepairOptions::default().with_schema(json!({"type": "number"}));
    let out = repair("<think>is it 7 or 8?</think>8.5", &number);
    assert_eq!(out.value, Some(json!(8.5)));
    let levels = RepairOptions::default().with_schema(json!({"enum": ["positive", "negative"]}));
    let out = repair("<think>positive? no.</think> Negative", &levels);
    assert_eq!(out.value, Some(json!("negative")));
}

#[test]
fn a_scalar_is_not_read_out_of_an_object_found_in_the_text() {
    let number = RepairOptions::default()
        .with_unsafe(true)
        .with_schema(json!({"type": "number"}));
    let out = repair("Result:\n```json\n{\"score\": 2, \"of\": 10}\n```", &number);
    assert_eq!(out.value, Some(json!({"score": 2, "of": 10})));
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.code == "repair.schema_mismatch")
    );
}

#[test]
fn a_kept_candidate_keeps_the_repairs_of_the_document_it_was_read_from() {
    // Both candidates come out of one escaped document and share its span: dropping the
    // first must not forget the unescaping the kept one needed.
    let text = r#"{\"name\": \"Ada\"} {\"name\": \"Ada\", \"age\": 36}"#;
    let out = repair(text, &RepairOptions::default().with_schema(person()));
    assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
    let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
    assert!(codes.contains(&"extract.escaped_document"), "{codes:?}");
    assert!(codes.contains(&"extract.schema_choice"), "{codes:?}");
}
