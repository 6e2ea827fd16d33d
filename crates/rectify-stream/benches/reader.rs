//! The incremental reader against one whole parse (issue 40): a 1 MB answer read in one
//! push and in 10-byte chunks, beside serde_json and the repair reading it whole.
//!
//! `cargo bench -p rectify-stream --bench reader`; throughput is printed per run.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rectify_stream::{PrefixChecker, PrefixOptions, ReadState, Reader, StreamJudge};
use serde_json::json;

/// About 1 MB of records as a model would write them (pretty-printed).
fn answer() -> String {
    let items: Vec<_> = (0..4_200)
        .map(|i| {
            let status = ["todo", "in_progress", "done"][i % 3];
            json!({
                "id": i,
                "status": status,
                "title": format!("Task number {i} with a \"quoted\" word and é"),
                "score": f64::from(u32::try_from(i).unwrap()) / 7.0,
                "tags": ["alpha", "beta", "gamma"],
                "done": i % 2 == 0,
                "owner": {"name": "Ada Lovelace", "team": null}
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"summary": "weekly tasks", "items": items})).unwrap()
}

fn schema() -> serde_json::Value {
    json!({
        "type": "object",
        "required": ["summary", "items"],
        "properties": {
            "summary": {"type": "string", "maxLength": 200},
            "items": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "status"],
                "properties": {
                    "id": {"type": "integer"},
                    "status": {"enum": ["todo", "in_progress", "done"]},
                    "title": {"type": "string", "maxLength": 200},
                    "score": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "done": {"type": "boolean"}
                }
            }}
        }
    })
}

/// `text` cut into pieces of about `size` bytes, each ending on a character boundary.
fn str_chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + size).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push(&text[from..to]);
        from = to;
    }
    out
}

fn bench(c: &mut Criterion) {
    let text = answer();
    let mut group = c.benchmark_group("stream_1mb");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    // Reading: what keeps up with the arriving text (the value is built only when asked).
    group.bench_function("reader_whole", |b| {
        b.iter(|| {
            let mut reader = Reader::new();
            reader.push(black_box(&text)).unwrap();
            black_box(reader.state() == ReadState::Done)
        });
    });
    for size in [10, 100, 4096] {
        group.bench_function(format!("reader_{size}_byte_chunks"), |b| {
            b.iter(|| {
                let mut reader = Reader::new();
                for chunk in text.as_bytes().chunks(size) {
                    reader.push_bytes(black_box(chunk)).unwrap();
                }
                black_box(reader.state() == ReadState::Done)
            });
        });
    }
    // Text as providers hand it over (`&str` deltas, already UTF-8): about 10 bytes each.
    let deltas = str_chunks(&text, 10);
    group.bench_function("reader_10_byte_str_deltas", |b| {
        b.iter(|| {
            let mut reader = Reader::new();
            for delta in &deltas {
                reader.push(black_box(delta)).unwrap();
            }
            black_box(reader.state() == ReadState::Done)
        });
    });
    // Reading, then the whole value built once at the end.
    group.bench_function("reader_10_byte_chunks_then_value", |b| {
        b.iter(|| {
            let mut reader = Reader::new();
            for chunk in text.as_bytes().chunks(10) {
                reader.push_bytes(black_box(chunk)).unwrap();
            }
            black_box(reader.value().is_some())
        });
    });
    let checker = Arc::new(PrefixChecker::new(&schema(), PrefixOptions::default()));
    group.bench_function("judge_10_byte_chunks", |b| {
        b.iter(|| {
            let mut judge = StreamJudge::new(Arc::clone(&checker));
            for chunk in text.as_bytes().chunks(10) {
                judge.push_bytes(black_box(chunk)).unwrap();
            }
            black_box(judge.reader().value().is_some())
        });
    });
    group.bench_function("serde_json_whole", |b| {
        b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&text)).is_ok()));
    });
    let options = rectify_repair::RepairOptions::default();
    group.bench_function("repair_whole", |b| {
        b.iter(|| {
            black_box(
                rectify_repair::repair(black_box(&text), &options)
                    .value
                    .is_some(),
            )
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
