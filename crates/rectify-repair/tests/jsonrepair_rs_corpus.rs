//! The jsonrepair-rs corpus (`corpus/jsonrepair_rs.jsonl`, see `corpus/README.md`): cases
//! taken from the jsonrepair-rs crate's own tests. A quarter of them (`measured_only`) are
//! measured and printed, never asserted or tuned on; on the rest, the number of cases
//! rectify repairs to the expected value may not fall. `CORPUS_SHOW=1` prints the tuned
//! part's misses.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_repair::{RepairOptions, repair};
use serde_json::Value;

/// Cases of the tuned part repaired to the expected value when this test was written.
const FLOOR: usize = 313;

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
    let options = RepairOptions::default().with_unsafe(true);
    let (mut tuned, mut tuned_pass, mut held, mut held_pass) = (0, 0, 0, 0);
    let mut misses = Vec::new();
    for line in include_str!("corpus/jsonrepair_rs.jsonl").lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap();
        let got = repair(input, &options).value;
        let ok = got.as_ref().is_some_and(|v| same(v, &case["expected"]));
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
    println!("jsonrepair-rs corpus: tuned {tuned_pass}/{tuned}, measured-only {held_pass}/{held}");
    println!("tuned misses: {misses:?}");
    assert!(
        tuned_pass >= FLOOR,
        "{tuned_pass} < {FLOOR}; misses: {misses:?}"
    );
}
