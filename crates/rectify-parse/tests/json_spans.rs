//! Spans of JSON documents: for generated documents (nested arrays and objects, long arrays,
//! keys with escapes and duplicates), every value's pointer finds a span whose text reads
//! back as that value, and line and column agree with a count from the start of the text.

#![allow(clippy::expect_used)]

use proptest::prelude::*;
use rectify_core::Format;
use rectify_parse::{Limits, read};
use serde_json::{Map, Value};

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(Value::from),
        "[a-z\"\\\\é ]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 200, 40, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            proptest::collection::vec(("[a-c/~\"é]{0,3}", inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Every (pointer, value) of `v`.
fn pointers(v: &Value, pointer: &str, out: &mut Vec<(String, Value)>) {
    out.push((pointer.to_owned(), v.clone()));
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, &format!("{pointer}/{i}"), out);
            }
        }
        Value::Object(members) => {
            for (k, item) in members {
                let key = k.replace('~', "~0").replace('/', "~1");
                pointers(item, &format!("{pointer}/{key}"), out);
            }
        }
        _ => {}
    }
}

proptest! {
    #[test]
    fn every_pointer_finds_its_value(v in value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).expect("json")
        } else {
            serde_json::to_string(&v).expect("json")
        };
        let doc = read(text.clone(), Format::Json, &Limits::default())
            .document
            .expect("a document");
        let mut all = Vec::new();
        pointers(&v, "", &mut all);
        for (pointer, expected) in all {
            let (start, end) = doc.spans.find(&doc.source, &pointer).expect("a span");
            let found: Value = serde_json::from_str(&text[start..end]).expect("the span reads");
            prop_assert_eq!(&found, &expected, "at {}", pointer);
            let span = doc.span(start, end);
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            prop_assert_eq!((span.line, span.column), (line, column), "at {}", pointer);
        }
        prop_assert!(doc.spans.find(&doc.source, "/no such key/0").is_none());
    }
}

/// Duplicate keys: the pointer finds the member that was kept (the last one).
#[test]
fn a_duplicate_key_finds_the_last_member() {
    let text = r#"{"a": 1, "b": [1, 2], "a": {"c": 3}}"#.to_owned();
    let doc = read(text.clone(), Format::Json, &Limits::default())
        .document
        .expect("a document");
    let (start, end) = doc.spans.find(&doc.source, "/a/c").expect("a span");
    assert_eq!(&text[start..end], "3");
    let (start, end) = doc.spans.find(&doc.source, "/b/1").expect("a span");
    assert_eq!(&text[start..end], "2");
    assert!(doc.spans.find(&doc.source, "/b/2").is_none());
    assert!(doc.spans.find(&doc.source, "/b/x").is_none());
}
