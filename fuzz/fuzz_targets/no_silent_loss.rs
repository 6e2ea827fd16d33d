//! Fuzz target for the no-silent-loss property of issue 12: a document drawn from the
//! fuzzer's bytes (distinct keys, strings and numbers), broken by edits drawn from them too;
//! every token must be in the repaired value or covered by a recorded repair that names it.
//! The generator and the check are `rectify_repair::testing::loss`, shared with the property
//! test `crates/rectify-repair/tests/no_silent_loss.rs`.
//!
//! `cargo fuzz run no_silent_loss` (from `fuzz/`; see docs/BENCHMARKS.md for the recorded run).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_repair::RepairOptions;
use rectify_repair::testing::loss::{Edit, Shape, apply, build, lost};

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let flags = bytes.next().unwrap_or(0);
    let shape = Shape::from_bytes(&mut bytes, 4);
    let edits: Vec<Edit> = (0..1 + flags % 3)
        .map(|_| Edit::from_bytes(&mut bytes))
        .collect();
    let mut tokens = Vec::new();
    let value = build(&shape, &mut 0, &mut tokens);
    let valid = if flags & 8 != 0 {
        serde_json::to_string_pretty(&value).unwrap_or_default()
    } else {
        value.to_string()
    };
    let text = apply(&valid, &edits);
    let options = RepairOptions::default().with_unsafe(flags & 16 != 0);
    let lost = lost(&text, &tokens, &options);
    assert!(lost.is_empty(), "{text:?} lost {lost:?}");
});
