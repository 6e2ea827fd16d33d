//! Fuzz target for `rectify_repair::repair`: properties, not only "no panic".
//!
//! - no panic on any bytes (through `repair_bytes`, unsafe repairs allowed);
//! - idempotence: repairing the repaired output changes nothing;
//! - the text path (`repair_bytes_to_json`, compact and pretty) gives exactly the value
//!   path's JSON text, repairs and diagnostics;
//! - valid JSON comes back as the same value, with no repair, through the fast path and
//!   through the lenient parser alone;
//! - linear time: for a sample of inputs, the input repeated to 1 MiB takes at most a
//!   constant factor more per byte than the same input repeated to 64 KiB (best of 3, plus
//!   1 µs per byte of slack for noise: a quadratic path costs far more); skipped in the CI
//!   smoke run and in runs for many executions, which set `RECTIFY_FUZZ_SKIP_TIMING`.
//!
//! `cargo fuzz run repair` (from `fuzz/`; see docs/BENCHMARKS.md for the recorded run).

#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use rectify_repair::testing::parse_lenient;
use rectify_repair::{
    JsonStyle, RepairOptions, Repaired, repair, repair_bytes, repair_bytes_to_json,
};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let options = RepairOptions::default().with_unsafe(true);
    let out = repair_bytes(data, &options);
    same_as_text_path(data, &options, &out);
    same_as_text_path(
        data,
        &RepairOptions::default(),
        &repair_bytes(data, &RepairOptions::default()),
    );
    if let Some(text) = out.to_json() {
        let again = repair(&text, &options);
        assert!(again.is_unchanged(), "not idempotent: {text}");
        assert_eq!(again.value, out.value);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(valid) = serde_json::from_str::<Value>(text) {
        assert!(out.is_unchanged());
        assert_eq!(out.value.as_ref(), Some(&valid));
        let (lenient, repairs) = parse_lenient(text);
        if !repairs.contains(&"json.duplicate_key") {
            assert!(repairs.is_empty(), "valid JSON repaired: {repairs:?}");
            assert_eq!(lenient, Some(valid));
        }
    }
    // The CI smoke run (`scripts/fuzz_smoke.sh`) and runs for many executions skip it.
    if !data.is_empty()
        && data[0] % 64 == 7
        && std::env::var_os("RECTIFY_FUZZ_SKIP_TIMING").is_none()
    {
        linear_time(text, &options);
    }
});

/// `repair_bytes_to_json` agrees with `repair_bytes` + `to_json` / `to_json_pretty`.
fn same_as_text_path(data: &[u8], options: &RepairOptions, out: &Repaired) {
    let text = repair_bytes_to_json(data, options, JsonStyle::Compact);
    assert_eq!(text.json, out.to_json(), "text path differs");
    assert_eq!(text.repairs, out.repairs, "text path repairs differ");
    assert_eq!(
        text.diagnostics, out.diagnostics,
        "text path diagnostics differ"
    );
    let pretty = repair_bytes_to_json(data, options, JsonStyle::Pretty);
    assert_eq!(
        pretty.json,
        out.to_json_pretty(),
        "pretty text path differs"
    );
}

fn linear_time(text: &str, options: &RepairOptions) {
    let time = |size: usize| {
        let big = text.repeat(size / text.len().max(1) + 1);
        let best = (0..3)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(repair(&big, options));
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        (best, big.len())
    };
    let (small, small_len) = time(64 * 1024);
    let (large, large_len) = time(1024 * 1024);
    let per_byte = |t: f64, n: usize| t / n as f64;
    assert!(
        per_byte(large, large_len) <= 8.0 * per_byte(small, small_len) + 1.0e-6,
        "superlinear: {small:.4}s for {small_len} bytes, {large:.4}s for {large_len} bytes"
    );
}
