//! Fuzz target for the YAML and Markdown readers (`rectify_parse::read_bytes`).
//!
//! Properties: no panic, and every located diagnostic or document span lies inside the input
//! (`start <= end <= len`). `cargo fuzz run parse` (from `fuzz/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_core::Format;
use rectify_parse::{Limits, read_bytes};

fuzz_target!(|data: &[u8]| {
    for format in [Format::Yaml, Format::Markdown] {
        let parsed = read_bytes(data.to_vec(), format, &Limits::default());
        for diagnostic in &parsed.diagnostics {
            if let Some(span) = diagnostic.location.span {
                assert!(span.start <= span.end, "{format}: span {span:?} reversed");
                assert!(
                    span.end <= data.len(),
                    "{format}: span {span:?} past {}",
                    data.len()
                );
                assert!(
                    span.line >= 1 && span.column >= 1,
                    "{format}: span {span:?} not 1-based"
                );
            }
        }
    }
});
