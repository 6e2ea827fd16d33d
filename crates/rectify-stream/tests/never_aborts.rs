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

/// The plan schema and rules of the rule property below: tasks that name phases of another
/// document, unique ids, files under each task, and a rule over the whole document.
fn plan_parts() -> (Value, rectify_check::RuleSet, rectify_check::References) {
    let schema = json!({
        "type": "object",
        "required": ["goal", "tasks"],
        "properties": {
            "goal": {"type": "string"},
            "tasks": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "phase"],
                "properties": {
                    "id": {"type": "string"},
                    "phase": {"type": "string"},
                    "files": {"type": "array", "items": {"type": "string"}},
                    "steps": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}
                }
            }}
        }
    });
    let rules = rectify_check::RuleSet::from_value(
        &json!({"rules": [
            {"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*]"},
            {"id": "ids", "unique": "$..id"},
            {"id": "files", "each": "$.tasks[*]", "any_nonempty": ["$.files", "$.steps"]},
            {"id": "named", "each": "$.tasks[*].steps[*]", "required_nonempty": ["$.id"]},
            {"id": "goal", "required_nonempty": ["$.goal"]}
        ]}),
        None,
    )
    .unwrap();
    let plan = rectify_core::Document::from_value(json!({"phases": ["design", "build"]}));
    let refs = std::collections::BTreeMap::from([("plan".to_owned(), plan)]);
    (schema, rules, refs)
}

fn task() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let id = proptest::sample::select(vec!["T1", "T2", "T3", "S1", "S2", "S3"]);
    let phase = proptest::sample::select(vec!["design", "build", "ship", "Design"]);
    let files = proptest::collection::vec(proptest::sample::select(vec!["a.rs", "b.rs", ""]), 0..3);
    let steps = proptest::collection::vec(proptest::option::of(id.clone()), 0..3);
    (id, phase, proptest::option::of(files), steps, any::<bool>()).prop_map(
        |(id, phase, files, steps, numeric)| {
            let mut task = json!({"id": id, "phase": phase});
            if numeric {
                task["id"] = json!(7); // repaired to "7" by the full judge
            }
            if let Some(files) = files {
                task["files"] = json!(files);
            }
            if !steps.is_empty() {
                task["steps"] = Value::Array(
                    steps
                        .into_iter()
                        .map(|s| s.map_or(json!({}), |s| json!({"id": s})))
                        .collect(),
                );
            }
            task
        },
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// An answer the full judge accepts under a rules file (references into another
    /// document, unique ids at any depth, non-empty members under `each`) is never judged
    /// doomed on any prefix, however it is written (compact or pretty, fenced, members in
    /// any order).
    #[test]
    fn an_answer_valid_under_rules_is_never_judged_doomed(
        tasks in proptest::collection::vec(task(), 0..4),
        goal in proptest::sample::select(vec!["", "ship it"]),
        goal_last in proptest::bool::ANY,
        pretty in proptest::bool::ANY,
        fenced in proptest::bool::ANY,
    ) {
        let (schema, rules, refs) = plan_parts();
        let (_, judged_rules, judged_refs) = plan_parts();
        let mut doc = serde_json::Map::new();
        if !goal_last {
            doc.insert("goal".into(), json!(goal));
        }
        doc.insert("tasks".into(), Value::Array(tasks));
        if goal_last {
            doc.insert("goal".into(), json!(goal));
        }
        let doc = Value::Object(doc);
        let mut text = if pretty {
            serde_json::to_string_pretty(&doc).unwrap()
        } else {
            doc.to_string()
        };
        if fenced {
            text = format!("Here it is:\n```json\n{text}\n```\n");
        }
        let validator = rectify_judge::Validator::builder()
            .schema_value(schema.clone())
            .rules(judged_rules, judged_refs)
            .build()
            .unwrap();
        let checker = rectify_check::Checker::builder()
            .rules(rules)
            .references(refs)
            .build()
            .unwrap();
        let prefix = Arc::new(PrefixChecker::new(&schema, PrefixOptions::default()).with_rules(&checker));
        let mut judge = StreamJudge::new(prefix);
        let mut buf = [0u8; 4];
        let mut doomed = None;
        for c in text.chars() {
            if let Verdict::Doomed(why) = judge.push(c.encode_utf8(&mut buf)).unwrap() {
                doomed = Some(why);
                break;
            }
        }
        let judgement = validator.validate(&text);
        if judgement.is_valid() {
            proptest::prop_assert!(doomed.is_none(), "{} judged doomed: {:?}", text, doomed);
        }
        if let Some(why) = doomed {
            // What stopped it is what the full judge finds too (for `unique`, the pair may
            // be named from its other end: items complete inner ones first).
            let report = judgement.into_report();
            for d in &why {
                let same = |full: &rectify_core::Diagnostic| {
                    full.code == d.code
                        && (full.location.pointer == d.location.pointer || d.code == "rule.unique")
                };
                proptest::prop_assert!(
                    report.diagnostics.iter().any(same),
                    "{} stopped for {:?}, which the full judge does not find: {:?}", text, d, report.diagnostics
                );
            }
        }
    }
}
