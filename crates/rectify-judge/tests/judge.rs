//! The judge's rules, as cases and as properties over arbitrary texts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use proptest::prelude::*;
use rectify_core::{Diagnostic, Format, Location};
use rectify_judge::{Ending, Reading, RepairPolicy, TRUNCATED, Validator};
use serde_json::{Value, json};

fn schema() -> Value {
    json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}})
}

fn answers() -> Validator {
    Validator::for_schema(&schema()).unwrap()
}

fn files(format: Format) -> Validator {
    Validator::builder()
        .schema_value(schema())
        .reading(Reading::File)
        .format(Some(format))
        .build()
        .unwrap()
}

#[test]
fn a_valid_text_is_returned_unchanged() {
    for judge in [answers(), files(Format::Json)] {
        let j = judge.validate("{\"n\": 1}");
        assert!(j.is_valid(), "{j:?}");
        assert!(j.repairs.is_empty() && j.repaired_text.is_none());
    }
}

#[test]
fn a_file_is_repaired_in_its_own_format_and_located() {
    let j = files(Format::Yaml).validate("n: '5'\nextra: [1, 2,]\n");
    assert!(j.is_valid(), "{j:?}");
    let text = j.repaired_text.unwrap();
    assert!(text.contains("n: 5"), "{text}");
    let bad = files(Format::Yaml).validate("m: 1\nn: x\n");
    let d = bad.diagnostics.iter().find(|d| d.code == "schema.type");
    assert_eq!(d.unwrap().location.span.unwrap().line, 2);
}

#[test]
fn an_answer_in_prose_is_found_and_coerced() {
    let j = answers().validate("Sure!\n```json\n{\"n\": \"5\",}\n```\nAnything else?");
    assert!(j.is_valid(), "{j:?}");
    assert_eq!(j.value, Some(json!({"n": 5})));
    assert!(j.repaired_text.is_none(), "answers are not written back");
}

#[test]
fn repair_off_judges_the_text_as_written() {
    let judge = Validator::for_schema(&schema())
        .unwrap()
        .with_repair(RepairPolicy::Off);
    let j = judge.validate("{\"n\": 1,}");
    assert!(!j.is_valid() && j.repairs.is_empty());
}

#[test]
fn a_fenced_markdown_file_is_judged_as_its_content() {
    let judge = Validator::builder()
        .reading(Reading::File)
        .format(Some(Format::Markdown))
        .build()
        .unwrap();
    let j = judge.validate("Here is the plan:\n```markdown\n# Plan\n\ntext\n```\n");
    assert_eq!(j.repaired_text.as_deref(), Some("# Plan\n\ntext\n"));
    assert!(!j.repairs.is_empty());
}

#[test]
fn function_checks_are_named_in_their_diagnostics() {
    let even = Arc::new(|v: &Value| {
        if v["n"].as_i64().is_some_and(|n| n % 2 == 1) {
            vec![Diagnostic::error("n.odd", Location::root(), "n is odd")]
        } else {
            Vec::new()
        }
    });
    let judge = answers().with_check("even", even);
    let j = judge.validate("{\"n\": 3}");
    assert_eq!(j.diagnostics[0].source, "validator:even");
    assert!(judge.is_valid("{\"n\": 4}"));
}

#[test]
fn a_refusal_comes_first_and_a_truncation_last() {
    let refused = answers().judge("I cannot help with that.", Ending::Refused);
    assert_eq!(refused.diagnostics[0].code, rectify_judge::REFUSED);
    let cut = files(Format::Json).judge("{\"n\": 1", Ending::Truncated);
    assert_eq!(cut.diagnostics.last().unwrap().code, TRUNCATED);
    assert!(
        !cut.is_valid(),
        "repair closed it, but what was cut is unknown"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any text, any reading: no panic, and a truncated answer is never valid, whoever judges
    /// it (the loop behind `ask` and a workflow step both judge through here).
    #[test]
    fn truncated_is_never_valid(text in ".{0,200}", file in any::<bool>()) {
        let judge = if file { files(Format::Json) } else { answers() };
        let j = judge.judge(&text, Ending::Truncated);
        prop_assert!(!j.is_valid());
        prop_assert_eq!(&j.diagnostics.last().unwrap().code, TRUNCATED);
    }

    /// Repair is kept only when it helps: judging never reports more errors than reading the
    /// text as written does, and a value that is valid as written comes back unchanged.
    #[test]
    fn repair_never_makes_it_worse(n in any::<i64>(), extra in "[a-z]{0,8}", comma in any::<bool>()) {
        let text = format!("{{\"n\": {n}, \"x\": \"{extra}\"{}}}", if comma { "," } else { "" });
        let as_written = files(Format::Json).with_repair(RepairPolicy::Off).validate(&text);
        let judged = files(Format::Json).validate(&text);
        prop_assert!(judged.errors() <= as_written.errors());
        prop_assert!(judged.is_valid());
        prop_assert_eq!(judged.value, Some(json!({"n": n, "x": extra})));
        prop_assert_eq!(judged.repaired_text.is_some(), comma);
    }

    /// The answer reading and the file reading agree on validity and value for JSON texts.
    #[test]
    fn answers_and_files_agree_on_json(v in prop_oneof![
        any::<i64>().prop_map(|n| json!({"n": n})),
        "[a-z]{0,6}".prop_map(|s| json!({"n": s})),
        Just(json!({"m": 1})),
    ]) {
        let text = v.to_string();
        let a = answers().validate(&text);
        let f = files(Format::Json).validate(&text);
        prop_assert_eq!(a.is_valid(), f.is_valid());
        prop_assert_eq!(a.value, f.value);
    }
}
