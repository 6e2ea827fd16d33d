//! The YAML reader: values, spans, anchors and limits, diagnostics.

#![allow(clippy::expect_used)] // helpers outside `#[test]` functions

use std::fmt::Write as _;

use rectify_core::{Diagnostic, Document, Severity};
use rectify_parse::{Limits, Parsed, yaml};
use serde_json::json;

fn parse(text: &str) -> Parsed {
    yaml::read(text.to_owned(), &Limits::default())
}

fn doc(text: &str) -> Document {
    let parsed = parse(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.document.expect("a document")
}

/// Line, column and source text of the value at `pointer`.
fn at<'a>(doc: &'a Document, pointer: &str) -> (usize, usize, &'a str) {
    let span = doc.spans.find(&doc.source, pointer).expect("a span");
    let s = doc.span(span.0, span.1);
    (s.line, s.column, &doc.source[s.start..s.end])
}

fn only(parsed: &Parsed) -> &Diagnostic {
    assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
    &parsed.diagnostics[0]
}

fn line_col(d: &Diagnostic) -> (usize, usize) {
    let s = d.location.span.expect("a span");
    (s.line, s.column)
}

#[test]
fn scalars_follow_the_core_schema_and_keys_keep_their_order() {
    let d = doc(
        "name: rectify\nversion: 1.50\ncount: 0x1F\nbig: 123456789012345678901234567890\n\
                 neg: -007\nratio: .5\nok: True\nyes: yes\nnothing: ~\nempty:\nquoted: \"123\"\n\
                 single: 'true'\nlist: [a, 1, null]\n1: one\nblock: |\n  line one\n  line two\n",
    );
    let version: serde_json::Value = serde_json::from_str("1.50").unwrap();
    assert_eq!(
        d.value,
        json!({"name": "rectify", "version": version, "count": 31,
               "big": 123_456_789_012_345_678_901_234_567_890_u128, "neg": -7, "ratio": 0.5, "ok": true,
               "yes": "yes", "nothing": null, "empty": null, "quoted": "123", "single": "true",
               "list": ["a", 1, null], "1": "one", "block": "line one\nline two\n"})
    );
    let keys: Vec<&str> = d
        .value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys[..4], ["name", "version", "count", "big"]);
    assert_eq!(
        d.value["version"].to_string(),
        "1.50",
        "number text kept exactly"
    );
    assert_eq!(d.value["big"].to_string(), "123456789012345678901234567890");
}

#[test]
fn every_value_has_a_span() {
    let text = "tasks:\n  - id: t1\n    files: [a.rs, \"b c.rs\"]\n  - id: t2\n\
                note: >-\n  folded\n  text\n";
    let d = doc(text);
    assert_eq!(at(&d, "/tasks/0/id"), (2, 9, "t1"));
    assert_eq!(at(&d, "/tasks/0/files/1"), (3, 19, "\"b c.rs\""));
    assert_eq!(at(&d, "/tasks/0/files"), (3, 12, "[a.rs, \"b c.rs\"]"));
    assert_eq!(at(&d, "/tasks/1"), (4, 5, "id: t2"));
    assert_eq!(at(&d, "/tasks/1/id"), (4, 9, "t2"));
    assert_eq!(at(&d, "/note"), (6, 3, "folded\n  text\n"));
    let (line, column, _) = at(&d, "");
    assert_eq!((line, column), (1, 1));
    // A missing value is located at its nearest ancestor.
    let s = d.locate("/tasks/1/phaseId").span.unwrap();
    assert_eq!((s.line, s.column), (4, 5));
}

#[test]
fn offsets_are_bytes_and_columns_are_characters() {
    let text = "é: ü\nnested:\n  名前: \"日本語\"\n  x: [ß, 1]\n";
    let d = doc(text);
    assert_eq!(
        d.value,
        json!({"é": "ü", "nested": {"名前": "日本語", "x": ["ß", 1]}})
    );
    let span = d.locate("/nested/名前").span.unwrap();
    assert_eq!(span.start, text.find("\"日本語\"").unwrap());
    assert_eq!(&text[span.start..span.end], "\"日本語\"");
    assert_eq!((span.line, span.column), (3, 7));
    assert_eq!(at(&d, "/nested/x/1"), (4, 10, "1"));
    assert_eq!(at(&d, "/é"), (1, 4, "ü"));
}

#[test]
fn crlf_and_bom() {
    let d = doc("\u{feff}a: 1\r\nb:\r\n  - x\r\n");
    assert_eq!(d.value, json!({"a": 1, "b": ["x"]}));
    assert_eq!(at(&d, "/b/0"), (3, 5, "x"));
    assert_eq!(at(&d, "/a"), (1, 5, "1"), "the BOM counts as a column");
}

