//! Fuzz target for what `check` is configured with: the input is split at the first NUL into a
//! JSON Schema and a rules file (YAML), then a document is checked with whatever loaded.
//!
//! Properties: no panic and no hang; a schema or rules file that does not load is a
//! configuration error (`Err`), never a panic; every located diagnostic of the check lies
//! inside the document. `cargo fuzz run check` (from `fuzz/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_check::{CompiledSchema, References, RuleSet};
use rectify_core::Format;
use rectify_parse::{Limits, read};

const DOC: &str = r#"{"tasks": [{"id": "T1", "phaseId": "p1", "title": ""}, {"id": "T1"}], "phases": [{"id": "p1"}], "goal": "x"}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (schema_text, rules_text) = text.split_once('\0').unwrap_or((text, ""));
    let doc = read(DOC.to_owned(), Format::Json, &Limits::default())
        .document
        .expect("the fixed document reads");
    let mut diagnostics = Vec::new();
    if let Ok(schema) = serde_json::from_str::<serde_json::Value>(schema_text)
        && let Ok(compiled) = CompiledSchema::compile(&schema)
    {
        diagnostics.extend(compiled.check(&doc));
    }
    let rules = read(rules_text.to_owned(), Format::Yaml, &Limits::default());
    if let Some(rules_doc) = rules.document
        && let Ok(set) = RuleSet::from_document(&rules_doc, None)
    {
        let refs: References = set
            .referenced_documents()
            .into_iter()
            .map(|name| {
                (
                    name.to_owned(),
                    read(DOC.to_owned(), Format::Json, &Limits::default())
                        .document
                        .expect("reads"),
                )
            })
            .collect();
        if let Ok(found) = set.check(&doc, &refs) {
            diagnostics.extend(found);
        }
    }
    for d in &diagnostics {
        if let Some(span) = d.location.span {
            assert!(span.start <= span.end && span.end <= DOC.len(), "{d:?}");
        }
    }
});
