//! The Markdown reader: front matter read as YAML with whole-file spans, and sections.

#![allow(clippy::expect_used)] // helpers outside `#[test]` functions

use std::fmt::Write as _;

use rectify_core::{Diagnostic, Document, Section, Severity};
use rectify_parse::{Limits, Parsed, markdown};
use serde_json::json;

fn parse(text: &str) -> Parsed {
    markdown::read(text.to_owned(), &Limits::default())
}

fn doc(text: &str) -> Document {
    let parsed = parse(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.document.expect("a document")
}

fn line_col(d: &Diagnostic) -> (usize, usize) {
    let s = d.location.span.expect("a span");
    (s.line, s.column)
}

/// `(level, title, heading text, body text)` of each section.
fn outline(doc: &Document) -> Vec<(u8, &str, &str, &str)> {
    doc.sections
        .iter()
        .map(|s: &Section| {
            (
                s.level,
                s.title.as_str(),
                &doc.source[s.heading.0..s.heading.1],
                &doc.source[s.body.0..s.body.1],
            )
        })
        .collect()
}

#[test]
fn front_matter_is_the_value_with_spans_in_the_whole_file() {
    let text = "---\ntitle: Plan\ntags: [a, b]\nowner: Zoë\nsteps:\n  - name: é\n---\n# Plan\n";
    let d = doc(text);
    assert_eq!(
        d.value,
        json!({"title": "Plan", "tags": ["a", "b"], "owner": "Zoë", "steps": [{"name": "é"}]})
    );
    let s = d.locate("/tags/1").span.unwrap();
    assert_eq!((s.line, s.column, &text[s.start..s.end]), (3, 11, "b"));
    let s = d.locate("/steps/0/name").span.unwrap();
    assert_eq!((s.line, s.column, &text[s.start..s.end]), (6, 11, "é"));
    assert_eq!(s.start, text.rfind('é').unwrap());
    assert_eq!(outline(&d), [(1, "Plan", "# Plan", "")]);
    let heading = d.span(d.sections[0].heading.0, d.sections[0].heading.1);
    assert_eq!((heading.line, heading.column), (8, 1));
}

#[test]
fn no_front_matter_means_null() {
    let d = doc("# Title\n\ntext\n");
    assert_eq!(d.value, json!(null));
    assert_eq!(d.locate("/x").span, None);
    assert_eq!(outline(&d), [(1, "Title", "# Title", "\ntext\n")]);
}

#[test]
fn the_closing_delimiter_is_not_a_setext_heading() {
    let d = doc("---\ntitle: x\n---\nText\n");
    assert_eq!(d.value, json!({"title": "x"}));
    assert!(d.sections.is_empty());
    let d = doc("\u{feff}---\r\na: 1\r\n...\r\n## After\r\nbody\r\n");
    assert_eq!(d.value, json!({"a": 1}));
    assert_eq!(outline(&d), [(2, "After", "## After", "body\r\n")]);
}

#[test]
fn invalid_front_matter_reports_file_lines_and_keeps_the_sections() {
    let text = "---\ntitle: x\nbad: [1,\n---\n# Heading\nbody\n";
    let parsed = parse(text);
    assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
    let d = &parsed.diagnostics[0];
    assert_eq!(
        (d.code.as_str(), d.severity),
        ("parse.syntax", Severity::Error)
    );
    assert_eq!(
        d.message,
        "invalid YAML: while parsing a node, did not find expected node content"
    );
    assert_eq!(line_col(d), (4, 1), "at the end of the front matter");
    let doc = parsed.document.expect("the Markdown is still read");
    assert_eq!(doc.value, json!(null));
    assert_eq!(outline(&doc), [(1, "Heading", "# Heading", "body\n")]);

    let parsed = parse("---\nname: a\nname: b\n---\n");
    let d = &parsed.diagnostics[0];
    assert_eq!(
        (d.code.as_str(), line_col(d)),
        ("yaml.duplicate_key", (3, 1))
    );
    assert_eq!(parsed.document.unwrap().value, json!({"name": "b"}));

    let parsed = parse("---\na:\n\tb: 1\n---\n");
    assert_eq!(line_col(&parsed.diagnostics[0]), (3, 2));
}

#[test]
fn alias_bomb_in_front_matter_is_refused() {
    let mut yaml = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (name, prev) in ["b", "c", "d", "e", "f", "g"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f"])
    {
        let refs = vec![format!("*{prev}"); 10].join(", ");
        writeln!(yaml, "{name}: &{name} [{refs}]").unwrap();
    }
    let parsed = parse(&format!("---\n{yaml}---\n# T\n"));
    assert_eq!(parsed.diagnostics[0].code, "yaml.alias_limit");
    assert_eq!(line_col(&parsed.diagnostics[0]).0, 6);
    assert_eq!(parsed.document.unwrap().value, json!(null));
}

#[test]
fn front_matter_problems() {
    let parsed = parse("---\n- a\n- b\n---\n");
    let d = &parsed.diagnostics[0];
    assert_eq!(
        (d.code.as_str(), d.severity),
        ("markdown.front_matter", Severity::Warning)
    );
    assert_eq!(d.message, "the front matter is not a mapping");
    assert_eq!(parsed.document.unwrap().value, json!(["a", "b"]));

    let parsed = parse("---\ntitle: x\n\n# Body\n");
    let d = &parsed.diagnostics[0];
    assert_eq!(
        (d.code.as_str(), line_col(d)),
        ("markdown.front_matter", (1, 1))
    );
    let doc = parsed.document.unwrap();
    assert_eq!(doc.value, json!(null));
    assert_eq!(outline(&doc), [(1, "Body", "# Body", "")]);

    assert_eq!(
        doc_value("---\n---\n# A\n"),
        json!(null),
        "empty front matter"
    );
}

fn doc_value(text: &str) -> serde_json::Value {
    doc(text).value
}

#[test]
fn sections_follow_commonmark_headings() {
    let text = "# Plan\nintro\n\n```md\n# not a heading\n```\n\n## Goal\nShip it.\n\n\
                ### Task 1: `parse` **YAML**\n~~~\n## fenced too\n~~~\n\nSetext two\n----------\n\
                text\n\n    # indented code\n# Last";
    let d = doc(text);
    assert_eq!(
        outline(&d),
        [
            (1, "Plan", "# Plan", &text[7..text.len() - 6]),
            (
                2,
                "Goal",
                "## Goal",
                "Ship it.\n\n### Task 1: `parse` **YAML**\n~~~\n## fenced too\n~~~\n\n"
            ),
            (
                3,
                "Task 1: parse YAML",
                "### Task 1: `parse` **YAML**",
                "~~~\n## fenced too\n~~~\n\n"
            ),
            (
                2,
                "Setext two",
                "Setext two\n----------",
                "text\n\n    # indented code\n"
            ),
            (1, "Last", "# Last", ""),
        ]
    );
}

#[test]
fn empty_sections_have_empty_bodies() {
    let text = "# A\n## B\n## C\n### D\n";
    let d = doc(text);
    assert_eq!(
        outline(&d),
        [
            (1, "A", "# A", "## B\n## C\n### D\n"),
            (2, "B", "## B", ""),
            (2, "C", "## C", "### D\n"),
            (3, "D", "### D", ""),
        ]
    );
    assert_eq!(
        d.sections[1].body,
        (9, 9),
        "B's body is empty, right before C"
    );
    assert_eq!(d.sections[3].body, (text.len(), text.len()));
}

#[test]
fn multi_line_setext_titles_and_trailing_hashes() {
    let d = doc("First\nline\n===\n## Closed ##   \nx\n");
    assert_eq!(
        outline(&d),
        [
            (1, "First line", "First\nline\n===", "## Closed ##   \nx\n"),
            (2, "Closed", "## Closed ##", "x\n")
        ]
    );
}

#[test]
fn deep_nesting_does_not_overflow() {
    for text in [
        ">".repeat(100_000) + " # deep\n",
        "- ".repeat(100_000) + "x\n",
        "[".repeat(100_000) + "x" + &"]".repeat(100_000),
        "*".repeat(100_000) + "x" + &"*".repeat(100_000),
    ] {
        let parsed = markdown::read(text, &Limits::default());
        assert!(parsed.document.is_some());
    }
    let d = doc(&(">".repeat(100_000) + " # deep\n"));
    assert_eq!(d.sections.len(), 1);
    assert_eq!(d.sections[0].title, "deep");
}
