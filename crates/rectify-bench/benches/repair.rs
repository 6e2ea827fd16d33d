//! Repair throughput (issue 3): rectify against the jsonrepair-rs crate on the same inputs,
//! and rectify's fast path on valid input against plain serde_json.
//!
//! `cargo bench -p rectify-bench --bench repair`

mod repair_workloads;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rectify_repair::{RepairOptions, repair, repair_to_json};
use repair_workloads::{broken_doc, small_cases, valid_doc};

const TEN_MB: usize = 10 * 1024 * 1024;

/// Text to repaired text, the job the peers do.
fn rectify_text(input: &str, options: &RepairOptions) -> Option<String> {
    repair_to_json(input, options).json
}

fn small(c: &mut Criterion) {
    let cases = small_cases(10_000);
    let options = RepairOptions::default().with_unsafe(true);
    let mut group = c.benchmark_group("repair_small_10k");
    group.sample_size(10);
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("rectify", |b| {
        b.iter(|| {
            cases
                .iter()
                .filter_map(|t| rectify_text(t, &options))
                .count()
        });
    });
    group.bench_function("jsonrepair_rs", |b| {
        b.iter(|| {
            cases
                .iter()
                .filter_map(|t| jsonrepair_rs::jsonrepair(t).ok())
                .count()
        });
    });
    group.finish();
}

fn large(c: &mut Criterion) {
    let options = RepairOptions::default().with_unsafe(true);
    let broken = broken_doc(TEN_MB);
    let valid = valid_doc(TEN_MB);
    let mut group = c.benchmark_group("repair_10mb");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(broken.len() as u64));
    group.bench_function("broken/rectify", |b| {
        b.iter(|| rectify_text(&broken, &options));
    });
    group.bench_function("broken/rectify_value", |b| {
        b.iter(|| repair(&broken, &options).value);
    });
    group.bench_function("broken/jsonrepair_rs", |b| {
        b.iter(|| jsonrepair_rs::jsonrepair(&broken).ok());
    });
    group.bench_function("valid/rectify", |b| {
        b.iter(|| rectify_text(&valid, &options));
    });
    group.bench_function("valid/rectify_value", |b| {
        b.iter(|| repair(&valid, &options).value);
    });
    group.bench_function("valid/serde_json", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(&valid).ok());
    });
    group.bench_function("valid/jsonrepair_rs", |b| {
        b.iter(|| jsonrepair_rs::jsonrepair(&valid).ok());
    });
    group.finish();
}

/// One model answer repaired with a schema, as the loop does on every attempt (the same
/// options each time).
fn with_schema(c: &mut Criterion) {
    let schema = serde_json::json!({
        "type": "object",
        "required": ["title", "tasks"],
        "properties": {
            "title": {"type": "string", "minLength": 1},
            "tasks": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["id", "title", "status", "estimate"],
                    "properties": {
                        "id": {"type": "string", "pattern": "^T[0-9]+$"},
                        "title": {"type": "string"},
                        "status": {"enum": ["todo", "in_progress", "done"]},
                        "estimate": {"type": "integer", "minimum": 0},
                        "depends_on": {"type": "array", "items": {"type": "string"}}
                    }
                }
            }
        }
    });
    let answer = "Here is the plan:\n```json\n{'title': 'Ship it', tasks: [\
        {'id': 'T1', 'title': 'Write', 'status': 'In Progress', 'estimate': '3'},\
        {'id': 'T2', 'title': 'Test', 'status': 'todo', 'estimate': 2, 'depends_on': 'T1'},]}\n```";
    let options = RepairOptions::default()
        .with_unsafe(true)
        .with_schema(schema);
    let mut group = c.benchmark_group("repair_with_schema");
    group.bench_function("rectify", |b| {
        b.iter(|| repair(answer, &options).value);
    });
    group.finish();
}

criterion_group!(benches, small, large, with_schema);
criterion_main!(benches);
