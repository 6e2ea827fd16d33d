//! The corpora taken from other repair tools' own tests (`corpus/jsonrepair_rs.jsonl` from
//! the jsonrepair-rs crate, `corpus/best_effort_json_parser.jsonl` from the npm package
//! best-effort-json-parser, `corpus/llm_parsers.jsonl` from LLM-output parsers on PyPI,
//! `corpus/pypi_repairers.jsonl` from three JSON repairers on PyPI,
//! `corpus/registry_suites.jsonl` from thirteen packages on crates.io and PyPI,
//! `corpus/llm_frameworks.jsonl` from four frameworks on PyPI, `corpus/crate_parsers.jsonl`
//! from LLM-output parsers on crates.io and npm, `corpus/agent_frameworks.jsonl` from seven
//! agent frameworks on PyPI; see `corpus/README.md`). Their
//! `measured_only` parts are measured and printed, never asserted or tuned on; on the rest,
//! the number of cases rectify repairs to the expected value may not fall. `CORPUS_SHOW=1` prints the tuned
//! part's misses.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_repair::{RepairOptions, repair};
use serde_json::Value;

/// Cases of the jsonrepair-rs corpus's tuned part repaired to the expected value when this
/// test was last raised (the whole corpus since its measured-only part was read; see
/// `corpus/README.md`).
const JSONREPAIR_RS_FLOOR: usize = 440;

/// The same for the best-effort-json-parser corpus.
const BEST_EFFORT_FLOOR: usize = 65;

/// The same for the corpus of LLM-output parsers' tests (langchain-core, instructor,
/// json-repair-llm), repaired with the case's schema where it has one.
const LLM_PARSERS_FLOOR: usize = 52;

/// The same for the corpus of PyPI repairers' tests (json-repair-engine, jsonfixer,
/// dirtyjson).
const PYPI_REPAIRERS_FLOOR: usize = 83;

/// The same for the corpus of registry packages' tests (its tuned part: json-repair,
/// llm-output-parser, partialjson).
const REGISTRY_SUITES_FLOOR: usize = 240;

/// The same for the crates.io and npm LLM-output parsers' tests (their even-indexed half).
const CRATE_PARSERS_FLOOR: usize = 49;

/// Equal as JSON values, numbers compared by value (`1.0` is `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn jsonrepair_rs_cases() {
    run_corpus(
        "jsonrepair-rs",
        include_str!("corpus/jsonrepair_rs.jsonl"),
        JSONREPAIR_RS_FLOOR,
    );
}

#[test]
fn best_effort_json_parser_cases() {
    run_corpus(
        "best-effort-json-parser",
        include_str!("corpus/best_effort_json_parser.jsonl"),
        BEST_EFFORT_FLOOR,
    );
}

#[test]
fn llm_parsers_cases() {
    run_corpus(
        "llm-parsers",
        include_str!("corpus/llm_parsers.jsonl"),
        LLM_PARSERS_FLOOR,
    );
}

#[test]
fn pypi_repairers_cases() {
    run_corpus(
        "pypi-repairers",
        include_str!("corpus/pypi_repairers.jsonl"),
        PYPI_REPAIRERS_FLOOR,
    );
}

#[test]
fn registry_suites_cases() {
    run_corpus(
        "registry-suites",
        include_str!("corpus/registry_suites.jsonl"),
        REGISTRY_SUITES_FLOOR,
    );
}

#[test]
fn crate_parsers_cases() {
    run_corpus(
        "crate-parsers",
        include_str!("corpus/crate_parsers.jsonl"),
        CRATE_PARSERS_FLOOR,
    );
}

#[test]
fn llm_frameworks_cases() {
    // Measured only, every case: printed, no floor.
    run_corpus(
        "llm-frameworks",
        include_str!("corpus/llm_frameworks.jsonl"),
        0,
    );
}

#[test]
fn agent_frameworks_cases() {
    // Measured only, every case: printed, no floor.
    run_corpus(
        "agent-frameworks",
        include_str!("corpus/agent_frameworks.jsonl"),
        0,
    );
}

/// Repairs every case of `corpus` with `--unsafe` (and the case's `schema`, when it has one),
/// prints the tuned and measured-only scores, and asserts that the tuned part does not fall
/// below `floor`.
fn run_corpus(name: &str, corpus: &str, floor: usize) {
    let (mut tuned, mut tuned_pass, mut held, mut held_pass) = (0, 0, 0, 0);
    // Cases with a schema: (tuned, tuned right, measured only, measured only right).
    let mut with_schema = [0usize; 4];
    let mut misses = Vec::new();
    for line in corpus.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap();
        let mut options = RepairOptions::default().with_unsafe(true);
        if let Some(schema) = case.get("schema").filter(|s| s.is_object()) {
            options = options.with_schema(schema.clone());
        }
        let got = repair(input, &options).value;
        let ok = got.as_ref().is_some_and(|v| same(v, &case["expected"]));
        if case.get("schema").is_some_and(Value::is_object) {
            let held_out = usize::from(case["measured_only"] == Value::Bool(true)) * 2;
            with_schema[held_out] += 1;
            with_schema[held_out + 1] += usize::from(ok);
        }
        if case["measured_only"] == Value::Bool(true) {
            held += 1;
            held_pass += usize::from(ok);
        } else {
            tuned += 1;
            tuned_pass += usize::from(ok);
            if !ok {
                misses.push(case["id"].as_str().unwrap().to_owned());
                if std::env::var_os("CORPUS_SHOW").is_some() {
                    let got = got.map_or("none".to_owned(), |v| v.to_string());
                    println!(
                        "{input:?}\n  expected {}\n  got      {got}",
                        case["expected"]
                    );
                }
            }
        }
    }
    println!("{name} corpus: tuned {tuned_pass}/{tuned}, measured-only {held_pass}/{held}");
    if with_schema[0] + with_schema[2] > 0 {
        let [t, tp, h, hp] = with_schema;
        println!("  with a schema: tuned {tp}/{t}, measured-only {hp}/{h}");
    }
    println!("tuned misses: {misses:?}");
    assert!(
        tuned_pass >= floor,
        "{name}: {tuned_pass} < {floor}; misses: {misses:?}"
    );
}