#[test]
fn anchors_and_aliases_are_expanded() {
    let text = "base: &b {x: 1, y: [2]}\ncopy: *b\nlist: [*b, &s str, *s]\n";
    let d = doc(text);
    let base = json!({"x": 1, "y": [2]});
    assert_eq!(
        d.value,
        json!({"base": base, "copy": base, "list": [base, "str", "str"]})
    );
    assert_eq!(at(&d, "/copy"), (2, 7, "*b"));
    assert_eq!(at(&d, "/list/2"), (3, 20, "*s"));
    assert_eq!(at(&d, "/base/y/0"), (1, 21, "2"));
    // Inside an alias, a value is located at the alias.
    let s = d.locate("/copy/y/0").span.unwrap();
    assert_eq!((s.line, s.column), (2, 7));
}

#[test]
fn alias_bomb_is_refused_by_the_node_budget() {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
    {
        let refs = vec![format!("*{prev}"); 9].join(",");
        writeln!(text, "{name}: &{name} [{refs}]").unwrap();
    }
    let parsed = parse(&text);
    assert!(parsed.document.is_none());
    let d = only(&parsed);
    assert_eq!(d.code, "yaml.alias_limit");
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(
        d.message,
        "aliases expand to more than 100000 nodes (an alias bomb?); the document was not read"
    );
    assert_eq!(
        line_col(d).0,
        6,
        "refused while reading the level that crosses the budget"
    );
}

#[test]
fn alias_budget_counts_over_the_whole_document() {
    // Each `*a` copies 3 nodes (the sequence and two scalars).
    let text = "a: &a [1, 2]\nb: [*a, *a]\nc: *a\n";
    let limits = |n| Limits {
        max_alias_nodes: n,
        ..Limits::default()
    };
    assert!(yaml::read(text.into(), &limits(9)).diagnostics.is_empty());
    let parsed = yaml::read(text.into(), &limits(8));
    assert_eq!(only(&parsed).code, "yaml.alias_limit");
    assert_eq!(line_col(only(&parsed)), (3, 4));
    assert_eq!(only(&parsed).location.pointer, "/c");
}

#[test]
fn alias_expansion_counts_text_bytes() {
    let text = format!("a: &a \"{}\"\nb: [*a, *a, *a, *a]\n", "x".repeat(1000));
    let limits = Limits {
        max_bytes: 3500,
        ..Limits::default()
    };
    let parsed = yaml::read(text, &limits);
    assert_eq!(only(&parsed).code, "yaml.alias_limit");
    assert!(only(&parsed).message.contains("3500 bytes of text"));
}

#[test]
fn recursive_alias_is_refused() {
    let parsed = parse("a: &a [1, *a]\n");
    assert!(parsed.document.is_none());
    let d = only(&parsed);
    assert_eq!(d.code, "yaml.recursive_alias");
    assert_eq!(d.location.pointer, "/a/1");
    assert_eq!(
        d.message,
        "alias `*a` refers to a node that contains it; JSON cannot represent a cycle"
    );
}

#[test]
fn unknown_alias_is_a_syntax_error() {
    let d = only(&parse("a: *nope\n")).clone();
    assert_eq!(d.code, "parse.syntax");
    assert_eq!(
        d.message,
        "invalid YAML: while parsing node, found unknown anchor"
    );
    assert_eq!(line_col(&d), (1, 4));
}

#[test]
fn duplicate_keys_are_errors_and_the_last_value_wins() {
    let text = "a: 1\nb: 2\na: 3\nx:\n  k: {m: 1, m: 2}\n";
    let parsed = parse(text);
    let doc = parsed.document.as_ref().expect("still a document");
    assert_eq!(doc.value, json!({"a": 3, "b": 2, "x": {"k": {"m": 2}}}));
    let keys: Vec<&str> = doc
        .value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["a", "b", "x"], "first position kept");
    assert_eq!(at(doc, "/a"), (3, 4, "3"), "the span is the last value's");
    assert_eq!(parsed.diagnostics.len(), 2);
    let first = &parsed.diagnostics[0];
    assert_eq!(
        (first.code.as_str(), first.severity),
        ("yaml.duplicate_key", Severity::Error)
    );
    assert_eq!(first.message, "duplicate key `a`; the last value is used");
    assert_eq!(
        (first.location.pointer.as_str(), line_col(first)),
        ("/a", (3, 1))
    );
    let second = &parsed.diagnostics[1];
    assert_eq!(
        (second.location.path.as_str(), line_col(second)),
        ("x.k.m", (5, 13))
    );
}

#[test]
fn keys_compare_by_text() {
    let parsed = parse("1: a\n\"1\": b\n");
    assert_eq!(only(&parsed).code, "yaml.duplicate_key");
    assert_eq!(parsed.document.unwrap().value, json!({"1": "b"}));
}

