//! Property tests: no value, rules file or schema makes a check panic; invalid content is
//! always data.

use proptest::prelude::*;
use rectify_check::{Checker, CompiledSchema, ConfigError, RuleSet};
use rectify_core::Document;
use serde_json::{Value, json};

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z0-9 $.*\\[\\]:{}^#-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}|id|tasks|rules|each|in|unique", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn checker() -> Result<Checker, ConfigError> {
    let schema = CompiledSchema::compile(&json!({
        "type": "object",
        "required": ["tasks"],
        "properties": {"tasks": {"type": "array", "uniqueItems": true,
            "items": {"type": "object", "required": ["id"], "additionalProperties": false,
                "properties": {"id": {"type": "string", "pattern": "^T"}, "files": {"type": "array"}}}}}
    }))?;
    let rules = RuleSet::from_value(
        &json!({"rules": [
            {"id": "ref", "each": "$..id", "in": "$.tasks[*].id", "message": "{value} {allowed} {path}"},
            {"id": "any", "each": "$.tasks[*]", "any_nonempty": ["$.files", "$.x"]},
            {"id": "uniq", "unique": "$..*"},
            {"id": "req", "each": "$..tasks[*]", "required_nonempty": ["$.id", "$['a b'][0]"]},
            {"id": "heading", "markdown": {"heading": "^#", "min_count": 1, "max_count": 3}},
            {"id": "section", "markdown": {"section": "Goal", "nonempty": true}},
            {"id": "len", "min_length": 3, "max_length": 40}
        ]}),
        None,
    )?;
    Checker::builder().schema(schema).rules(rules).build()
}

proptest! {
    #[test]
    fn checks_never_panic(value in any_json()) {
        let checker = checker().unwrap();
        let diagnostics = checker.check(&Document::from_value(value.clone()));
        for d in &diagnostics {
            prop_assert!(d.code.starts_with("schema.") || d.code.starts_with("rule."), "{}", d.code);
            prop_assert!(!d.message.is_empty());
        }
        prop_assert_eq!(checker.check_value(&value).len(), diagnostics.len());
    }

    #[test]
    fn rules_files_never_panic(value in any_json()) {
        let _ = RuleSet::from_value(&value, None);
        let _ = RuleSet::from_value(&json!({"rules": [value]}), None);
    }

    #[test]
    fn schemas_never_panic(schema in any_json(), instance in any_json()) {
        if let Ok(compiled) = CompiledSchema::compile(&schema) {
            let _ = compiled.check_value(&instance);
        }
    }
}
