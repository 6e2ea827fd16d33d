//! Reading JSON with a span map versus parsing with serde_json alone (issue 2).
//!
//! `cargo bench -p rectify-bench --bench parse`

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rectify_core::Format;
use rectify_parse::Limits;

fn parse_10mb(c: &mut Criterion) {
    let text = rectify_bench::realistic_array(10 * 1024 * 1024);
    let mut group = c.benchmark_group("json_10mb");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(&text).map(drop));
    });
    group.bench_function("rectify_read_with_spans", |b| {
        b.iter_batched(
            || text.clone(),
            |t| {
                rectify_parse::read(t, Format::Json, &Limits::default())
                    .document
                    .map(drop)
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

criterion_group!(benches, parse_10mb);
criterion_main!(benches);
