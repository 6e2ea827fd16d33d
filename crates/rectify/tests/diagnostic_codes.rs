//! The catalogue of diagnostic codes (`docs/diagnostics.md`) and the repair rules
//! (`docs/rules/README.md`) document every code the workspace's code can emit, and the catalogue
//! lists no code the code no longer has.
//!
//! Codes are found as string literals `"family.name"` of the known families in every
//! `crates/*/src` file, test code aside (files named `tests.rs` and everything after a file's
//! `#[cfg(test)]`). Schema codes made from a keyword not in rectify's list
//! (`schema.<keyword>`) are covered by the catalogue's general rule.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const FAMILIES: &[&str] = &[
    "agent", "coerce", "extract", "flow", "json", "markdown", "parse", "provider", "repair",
    "response", "rule", "schema", "text", "type", "verdict", "yaml",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the workspace root")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// `"family.name"` literals in `text` (a quote written as a character, `'"'`, is not the
/// start of a string).
fn codes_in(text: &str, out: &mut BTreeSet<String>) {
    let text = text.replace("'\"'", "").replace("'\\\"'", "");
    for literal in text.split('"').skip(1).step_by(2) {
        let Some((family, name)) = literal.split_once('.') else {
            continue;
        };
        let is_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if FAMILIES.contains(&family) && is_name {
            out.insert(literal.to_owned());
        }
    }
}

/// Every code in the sources, test code aside.
fn emitted() -> BTreeSet<String> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(workspace().join("crates")).expect("crates/") {
        let src = krate.expect("an entry").path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    let mut codes = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        codes_in(code, &mut codes);
    }
    codes
}

/// Codes written as `` `family.name` `` in a Markdown file.
fn documented(file: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(workspace().join(file)).expect("the docs");
    let mut codes = BTreeSet::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        codes_in(&format!("\"{quoted}\""), &mut codes);
    }
    codes
}

#[test]
fn every_code_the_code_emits_is_documented() {
    let emitted = emitted();
    assert!(
        emitted.contains("schema.required") && emitted.contains("json.trailing_comma"),
        "the scan finds codes: {emitted:?}"
    );
    let catalogue = documented("docs/diagnostics.md");
    let rules = documented("docs/rules/README.md");
    let missing: Vec<&String> = emitted
        .iter()
        .filter(|c| !catalogue.contains(*c) && !rules.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes the code emits that neither docs/diagnostics.md nor docs/rules/README.md documents: {missing:?}"
    );
}

#[test]
fn the_catalogue_lists_no_code_that_is_gone() {
    let emitted = emitted();
    let stale: Vec<String> = documented("docs/diagnostics.md")
        .into_iter()
        .filter(|c| !emitted.contains(c) && !c.starts_with("schema."))
        .filter(|c| !documented("docs/rules/README.md").contains(c))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/diagnostics.md lists codes the code does not emit: {stale:?}"
    );
}
