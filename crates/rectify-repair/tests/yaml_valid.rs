//! Valid YAML is never repaired: every valid document comes back as the strict reader
//! (`rectify_parse::read`) reads it, with no repair recorded — tabs inside block scalars
//! and quoted strings, documents that start with `{` or `[`, tags and anchors included.
//!
//! The suite is a hand-written set of documents of the kinds that were changed before
//! (each checked to be valid by the reader itself) and generated documents: random values
//! written as YAML in block and flow style, with quoted strings holding tabs and `: `, and
//! block scalars holding tabs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_core::Format;
use rectify_parse::{Limits, read};
use rectify_repair::{RepairOptions, repair};
use serde_json::Value;

/// Documents of the kinds the pre-passes used to rewrite.
const SUITE: &[&str] = &[
    "a: 1\n",
    "text: |\n  line one\n  \tindented with a tab\n  end\n",
    "text: >-\n  folded\n  \ttab inside\nnext: 2\n",
    "- |\n  a\n  \tb\n- x\n",
    "key: \"a\ttab inside quotes\"\n",
    "key: 'single\tquoted'\n",
    "key: \"a: b: c\"\n",
    "key: 'x: y'\n",
    "{a: 1, b: [1, 2]}\n",
    "[a: 1]\n",
    "[a: 1, b]\n",
    "{\"a\": 1}\n",
    "[1, 2, 3]\n",
    "{a: !!str 5}\n",
    "[!!str 1, !!int \"2\"]\n",
    "a: !!str 5\nb: !!float 1\n",
    "tagged: !custom value\n",
    "anchor: &x 1\nalias: *x\n",
    "# comment\na: 1 # trailing\n",
    "url: http://example.com\n",
    "time: 12:30\n",
    "msg: 'it''s: fine'\n",
    "empty:\nnull_value: ~\n",
    "nested:\n  - a: 1\n    b: |\n      keep\t this\n  - c: 2\n",
    "---\na: 1\n...\n",
    "multi: \"line one\n  line two\"\n",
    "key: |+\n  trailing\n\n",
    "{a: [1, {b: c}], d: 'e'}",
    "- [a, b]\n- {c: d}\n",
    "s: \"\\t escaped tab\"\n",
];

fn strict_value(doc: &str) -> Value {
    let parsed = read(doc.to_owned(), Format::Yaml, &Limits::default());
    assert!(
        !parsed
            .diagnostics
            .iter()
            .any(rectify_core::Diagnostic::is_error),
        "not valid YAML: {doc:?}: {:?}",
        parsed.diagnostics
    );
    parsed.document.unwrap().value
}

fn assert_unchanged(doc: &str) {
    let expected = strict_value(doc);
    let out = repair(
        doc,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_format(Some(Format::Yaml)),
    );
    assert!(out.repairs.is_empty(), "{doc:?}: {:?}", out.repairs);
    assert_eq!(out.value, Some(expected), "{doc:?}");
    let fenced = format!("Here it is:\n```yaml\n{doc}\n```\n");
    let out = repair(&fenced, &RepairOptions::default());
    let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(codes, vec!["extract.code_fence"], "{fenced:?}");
    // The fence's body ends with the line break before the closing fence.
    let body = strict_value(&format!("{doc}\n"));
    assert_eq!(out.value, Some(body), "{fenced:?}");
}

#[test]
fn the_suite_comes_back_unchanged() {
    for doc in SUITE {
        assert_unchanged(doc);
    }
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z \\t:#-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 1..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A YAML scalar for `v`: strings double-quoted with raw tabs kept, tagged `!!str`
/// sometimes.
fn scalar(v: &Value, tag: bool) -> String {
    match v {
        Value::String(s) => {
            let quoted = format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
            if tag {
                format!("!!str {quoted}")
            } else {
                quoted
            }
        }
        other => other.to_string(),
    }
}

/// `v` as block YAML at `indent`; strings with a tab become block scalars when `block`.
fn emit(v: &Value, indent: usize, block: bool, tag: bool, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Array(items) => {
            for item in items {
                out.push_str(&pad);
                out.push('-');
                child(item, indent, block, tag, out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                out.push_str(&pad);
                out.push_str(k);
                out.push(':');
                child(item, indent, block, tag, out);
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&scalar(other, tag));
            out.push('\n');
        }
    }
}

fn child(v: &Value, indent: usize, block: bool, tag: bool, out: &mut String) {
    match v {
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            emit(v, indent + 2, block, tag, out);
        }
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            emit(v, indent + 2, block, tag, out);
        }
        Value::String(s) if block && s.contains('\t') && !s.trim().is_empty() => {
            // A literal block scalar whose content keeps its tabs.
            let pad = " ".repeat(indent + 2);
            out.push_str(" |-\n");
            out.push_str(&pad);
            out.push('x');
            out.push_str(s);
            out.push('x');
            out.push('\n');
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other, tag));
            out.push('\n');
        }
    }
}

/// `v` in flow style (JSON-like with plain keys), starting with `{` or `[`.
fn flow(v: &Value, tag: bool) -> String {
    match v {
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(|i| flow(i, tag)).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, i)| format!("{k}: {}", flow(i, tag)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        other => scalar(other, tag),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn valid_yaml_comes_back_as_the_reader_reads_it(
        v in value(),
        style in 0u8..3,
        tag in any::<bool>(),
    ) {
        let doc = match (&v, style) {
            (Value::Array(_) | Value::Object(_), 0) => flow(&v, tag),
            (Value::Array(_) | Value::Object(_), s) => {
                let mut out = String::new();
                emit(&v, 0, s == 2, tag, &mut out);
                out
            }
            _ => format!("value: {}\n", scalar(&v, tag)),
        };
        let parsed = read(doc.clone(), Format::Yaml, &Limits::default());
        prop_assume!(!parsed.diagnostics.iter().any(rectify_core::Diagnostic::is_error));
        let expected = parsed.document.unwrap().value;
        let out = repair(
            &doc,
            &RepairOptions::default().with_unsafe(true).with_format(Some(Format::Yaml)),
        );
        prop_assert!(out.repairs.is_empty(), "{:?}: {:?}", doc, out.repairs);
        prop_assert_eq!(out.value, Some(expected), "{:?}", doc);
    }
}
