//! `repair_to_json` (the text-to-text path) gives exactly what `repair` + `to_json` gives —
//! the same text, repairs (code, location, before/after, applicability) and diagnostics —
//! over the whole corpus, the rule fixtures and hostile input, compact and pretty, with
//! every option set the tests use.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_core::Format;
use rectify_repair::testing::takes_text_path;
use rectify_repair::{
    JsonStyle, RepairOptions, repair, repair_bytes, repair_bytes_to_json, repair_to_json,
    repair_to_json_as,
};
use serde_json::Value;

/// Asserts that both paths agree on `text` with `options`, in both layouts.
pub fn assert_same(text: &str, options: &RepairOptions) {
    let value = repair(text, options);
    let compact = repair_to_json(text, options);
    assert_eq!(compact.json, value.to_json(), "{text:?}");
    assert_eq!(compact.repairs, value.repairs, "{text:?}");
    assert_eq!(compact.diagnostics, value.diagnostics, "{text:?}");
    assert_eq!(compact.format, value.format, "{text:?}");
    assert_eq!(compact.is_valid(), value.is_valid(), "{text:?}");
    let pretty = repair_to_json_as(text, options, JsonStyle::Pretty);
    assert_eq!(pretty.json, value.to_json_pretty(), "{text:?}");
    assert_eq!(pretty.repairs, value.repairs, "{text:?}");
    assert_eq!(pretty.diagnostics, value.diagnostics, "{text:?}");
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every option set worth checking for a case: safe only, unsafe, strict, and the case's own
/// schema and strictness.
fn option_sets(case: &Value) -> Vec<RepairOptions> {
    let mut sets = vec![
        RepairOptions::default(),
        RepairOptions::default().with_unsafe(true),
        RepairOptions::default().with_strict(true),
        RepairOptions::default()
            .with_unsafe(true)
            .with_format(Some(Format::Json)),
    ];
    let opts = case.get("options").unwrap_or(&Value::Null);
    let schema = case.get("schema").or_else(|| opts.get("schema"));
    let mut own = RepairOptions::default()
        .with_unsafe(true)
        .with_strict(opts["strict"] == Value::Bool(true));
    if let Some(schema) = schema {
        own = own.with_schema(schema.clone());
    }
    sets.push(own);
    sets
}

fn cases() -> Vec<Value> {
    let mut all = lines(include_str!("corpus/json_repair.jsonl"));
    all.extend(lines(include_str!("fixtures/rules.jsonl")));
    all
}

#[test]
fn corpus_and_fixtures_give_the_same_result_on_both_paths() {
    for case in cases() {
        let input = case["input"].as_str().unwrap();
        for options in option_sets(&case) {
            assert_same(input, &options);
        }
    }
}

/// The text path is not only correct but taken: most broken inputs do not fall back.
#[test]
fn most_corpus_inputs_take_the_text_path() {
    let options = RepairOptions::default().with_unsafe(true);
    let inputs: Vec<String> = cases()
        .iter()
        .map(|c| c["input"].as_str().unwrap().to_owned())
        .collect();
    let taken = inputs
        .iter()
        .filter(|t| takes_text_path(t, &options))
        .count();
    eprintln!("text path: {taken}/{} inputs", inputs.len());
    assert!(taken * 10 >= inputs.len() * 7, "{taken}/{}", inputs.len());
    assert!(takes_text_path(
        "{'a': [1, 2,], b: True}",
        &RepairOptions::default()
    ));
    // An escaped document is unescaped and read by the value path.
    assert!(!takes_text_path(
        "{\\\"a\\\": 1}",
        &RepairOptions::default()
    ));
}

/// Candidates one after the other, members written after an early `}`, arrays continued
/// where a key should be, repeated keys, set-like objects, `["key": v]` and `"a" + "b"` are
/// written by the text path, as the value path builds them.
#[test]
fn restructuring_repairs_take_the_text_path_and_agree() {
    let texts = [
        "{\"a\": 1}, {\"a\": 2}",
        "{\"a\": 1} {\"b\": [1, 2]}",
        "[1, 2]{\"a\": {\"b\": []}}",
        "[]{}",
        "{}, [], \"\"",
        "1, \"two\", {\"three\": [3]}",
        "```json\n{\"a\": 1}\n```\ntext\n```json\n[{\"b\": 2}]\n```",
        "{\"a\": 1}, \"b\": 2}",
        "{\"a\": {\"x\": [1]}}, \"b\": {\"c\": 2}, \"d\": [3]}",
        "{}, \"b\": 2}",
        "{\"a\": 1}, \"b\": 2}, \"c\": 3}",
        "{\"a\": [1], [2, 3]}",
        "{\"a\": [], [2, {\"z\": 1}]}",
        "{\"a\": [1], []}",
        "{\"a\": [[1]], [[2]], [[3]], \"b\": 1}",
        "{\"a\": 1, [2]}",
        "{\"a\": \"s\", {\"b\": 1}}",
        "{[1], \"a\": 2}",
        "{\"a\": 1, \"a\": 2}",
        "{\"a\": {\"x\": 1, \"y\": [1, 2]}, \"b\": 2, \"a\": [3], \"c\": {\"a\": 4, \"a\": 5}}",
        "{\"a\": 1}, \"a\": 2}",
        "{\"a\": [1], \"b\": 0, \"a\": [2], [3], \"b\": \"x\"}",
        "{\"k\": [{\"b\": \"v1\", \"b\": \"v2\"}], \"k\": []}",
        "{'é\\n': 1, \"é\\n\": 2, \"e\": 3}",
        "{'a', 'b', \"c\"}",
        "[{'a', 'b'}, {\"x\", \"x\"}, {\"k\": {\"s\"}}]",
        "{\"a\": 1, \"b\", \"c\", \"a\", \"b\": 2}",
        "{\"b\", \"a\": 1}",
        "[\"key\": \"value\"]",
        "[1, \"k\": [2, 3], \"j\": 4, \"k\": 5]",
        "[ \"key\":\"value\"}]",
        "[\"a\" : {\"b\", \"c\"}]",
        "[1: 2]",
        "{\"a\": \"x\" + \"y\" + 'z', \"b\": [\"p\" + \"q\"]}",
        "\"a\" + \"b\"",
    ];
    for text in texts {
        for options in option_sets(&Value::Null) {
            assert_same(text, &options);
        }
        assert!(
            takes_text_path(text, &RepairOptions::default().with_unsafe(true)),
            "{text:?}"
        );
    }
}

/// Each restructuring repair repeated over a large text: the same result on both paths (the
/// edits touch only the end of the written text, so the text path stays linear).
#[test]
fn restructuring_repairs_repeated_over_a_large_text_agree() {
    let n = 20_000;
    let texts = [
        format!("{{\"a\": [0], {}\"z\": 1}}", "[1, 2], ".repeat(n)),
        "{\"k\": 1} ".repeat(n),
        "[1], {\"a\": 2}, \"s\", ".repeat(n),
        format!("{{\"a\": 0}}{}", ", \"b\": 1}".repeat(n)),
        format!("{{\"a\": 0, \"b\": 1, {}}}", "\"a\": 2, ".repeat(n)),
        format!("[{}]", "{'x', 'y'}, [\"k\": 1], \"p\" + \"q\", ".repeat(n)),
    ];
    for text in &texts {
        assert_same(text, &RepairOptions::default().with_unsafe(true));
    }
}

/// A key repeated many times after a long value: moving text to replace its value is
/// bounded, beyond that the value path answers (the same result, in linear time).
#[test]
fn repeated_keys_after_a_long_value_stay_linear() {
    let long = "x".repeat(100_000);
    let text = format!(
        "{{\"a\": 1, \"long\": \"{long}\", {}\"z\": 0}}",
        "\"a\": 2, ".repeat(1000)
    );
    let options = RepairOptions::default();
    assert_same(&text, &options);
    assert!(!takes_text_path(&text, &options));
    let few = format!("{{\"a\": 1, \"long\": \"{long}\", \"a\": 2}}");
    assert_same(&few, &options);
    assert!(takes_text_path(&few, &options));
}

#[test]
fn hostile_and_degenerate_input_gives_the_same_result() {
    let deep = ["[", "{\"a\":", "{a: [", "("].map(|u| u.repeat(300));
    let mut texts: Vec<String> = vec![
        String::new(),
        "   \n".into(),
        "Sorry, no.".into(),
        "]".into(),
        "\"\\ud800\"".into(),
        "[\"\\ud800\", 1E5, -0, 1e-7, 0.50]".into(),
        "{\"a\": \"\\u0041\\/\\n\\u001f\\u007f\"}".into(),
        "(1)".into(),
        "((1), (2, 3), ObjectId(\"x\"), [(\"y\")])".into(),
        "NumberLong(5)".into(),
        "{\"a\": 1} trailing words".into(),
        "```json\n{\"a\": 1}\n```\n```json\n{\"a\": 2}\n```".into(),
        "```yaml\na: 1\n```".into(),
        "{\\\"a\\\": 1}".into(),
        "[1, 2, 3".repeat(50),
        "{".to_owned() + &"\"k\": 1, ".repeat(300) + "}",
    ];
    texts.extend(deep);
    let keys: Vec<String> = (0..300).map(|i| format!("\"k{i}\": {i}")).collect();
    texts.push(format!("{{{}}}", keys.join(", ")));
    texts.push(format!("{{{},}}", keys.join(", ")));
    let named: Vec<String> = (0..300).map(|i| format!("\"n{i}\"")).collect();
    texts.push(format!("{{\"a\": 1, {}}}", named.join(", ")));
    for text in &texts {
        for options in option_sets(&Value::Null) {
            assert_same(text, &options);
        }
    }
}

#[test]
fn bytes_give_the_same_result() {
    // Found by the fuzz target: a call wrapper whose body hits the depth limit.
    let fuzz_1 = include_bytes!("fixtures/text_path_fuzz_1.bin");
    // Found by the text_path fuzz target.
    let fuzz_2 = include_bytes!("fixtures/text_path_fuzz_2.bin");
    let fuzz_3 = include_bytes!("fixtures/text_path_fuzz_3.bin");
    // Found by the text_path fuzz target: a hang (a vertical tab where an object's member
    // should be: the member loop read nothing and did not move on).
    let fuzz_4 = include_bytes!("fixtures/text_path_fuzz_4.bin");
    // The same hang, found by the repair target.
    let fuzz_5 = include_bytes!("fixtures/text_path_fuzz_5.bin");
    // Found by the repair target: an object merged into one unwrapped from a tuple of one,
    // after another top-level object whose keys the text path still held.
    let merged_after_tuple = br#"d":},(required:]}},"required":"#;
    for bytes in [
        &merged_after_tuple[..],
        &fuzz_4[..],
        &fuzz_5[..],
        b"(!:\x0b\r'",
        b"{\"a\":\x0b\r'",
        &fuzz_2[..],
        &fuzz_3[..],
        &fuzz_1[..],
        &b"{\"a\": \"x\xffy\"}"[..],
        b"\xff",
        b"{'a': 1,}",
        b"[1, 2]",
    ] {
        for options in option_sets(&Value::Null) {
            let value = repair_bytes(bytes, &options);
            let text = repair_bytes_to_json(bytes, &options, JsonStyle::Compact);
            assert_eq!(text.json, value.to_json());
            for (i, (t, v)) in text.repairs.iter().zip(&value.repairs).enumerate() {
                assert_eq!(t, v, "repair {i}");
            }
            assert_eq!(text.repairs, value.repairs);
            assert_eq!(text.diagnostics, value.diagnostics);
        }
    }
}
