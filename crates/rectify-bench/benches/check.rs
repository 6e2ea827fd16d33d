//! Checking 10,000 small documents against a compiled schema with rectify-check versus calling
//! the `jsonschema` crate directly on the already-parsed values (issue 2; target ≤ 1.2×).
//!
//! `cargo bench -p rectify-bench --bench check -- --warm-up-time 1 --measurement-time 3`
//!
//! Two workloads: every document valid, and every tenth document with two violations (a wrong
//! type and a missing required field). rectify's side builds located diagnostics (pointer,
//! display path, line and column, expected/received); the baselines stop at jsonschema's
//! errors. `jsonschema_iter_errors` collects every error of every document;
//! `jsonschema_is_valid_then_errors` first asks `is_valid`, as rectify does.
//!
//! On a shared 2-core machine, back-to-back criterion groups drift with the neighbours' load,
//! so after them the bench also alternates rectify and the baseline pass by pass (31 rounds)
//! and prints the median of the per-round ratios, which is what docs/BENCHMARKS.md reports.

// A bench whose fixed schema does not compile must stop loudly, not measure nothing.
#![allow(clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use rectify_check::CompiledSchema;
use rectify_core::{Document, Format};
use rectify_parse::Limits;
use serde_json::{Value, json};

const DOCUMENTS: usize = 10_000;

fn schema() -> Value {
    json!({
        "type": "object",
        "required": ["id", "title", "phaseId", "status", "acceptanceCriteria"],
        "additionalProperties": false,
        "properties": {
            "id": {"type": "string", "pattern": "^T\\d+$"},
            "title": {"type": "string", "minLength": 3},
            "phaseId": {"type": "string"},
            "status": {"enum": ["todo", "doing", "done"]},
            "estimate": {"type": "integer", "minimum": 0},
            "acceptanceCriteria": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "filesToCreate": {"type": "array", "items": {"type": "string"}}
        }
    })
}

/// A small task document; every tenth one (when `with_errors`) has two violations.
fn task_text(i: usize, with_errors: bool) -> String {
    let broken = with_errors && i.is_multiple_of(10);
    let estimate = if broken {
        "\"three\"".to_owned()
    } else {
        (i % 13).to_string()
    };
    let criteria = if broken {
        String::new()
    } else {
        format!(",\n  \"acceptanceCriteria\": [\"builds\", \"test {i} passes\"]")
    };
    format!(
        "{{\n  \"id\": \"T{i}\",\n  \"title\": \"Task number {i}\",\n  \"phaseId\": \"phase-{}\",\n  \"status\": \"todo\",\n  \"estimate\": {estimate},\n  \"filesToCreate\": [\"src/m{i}.rs\"]{criteria}\n}}",
        i % 4
    )
}

fn documents(with_errors: bool) -> Vec<Document> {
    (0..DOCUMENTS)
        .filter_map(|i| {
            rectify_parse::read(task_text(i, with_errors), Format::Json, &Limits::default())
                .document
        })
        .collect()
}

fn bench_workload(c: &mut Criterion, name: &str, with_errors: bool) {
    let schema_value = schema();
    let compiled = CompiledSchema::compile(&schema_value).expect("valid schema");
    let validator = jsonschema::validator_for(&schema_value).expect("valid schema");
    let docs = documents(with_errors);
    // The baselines validate the very same parsed values, so memory layout is equal.
    let values: Vec<&Value> = docs.iter().map(|d| &d.value).collect();
    let expected: usize = if with_errors { DOCUMENTS / 10 * 2 } else { 0 };
    assert_eq!(
        docs.iter().map(|d| compiled.check(d).len()).sum::<usize>(),
        expected
    );

    let mut group = c.benchmark_group(format!("check_10k_{name}"));
    group.sample_size(20);
    group.bench_function("rectify_check", |b| {
        b.iter(|| docs.iter().map(|d| compiled.check(d).len()).sum::<usize>());
    });
    group.bench_function("jsonschema_iter_errors", |b| {
        b.iter(|| {
            values
                .iter()
                .map(|v| validator.iter_errors(v).count())
                .sum::<usize>()
        });
    });
    group.bench_function("jsonschema_is_valid_then_errors", |b| {
        b.iter(|| {
            values
                .iter()
                .map(|v| {
                    if validator.is_valid(v) {
                        0
                    } else {
                        validator.iter_errors(v).count()
                    }
                })
                .sum::<usize>()
        });
    });
    group.finish();
}

fn check_10k(c: &mut Criterion) {
    bench_workload(c, "valid", false);
    bench_workload(c, "10pct_invalid", true);
}

/// Median of per-round time ratios `a / b`, alternating the two (and their order) so load
/// drift and cache warmth cancel out.
fn interleaved_ratio(a: &dyn Fn() -> usize, b: &dyn Fn() -> usize) -> (f64, Duration, Duration) {
    let time = |f: &dyn Fn() -> usize| {
        let start = Instant::now();
        black_box(f());
        start.elapsed()
    };
    let mut rounds: Vec<(f64, Duration, Duration)> = (0..31)
        .map(|round| {
            // Swap the order every round: whichever runs second finds the documents in cache.
            let (ta, tb) = if round % 2 == 0 {
                let ta = time(a);
                (ta, time(b))
            } else {
                let tb = time(b);
                (time(a), tb)
            };
            (ta.as_secs_f64() / tb.as_secs_f64(), ta, tb)
        })
        .collect();
    rounds.sort_by(|x, y| x.0.total_cmp(&y.0));
    rounds[rounds.len() / 2]
}

fn print_ratios() {
    let schema_value = schema();
    let compiled = CompiledSchema::compile(&schema_value).expect("valid schema");
    let validator = jsonschema::validator_for(&schema_value).expect("valid schema");
    for (name, with_errors) in [("valid", false), ("10pct_invalid", true)] {
        let docs = documents(with_errors);
        let rectify = || docs.iter().map(|d| compiled.check(d).len()).sum::<usize>();
        let direct = || {
            docs.iter()
                .map(|d| validator.iter_errors(&d.value).count())
                .sum::<usize>()
        };
        let guarded = || {
            docs.iter()
                .map(|d| {
                    if validator.is_valid(&d.value) {
                        0
                    } else {
                        validator.iter_errors(&d.value).count()
                    }
                })
                .sum::<usize>()
        };
        for (baseline, f) in [
            ("jsonschema_iter_errors", &direct as &dyn Fn() -> usize),
            ("jsonschema_is_valid_then_errors", &guarded),
        ] {
            let (ratio, ta, tb) = interleaved_ratio(&rectify, f);
            println!(
                "ratio check_10k_{name}: rectify_check {:.2} ms / {baseline} {:.2} ms = {ratio:.2}x (median of 31 interleaved rounds)",
                ta.as_secs_f64() * 1e3,
                tb.as_secs_f64() * 1e3
            );
        }
    }
}

criterion_group!(benches, check_10k);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::args().any(|a| a == "--bench") {
        print_ratios();
    }
}
