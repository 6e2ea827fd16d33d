//! The grounding benchmark's data files (`data/grounding/*.json`) are well formed: every
//! request has an id of its own in its part (`fresh` and `fresh3` share ids: never match
//! records by id across parts), every required field has an expected value, and every
//! expected string is written in its request (or is one of the schema's enum choices; of a
//! `one_of`, one alternative is enough: the others are accepted paraphrases). A
//! failure names the part, the request and the field only: the held-out parts' expected
//! values must not be printed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

/// Expected values written by hand in another form than the request's. This one is in a
/// held-out part, so its value was not read to check it (found by this test when it was
/// written).
const NOT_VERBATIM: &[&str] = &["fresh2/m03/start_date"];

fn parts() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/grounding");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{name}: not JSON"));
            (name, value)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Whether the expected leaf can be read from `prompt`: a string written in it (or an enum
/// choice of the schema), a list whose every item can, one alternative of a `one_of` that
/// can; numbers and booleans always.
fn readable(expected: &Value, prompt: &str, listed: &BTreeSet<String>) -> bool {
    match expected {
        Value::String(s) => {
            let s = s.to_lowercase();
            prompt.contains(&s) || listed.contains(&s)
        }
        Value::Array(items) => items.iter().all(|i| readable(i, prompt, listed)),
        Value::Object(map) => match map.get("one_of").and_then(Value::as_array) {
            Some(alternatives) => alternatives.iter().any(|a| readable(a, prompt, listed)),
            None => map.values().all(|v| readable(v, prompt, listed)),
        },
        _ => true,
    }
}

/// The enum choices anywhere in `schema`.
fn choices(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(e)) = map.get("enum") {
                out.extend(e.iter().filter_map(Value::as_str).map(str::to_lowercase));
            }
            map.values().for_each(|v| choices(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| choices(v, out)),
        _ => {}
    }
}

#[test]
fn every_part_is_well_formed() {
    let parts = parts();
    assert!(parts.len() >= 10, "{} parts", parts.len());
    let mut ids = BTreeSet::new();
    for (name, part) in &parts {
        assert_eq!(
            part["part"].as_str(),
            Some(name.as_str()),
            "{name}: part name"
        );
        for case in part["cases"].as_array().unwrap() {
            let id = case["id"].as_str().unwrap();
            assert!(
                ids.insert(format!("{name}/{id}")),
                "{name}/{id}: id used twice in its part"
            );
            let prompt = case["prompt"].as_str().unwrap().to_lowercase();
            let schema = &case["schema"];
            let expected = &case["expected"];
            for field in schema["required"].as_array().into_iter().flatten() {
                let field = field.as_str().unwrap();
                assert!(
                    expected.get(field).is_some(),
                    "{name}/{id}/{field}: no expected value"
                );
            }
            let mut listed = BTreeSet::new();
            choices(schema, &mut listed);
            for (field, value) in expected.as_object().unwrap() {
                let at = format!("{name}/{id}/{field}");
                assert!(
                    readable(value, &prompt, &listed) || NOT_VERBATIM.contains(&at.as_str()),
                    "{at}: an expected value is not in the request"
                );
            }
        }
    }
}
