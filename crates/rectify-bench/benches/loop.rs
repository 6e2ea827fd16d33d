//! Engine overhead per attempt of the retry loop (issue 5; target < 1 ms for a 10 KB answer).
//!
//! `cargo bench -p rectify-bench --bench loop -- --warm-up-time 1 --measurement-time 5`
//!
//! The provider is a zero-latency `ScriptedProvider` (no network, no recording), so every
//! nanosecond measured is the engine's: building the request (messages, schema, feedback),
//! extraction and repair, the schema check, feedback rendering, the ledger and the outcome.
//! Workloads on a 10 KB answer (100 records, a schema with typed, bounded fields):
//! - `valid`: the first answer is valid (one attempt);
//! - `repaired`: the first answer is fenced, single-quoted with trailing commas (one attempt,
//!   lenient parse and recorded repairs);
//! - `three_attempts`: two invalid answers (one error each) then a valid one, in `append` mode,
//!   so the third request carries the whole transcript; divide by 3 for the per-attempt cost.
//!
//! `serde_json_parse` (parsing the same answer into a `Value`) is the floor for comparison.

// A bench whose fixed schema does not compile must stop loudly, not measure nothing.
#![allow(clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rectify_loop::{Engine, Task};
use rectify_test::scripted::ScriptedProvider;
use serde_json::{Value, json};

fn schema() -> Value {
    json!({
        "type": "object",
        "required": ["project", "items"],
        "properties": {
            "project": {"type": "string"},
            "items": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "title", "done", "tags"],
                "properties": {
                    "id": {"type": "integer", "minimum": 0},
                    "title": {"type": "string", "minLength": 3},
                    "done": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
                }
            }}
        }
    })
}

/// About 10 KB of pretty JSON; `bad` makes one title too short.
fn answer(bad: bool) -> String {
    let items: Vec<Value> = (0..100)
        .map(|i| {
            let title = if bad && i == 50 {
                "x".to_owned()
            } else {
                format!("Task number {i:03} of the plan")
            };
            json!({"id": i, "title": title, "done": i % 3 == 0, "tags": ["loop", "bench"]})
        })
        .collect();
    serde_json::to_string_pretty(&json!({"project": "rectify", "items": items}))
        .expect("serializes")
}

/// The valid answer as a model might write it: fenced, single quotes, trailing commas.
fn sloppy() -> String {
    let text = answer(false).replace('"', "'").replace("]\n", ",]\n");
    format!("Here is the plan:\n```json\n{text}\n```\nLet me know if you need more.")
}

fn engine(answers: &[&str]) -> Engine {
    let mut provider = ScriptedProvider::new("bench").without_recording();
    for text in answers {
        provider = provider.text(*text);
    }
    Engine::new(Arc::new(provider))
}

fn bench_loop(c: &mut Criterion) {
    let task = Task::new("Plan the work as JSON.")
        .schema(schema())
        .expect("the schema compiles");
    let (valid, invalid, sloppy) = (answer(false), answer(true), sloppy());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("loop_10kb");
    group.throughput(Throughput::Bytes(valid.len() as u64));
    group.bench_function("serde_json_parse", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&valid)).map(drop));
    });
    for (name, answers) in [
        ("valid", vec![valid.as_str()]),
        ("repaired", vec![sloppy.as_str()]),
        ("three_attempts", vec![&invalid, &invalid, &valid]),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || engine(&answers),
                |engine| {
                    let outcome = runtime.block_on(engine.run(&task));
                    assert!(outcome.is_valid(), "{name}: {}", outcome.status());
                    outcome
                },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, bench_loop);
criterion_main!(benches);
