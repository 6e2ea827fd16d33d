//! Fuzz target for the text path alone: `repair_bytes_to_json` (compact and pretty, safe and
//! unsafe options) gives exactly the value path's JSON text, repairs and diagnostics.
//!
//! The `repair` target checks this too, among slower properties (its sampled linear-time
//! check repairs 1 MiB three times); this one runs many more inputs per second on the code
//! that writes and edits the repaired text (`parser/text.rs`, `parser/rewrite.rs`).
//!
//! `cargo fuzz run text_path` (from `fuzz/`; see docs/BENCHMARKS.md for the recorded run).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_repair::{JsonStyle, RepairOptions, repair_bytes, repair_bytes_to_json};

fuzz_target!(|data: &[u8]| {
    for options in [
        RepairOptions::default().with_unsafe(true),
        RepairOptions::default(),
    ] {
        let value = repair_bytes(data, &options);
        let text = repair_bytes_to_json(data, &options, JsonStyle::Compact);
        assert_eq!(text.json, value.to_json(), "text path differs");
        assert_eq!(text.repairs, value.repairs, "text path repairs differ");
        assert_eq!(text.diagnostics, value.diagnostics, "diagnostics differ");
        let pretty = repair_bytes_to_json(data, &options, JsonStyle::Pretty);
        assert_eq!(pretty.json, value.to_json_pretty(), "pretty text differs");
        assert_eq!(pretty.repairs, value.repairs, "pretty repairs differ");
    }
});
