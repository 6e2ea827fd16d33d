//! Coercion terminates on every schema and never wraps a value that already fits: random
//! schemas (recursive `$ref`s to the root and to definitions, `anyOf`, arrays of arrays)
//! against random values.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::{RepairOptions, repair};
use serde_json::{Value, json};

fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"enum": ["a", "b"]})),
        Just(json!({"$ref": "#"})),
        Just(json!({"$ref": "#/definitions/node"})),
        Just(json!({})),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|i| json!({"type": "array", "items": i})),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| json!({"type": "object", "properties": {"a": a, "b": b}})),
            prop::collection::vec(inner, 1..3).prop_map(|bs| json!({"anyOf": bs})),
        ]
    })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z0-9]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((prop_oneof![Just("a"), Just("b")], inner), 0..3).prop_map(
                |kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn coercion_terminates_and_wraps_at_most_once_per_level(root in schema(), node in schema(), v in value()) {
        let mut schema = root;
        if let Value::Object(map) = &mut schema {
            map.insert("definitions".into(), json!({"node": node}));
        }
        let out = repair(&v.to_string(), &RepairOptions::default().with_unsafe(true).with_schema(schema.clone()));
        let got = out.value.unwrap();
        // Each level of the value is wrapped at most once.
        prop_assert!(depth(&got) <= 2 * depth(&v) + 1, "{} with {} gave {}", v, schema, got);
    }
}

#[test]
fn a_recursive_array_schema_does_not_wrap_without_end() {
    let schema = json!({"type": "array", "items": {"$ref": "#"}});
    let out = repair("5", &RepairOptions::default().with_schema(schema));
    assert_eq!(out.value, Some(json!(5)));
    let tree = json!({
        "definitions": {"node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}},
        "$ref": "#/definitions/node"
    });
    let text = r#"{"children": [{"children": []}, {"children": {"children": []}}]}"#;
    let out = repair(text, &RepairOptions::default().with_schema(tree));
    assert_eq!(
        out.value,
        Some(json!({"children": [{"children": []}, {"children": [{"children": []}]}]}))
    );
}

/// Found in review: with every union branch tried for the cheapest coercion, nested
/// `anyOf`s of arrays cost two trials a level, so a value 16 deep took seconds and past the
/// step budget came back unrepaired. A branch whose coercion is safe is taken at once.
#[test]
fn nested_unions_are_coerced_in_one_pass() {
    let schema = json!({
        "$defs": {"n": {"anyOf": [
            {"type": "array", "items": {"$ref": "#/$defs/n"}},
            {"type": "array", "items": {"$ref": "#/$defs/n"}},
            {"type": "integer"}
        ]}},
        "$ref": "#/$defs/n"
    });
    let depth = 40;
    let text = format!("{}\"1\"{}", "[".repeat(depth), "]".repeat(depth));
    let out = repair(
        &text,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_schema(schema),
    );
    assert!(out.is_valid(), "{:?}", out.diagnostics);
    let mut v = out.value.unwrap();
    for _ in 0..depth {
        v = v[0].take();
    }
    assert_eq!(v, json!(1));
    assert_eq!(out.repairs.len(), 1, "{:?}", out.repairs);
}
