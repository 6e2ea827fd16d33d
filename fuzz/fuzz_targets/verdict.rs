//! Fuzz target for the validator-verdict parser (`rectify_loop::parse_verdict`) and the
//! agent-definition front matter (`rectify_flow::spec::parse_agent`).
//!
//! Properties: no panic and no hang; a text without a `Verdict:` line is never PASS (no
//! verdict is FAIL); a FAIL verdict gives at least one error diagnostic; a front matter and
//! body, when found, are parts of the input. `cargo fuzz run verdict` (from `fuzz/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_core::Verdict;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let verdict = rectify_loop::parse_verdict(text);
    if !text.to_ascii_lowercase().contains("verdict") {
        assert!(
            !matches!(verdict, Verdict::Pass),
            "PASS without a verdict: {text:?}"
        );
    }
    let diagnostics = rectify_loop::verdict_diagnostics(&verdict);
    if matches!(verdict, Verdict::Fail { .. }) {
        assert!(
            diagnostics.iter().any(|d| d.is_error()),
            "FAIL without an error"
        );
    }
    if let Some((front, body)) = rectify_flow::spec::parse_agent(text) {
        assert!(text.contains(front) && text.contains(body));
    }
});
