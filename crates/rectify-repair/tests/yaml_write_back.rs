//! A repaired YAML document is written back as YAML ([`Repaired::to_yaml`]): generated
//! documents with repairable faults (plain values holding `: `, tabs used for indentation,
//! numbers written as strings where the schema wants integers) are repaired, and the text
//! written back reads as YAML to the repaired value, line for line with the original.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_core::Format;
use rectify_parse::{Limits, read};
use rectify_repair::{RepairOptions, Repaired, repair};
use serde_json::{Value, json};

fn yaml_value(text: &str) -> Value {
    let parsed = read(text.to_owned(), Format::Yaml, &Limits::default());
    assert!(
        !parsed
            .diagnostics
            .iter()
            .any(rectify_core::Diagnostic::is_error),
        "not valid YAML: {text:?}: {:?}",
        parsed.diagnostics
    );
    parsed.document.unwrap().value
}

fn as_yaml(text: &str, schema: Value) -> Repaired {
    repair(
        text,
        &RepairOptions::default()
            .with_format(Some(Format::Yaml))
            .with_schema(schema),
    )
}

#[test]
fn a_fenced_answer_is_written_back_without_its_fence_and_prose() {
    let out = repair(
        "Here it is:\n```yaml\ntitle: Step 1: setup\n```\n",
        &RepairOptions::default(),
    );
    assert_eq!(out.to_yaml().unwrap(), "title: \"Step 1: setup\"\n");
}

#[test]
fn a_json_payload_read_for_yaml_is_written_back_as_block_yaml() {
    let out = as_yaml(
        "{\"title\": \"a\", \"tags\": [\"x\", \"z\"",
        json!({"type": "object"}),
    );
    assert_eq!(out.to_yaml().unwrap(), "title: a\ntags:\n  - x\n  - z\n");
}

#[test]
fn a_value_that_changed_shape_is_written_in_block_style() {
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
    let out = as_yaml("title: Step 1: go\ntags: urgent\n", schema);
    let text = out.to_yaml().unwrap();
    assert_eq!(text, "title: \"Step 1: go\"\ntags:\n  - urgent\n");
    assert_eq!(Some(yaml_value(&text)), out.value);
}

/// A generated document: its value, a schema that wants its integers, and its text with
/// faults.
#[derive(Debug, Clone)]
enum Node {
    Word(String),
    /// Written plain, holding `: ` (`yaml.colon_in_value`).
    Colon(String),
    /// Written as a quoted string; the schema wants an integer.
    Int(i64),
    Bool(bool),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        "[a-z]{1,6}( [a-z]{1,4})?"
            .prop_filter("a word, not a keyword", |w| !matches!(
                w.as_str(),
                "null" | "true" | "false"
            ))
            .prop_map(Node::Word),
        "[a-z]{1,5}: [a-z]{1,5}".prop_map(Node::Colon),
        any::<i32>().prop_map(|n| Node::Int(i64::from(n))),
        any::<bool>().prop_map(Node::Bool),
    ];
    leaf.prop_recursive(3, 20, 4, |inner| {
        prop_oneof![
            prop::collection::vec(("k[a-z]{0,5}", inner.clone()), 1..4).prop_map(|kv| {
                let mut seen = std::collections::HashSet::new();
                Node::Map(
                    kv.into_iter()
                        .filter(|(k, _)| seen.insert(k.clone()))
                        .collect(),
                )
            }),
            prop::collection::vec(inner, 1..4).prop_map(Node::List),
        ]
    })
}

impl Node {
    fn value(&self) -> Value {
        match self {
            Node::Word(s) | Node::Colon(s) => Value::String(s.clone()),
            Node::Int(n) => json!(n),
            Node::Bool(b) => json!(b),
            Node::Map(kv) => {
                Value::Object(kv.iter().map(|(k, v)| (k.clone(), v.value())).collect())
            }
            Node::List(items) => Value::Array(items.iter().map(Node::value).collect()),
        }
    }

    /// Integers where the document has them, only under mappings (no schema for items).
    fn schema(&self) -> Value {
        match self {
            Node::Int(_) => json!({"type": "integer"}),
            Node::Map(kv) => json!({
                "type": "object",
                "properties": kv.iter().map(|(k, v)| (k.clone(), v.schema())).collect::<serde_json::Map<_, _>>()
            }),
            _ => json!({}),
        }
    }

    /// The scalar as written: faults only where a mapping member's value is written (and
    /// integers as strings only where the schema wants them: not under a sequence).
    fn scalar(&self, member: bool, in_list: bool) -> String {
        match self {
            Node::Word(s) => s.clone(),
            Node::Colon(s) if member => s.clone(),
            Node::Colon(s) => format!("\"{s}\""),
            Node::Int(n) if member && !in_list => format!("\"{n}\""),
            Node::Int(n) => n.to_string(),
            Node::Bool(b) => b.to_string(),
            Node::Map(_) | Node::List(_) => unreachable!(),
        }
    }

    /// Block YAML at `indent`, nested lines indented with tabs when `tabs`.
    fn write(&self, indent: usize, tabs: bool, in_list: bool, out: &mut String) {
        let pad = |out: &mut String| {
            if tabs && indent > 0 {
                out.push_str(&"\t".repeat(indent / 2));
            } else {
                out.push_str(&" ".repeat(indent));
            }
        };
        match self {
            Node::Map(kv) => {
                for (k, v) in kv {
                    pad(out);
                    out.push_str(k);
                    out.push(':');
                    v.child(indent, tabs, true, in_list, out);
                }
            }
            Node::List(items) => {
                for v in items {
                    pad(out);
                    out.push('-');
                    v.child(indent, tabs, false, true, out);
                }
            }
            leaf => {
                pad(out);
                out.push_str(&leaf.scalar(false, in_list));
                out.push('\n');
            }
        }
    }

    fn child(&self, indent: usize, tabs: bool, member: bool, in_list: bool, out: &mut String) {
        match self {
            Node::Map(_) | Node::List(_) => {
                out.push('\n');
                self.write(indent + 2, tabs, in_list, out);
            }
            leaf => {
                out.push(' ');
                out.push_str(&leaf.scalar(member, in_list));
                out.push('\n');
            }
        }
    }
}

fn document() -> impl Strategy<Value = Node> {
    prop::collection::vec(("k[a-z]{0,5}", node()), 1..5).prop_map(|kv| {
        let mut seen = std::collections::HashSet::new();
        Node::Map(
            kv.into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn repaired_yaml_is_written_back_as_yaml_that_reads_to_the_repaired_value(
        doc in document(),
        tabs in any::<bool>(),
    ) {
        let mut text = String::new();
        doc.write(0, tabs, false, &mut text);
        let out = as_yaml(&text, doc.schema());
        prop_assume!(!out.repairs.is_empty());
        prop_assert_eq!(out.value.as_ref(), Some(&doc.value()), "{:?}", text);
        let written = out.to_yaml().unwrap();
        let parsed = read(written.clone(), Format::Yaml, &Limits::default());
        prop_assert!(
            !parsed.diagnostics.iter().any(rectify_core::Diagnostic::is_error),
            "{:?} → {:?}: {:?}", text, written, parsed.diagnostics
        );
        prop_assert_eq!(parsed.document.map(|d| d.value), out.value, "{:?} → {:?}", text, written);
        prop_assert_eq!(
            written.lines().count(),
            text.lines().count(),
            "a minimal edit: {:?} → {:?}", text, written
        );
    }
}
