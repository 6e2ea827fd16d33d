//! The prefix property: no prefix of an answer the full judge accepts is ever judged doomed.
//!
//! Every case of the repair corpora (`crates/rectify-repair/tests/corpus/*.jsonl`) is judged
//! whole by `rectify_judge` — under the case's own schema where it has one, and under a tight
//! schema made from the value it reads (every member required and alone, every string's
//! length at most its own or an exact `pattern`, every scalar's value as the only one
//! allowed) — and, where valid, fed to a [`StreamJudge`] one character at a time: it must
//! stay open to the end. Answers cut anywhere are drawn at random for the same property.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use rectify_stream::{PrefixChecker, PrefixOptions, StreamJudge, Verdict};
use serde_json::{Value, json};

fn corpus() -> Vec<(String, String, Option<Value>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rectify-repair/tests/corpus");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Ok(case) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let Some(input) = case["input"].as_str() else {
                continue;
            };
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let schema = case["options"]["schema"].clone();
            let schema = schema.is_object().then_some(schema);
            cases.push((id, input.to_owned(), schema));
        }
    }
    cases
}

/// The tightest schema `value` fits: for strings, by depth and length, `maxLength` with a
/// `pattern` that matches the string only, that `pattern` alone, or `enum`.
fn tight(value: &Value, depth: usize) -> Value {
    match value {
        Value::Object(map) => json!({
            "type": "object",
            "required": map.keys().collect::<Vec<_>>(),
            "additionalProperties": false,
            "properties": map.iter().map(|(k, v)| (k.clone(), tight(v, depth + 1))).collect::<serde_json::Map<_, _>>(),
        }),
        Value::Array(items) => json!({
            "type": "array",
            "minItems": items.len(),
            "maxItems": items.len(),
            "prefixItems": items.iter().map(|v| tight(v, depth + 1)).collect::<Vec<_>>(),
        }),
        Value::String(s) if depth.is_multiple_of(2) => {
            let n = s.chars().count();
            json!({"type": "string", "maxLength": n, "minLength": n, "pattern": exactly(s)})
        }
        Value::String(s) if s.len() % 2 == 1 => json!({"type": "string", "pattern": exactly(s)}),
        other => json!({"enum": [other]}),
    }
}

/// An ECMA-262 pattern that matches `s` only.
fn exactly(s: &str) -> String {
    let mut out = String::from("^");
    for c in s.chars() {
        if "^$\\.*+?()[]{}|/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('$');
    out
}

/// True when the judge stays open on every prefix of `text`; the doomed verdict otherwise.
fn stays_open(text: &str, schema: &Value, options: PrefixOptions) -> Result<bool, String> {
    let checker = Arc::new(PrefixChecker::new(schema, options));
    let mut judge = StreamJudge::new(checker.clone());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if let Verdict::Doomed(why) = judge.push(c.encode_utf8(&mut buf)).unwrap() {
            return Err(format!("{why:?}"));
        }
    }
    Ok(checker.judges())
}

#[test]
fn no_prefix_of_a_valid_answer_is_judged_doomed() {
    let mut valid = 0;
    let mut judged = 0;
    let mut aborted = Vec::new();
    for (id, input, schema) in corpus() {
        let own = schema.into_iter();
        let read = rectify_repair::repair(&input, &rectify_repair::RepairOptions::default()).value;
        let made = read
            .filter(|v| v.is_object() || v.is_array())
            .map(|v| tight(&v, 0));
        for schema in own.chain(made) {
            let Ok(judgement) = rectify_judge::validate(&input, &schema) else {
                continue;
            };
            if !judgement.is_valid() {
                continue;
            }
            valid += 1;
            match stays_open(&input, &schema, PrefixOptions::default()) {
                Ok(true) => judged += 1,
                Ok(false) => {}
                Err(why) => aborted.push(format!("{id}: {why}")),
            }
        }
    }
    println!(
        "{valid} valid answers, {judged} under a schema that judges prefixes, {} aborted",
        aborted.len()
    );
    assert!(valid > 300, "the corpora shrank: {valid}");
    assert!(judged > 100, "too few judged: {judged}");
    assert!(aborted.is_empty(), "{}", aborted.join("\n"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// An answer cut anywhere (in a string, after a bracket or a fence's backticks) that the
    /// full judge reads as valid under the tightest schemas of what it reads (`maxLength`
    /// with an exact `pattern`, the `pattern` alone, `enum`) is never judged doomed on any
    /// prefix: the repair may read the end of a cut string as structure.
    #[test]
    fn a_cut_answer_the_judge_reads_as_valid_is_never_judged_doomed(
        body in "[a-z }\\]`,:\\\\\"é]{0,10}",
        after in proptest::sample::select(vec!["", "\"}", "\", \"b\": [\"x}", "\"]}", "` ", "\n```"]),
        nested in proptest::bool::ANY,
    ) {
        let text = if nested {
            format!("{{\"a\": [\"{body}{after}")
        } else {
            format!("{{\"a\": \"{body}{after}")
        };
        let read = rectify_repair::repair(&text, &rectify_repair::RepairOptions::default()).value;
        let Some(value) = read.filter(Value::is_object) else {
            return Ok(());
        };
        for depth in [0, 1] {
            let schema = tight(&value, depth);
            let valid = rectify_judge::validate(&text, &schema).is_ok_and(|j| j.is_valid());
            if valid {
                proptest::prop_assert!(
                    stays_open(&text, &schema, PrefixOptions::default()).is_ok(),
                    "{:?} under {}", text, schema
                );
            }
        }
    }
}