#[test]
fn duplicate_key_reports_are_capped() {
    let text = "k: 1\n".repeat(1000);
    let parsed = parse(&text);
    assert_eq!(parsed.diagnostics.len(), 101);
    let last = parsed.diagnostics.last().unwrap();
    assert_eq!(last.code, "parse.too_many_diagnostics");
    assert_eq!(
        last.message,
        "899 more problems were found but not reported"
    );
}

fn depth_error(text: &str, limits: &Limits) -> Diagnostic {
    let parsed = yaml::read(text.to_owned(), limits);
    assert!(parsed.document.is_none());
    only(&parsed).clone()
}

#[test]
fn deep_flow_nesting_is_refused_without_recursion() {
    let text = "[".repeat(100_000) + &"]".repeat(100_000);
    let d = depth_error(&text, &Limits::default());
    assert_eq!(d.code, "parse.depth");
    assert_eq!(
        d.message,
        "the document is nested more than 128 levels deep"
    );
    // saphyr's scanner stops at 255 open flow collections before the reader sees level 129.
    assert_eq!(line_col(&d), (1, 256));
    let text = "{a: ".repeat(100_000);
    assert_eq!(depth_error(&text, &Limits::default()).code, "parse.depth");
    let limits = Limits {
        max_depth: 1_000,
        ..Limits::default()
    };
    let d = depth_error(&"[".repeat(300), &limits);
    assert_eq!(
        d.message, "the document is nested more than 255 levels deep",
        "saphyr's own cap"
    );
}

#[test]
fn deep_block_nesting_is_refused_without_recursion() {
    let seqs = "- ".repeat(100_000) + "x\n";
    assert_eq!(line_col(&depth_error(&seqs, &Limits::default())), (1, 257));
    let maps = "? ".repeat(100_000) + "x\n";
    assert_eq!(depth_error(&maps, &Limits::default()).code, "parse.depth");
    // Indented block mappings, one level per line.
    let mut text = String::new();
    for level in 0..3_000 {
        text.push_str(&" ".repeat(level));
        text.push_str("k:\n");
    }
    let d = depth_error(&text, &Limits::default());
    assert_eq!((d.code.as_str(), line_col(&d)), ("parse.depth", (129, 129)));
    assert_eq!(d.location.pointer, format!("{}", "/k".repeat(128)));
}

#[test]
fn a_higher_depth_limit_reads_deep_documents() {
    let limits = Limits {
        max_depth: 2_000,
        ..Limits::default()
    };
    let text = "- ".repeat(1_999) + "x\n";
    let parsed = yaml::read(text, &limits);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let mut value = &parsed.document.unwrap().value;
    for _ in 0..1_999 {
        value = &value[0];
    }
    assert_eq!(value, &json!("x"));
}

#[test]
fn aliases_count_towards_depth() {
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(
        yaml::read("a: &a [[1]]\nb: *a\n".into(), &limits)
            .diagnostics
            .is_empty()
    );
    let d = depth_error("a: &a [[1]]\nb: [*a]\n", &limits);
    assert_eq!((d.code.as_str(), line_col(&d)), ("parse.depth", (2, 5)));
}

#[test]
fn tabs() {
    let d = only(&parse("a:\n\tb: 1\n")).clone();
    assert_eq!(d.code, "parse.syntax");
    assert_eq!(
        d.message,
        "invalid YAML: tabs disallowed within this context (block indentation)"
    );
    assert_eq!(line_col(&d), (2, 2));
    // Tabs inside quoted text, flow collections and after a space are fine.
    let d = doc("a: \"x\ty\"\nb: [1,\t2]\nc: \tz\n");
    assert_eq!(d.value, json!({"a": "x\ty", "b": [1, 2], "c": "z"}));
}

#[test]
fn syntax_errors_say_where() {
    let parsed = parse("name: café\nbad: [1, 2\n");
    assert!(parsed.document.is_none());
    let d = only(&parsed);
    assert_eq!(d.code, "parse.syntax");
    assert_eq!(
        d.message,
        "invalid YAML: while parsing a flow sequence, expected ',' or ']'"
    );
    assert_eq!(line_col(d), (3, 1));
    let parsed = parse("a: é\n  b: 2\n");
    let d = only(&parsed);
    assert_eq!(
        d.message,
        "invalid YAML: mapping values are not allowed in this context"
    );
    assert_eq!(line_col(d), (2, 4));
    assert_eq!(d.location.span.unwrap().start, 9);
}

