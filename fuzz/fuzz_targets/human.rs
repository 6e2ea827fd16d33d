//! Fuzz target for the CLI's human diagnostic printer (issue 15): the printer's own source
//! (`crates/rectify-cli/src/printer/human.rs`, a binary crate's module) is compiled here.
//!
//! Every diagnostic the tool can emit about a text — repair's (safe and unsafe), the JSON,
//! YAML and Markdown readers' — is rendered with the text as its
//! source, as `rectify repair` and `rectify check` do; so is a diagnostic whose span is drawn
//! from the input (inconsistent spans included). Property: no panic, and the rendering names
//! the diagnostic's code.
//!
//! `cargo fuzz run human` (from `fuzz/`).

#![no_main]

#[allow(dead_code)]
#[path = "../../crates/rectify-cli/src/printer/human.rs"]
mod human;

use libfuzzer_sys::fuzz_target;
use rectify_core::{Diagnostic, Document, Format, Location, Span, SpanMap};
use rectify_parse::{Limits, read};
use rectify_repair::{RepairOptions, repair};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let printer = human::HumanPrinter::stderr();
    let source = Document::new(Format::Text, text.clone(), Value::Null, SpanMap::default());
    let mut diagnostics = Vec::new();
    for allow in [false, true] {
        diagnostics.extend(repair(&text, &RepairOptions::default().with_unsafe(allow)).diagnostics);
    }
    for format in [Format::Json, Format::Yaml, Format::Markdown] {
        let parsed = read(text.clone(), format, &Limits::default());
        for d in &parsed.diagnostics {
            let out = printer.render(
                d,
                "input",
                parsed.document.as_ref().or(Some(&source)),
                &mut human::Columns::default(),
            );
            assert!(out.contains(d.code.as_str()), "{out}");
        }
    }
    // A span drawn from the input's first bytes, whatever it says.
    let n = |i: usize| usize::from(data.get(i).copied().unwrap_or(0));
    let span = Span {
        start: n(0) * 7,
        end: n(1) * 5,
        line: n(2) % 8,
        column: n(3),
    };
    diagnostics.push(Diagnostic::error(
        "fuzz.span",
        Location::from_span(span),
        "drawn",
    ));
    for d in &diagnostics {
        let out = printer.render(d, "input", Some(&source), &mut human::Columns::default());
        assert!(out.contains(d.code.as_str()), "{out}");
    }
});