#[test]
fn only_the_first_document_is_read() {
    let parsed = parse("a: 1\n---\nb: [unclosed\n");
    assert_eq!(parsed.document.as_ref().unwrap().value, json!({"a": 1}));
    let d = only(&parsed);
    assert_eq!(
        (d.code.as_str(), d.severity),
        ("yaml.multi_document", Severity::Warning)
    );
    assert_eq!(line_col(d), (2, 1));
    assert!(parse("---\na: 1\n...\n").diagnostics.is_empty());
    let parsed = parse("a: 1\n...\n]]\n");
    assert_eq!(only(&parsed).code, "parse.syntax");
    assert_eq!(line_col(only(&parsed)), (3, 1));
}

#[test]
fn empty_streams_are_null() {
    assert_eq!(doc("# only a comment\n").value, json!(null));
    assert_eq!(doc("---\n").value, json!(null));
}

#[test]
fn non_finite_numbers_stay_strings_with_a_warning() {
    let parsed = parse("x: 1\ny: -.inf\nz: .nan\n");
    assert_eq!(
        parsed.document.unwrap().value,
        json!({"x": 1, "y": "-.inf", "z": ".nan"})
    );
    let d = &parsed.diagnostics[0];
    assert_eq!(
        (d.code.as_str(), d.severity),
        ("yaml.non_finite", Severity::Warning)
    );
    assert_eq!((d.location.pointer.as_str(), line_col(d)), ("/y", (2, 4)));
    assert_eq!(
        d.message,
        "`-.inf` has no JSON equivalent (JSON numbers are finite); kept as the string \"-.inf\""
    );
    assert_eq!(parsed.diagnostics.len(), 2);
}

#[test]
fn tags_are_honoured_or_ignored() {
    let parsed = parse(
        "a: !!str 1\nb: !Ref name\nc: !!int \"12\"\nd: !!binary aGk=\ne: ! true\nf: !!bool maybe\n\
         g: !!map {x: 1}\n",
    );
    let d = parsed.document.as_ref().unwrap();
    assert_eq!(
        d.value,
        json!({"a": "1", "b": "name", "c": 12, "d": "aGk=", "e": "true", "f": "maybe", "g": {"x": 1}})
    );
    let w = only(&parsed);
    assert_eq!(
        (w.code.as_str(), w.location.pointer.as_str()),
        ("yaml.tag", "/f")
    );
    assert_eq!(
        w.message,
        "`maybe` is not a valid `!!bool` value; kept as a string"
    );
}

#[test]
fn nested_collection_keys_stay_bounded() {
    // Each level used to escape the inner key's JSON again: 24 levels made 16 MB of key, the
    // fuzzer's 199-byte input gigabytes.
    for depth in [24, 60] {
        let text = format!("{}{}\n", "{".repeat(depth), "}".repeat(depth));
        let parsed = parse(&text);
        let value = &parsed.document.as_ref().unwrap().value;
        let size = value.to_string().len();
        assert!(size <= 64 * text.len(), "{depth} levels: {size} bytes");
    }
    let fuzz = format!(
        "{}{}{}\n\n",
        "{".repeat(110),
        "}".repeat(85),
        "{".repeat(14)
    );
    let parsed = parse(&fuzz);
    let total: usize = parsed.diagnostics.iter().map(|d| d.message.len()).sum();
    assert!(total <= 1 << 20, "diagnostic text: {total} bytes");
}

#[test]
fn collection_keys_become_their_json_text() {
    let parsed = parse("? [a, b]\n: c\n");
    assert_eq!(
        parsed.document.as_ref().unwrap().value,
        json!({"[\"a\",\"b\"]": "c"})
    );
    let d = only(&parsed);
    assert_eq!((d.code.as_str(), line_col(d)), ("yaml.complex_key", (1, 3)));
    let parsed = parse("{[1, 2]: x, y: 1}");
    assert_eq!(only(&parsed).code, "yaml.complex_key");
    assert_eq!(at(parsed.document.as_ref().unwrap(), "/y"), (1, 16, "1"));
}

#[test]
fn quoted_and_escaped_keys_are_located() {
    let text =
        "\"a\\\"b\": 1\n'it''s': 2\n\"tab\\tkey\": 3\nkey with spaces: 4\n'q\"': 5\n\"é/x\": 6\n";
    let d = doc(text);
    assert_eq!(
        d.value,
        json!({"a\"b": 1, "it's": 2, "tab\tkey": 3, "key with spaces": 4, "q\"": 5, "é/x": 6})
    );
    assert_eq!(at(&d, "/a\"b"), (1, 9, "1"));
    assert_eq!(at(&d, "/it's"), (2, 10, "2"));
    assert_eq!(at(&d, "/tab\tkey"), (3, 13, "3"));
    assert_eq!(at(&d, "/key with spaces"), (4, 18, "4"));
    assert_eq!(at(&d, "/q\""), (5, 7, "5"));
    assert_eq!(at(&d, "/é~1x"), (6, 8, "6"));
}
