//! One fixture per repair rule (`tests/fixtures/rules.jsonl`): the rule fires, the value is
//! the expected one, and its safety is enforced — a safe rule applies by default, an unsafe
//! one only when allowed (otherwise an error names it and no value comes back).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_core::Applicability;
use rectify_repair::{RepairOptions, RepairRule, repair};
use serde_json::Value;

struct Fixture {
    rule: RepairRule,
    input: String,
    schema: Option<Value>,
    expected: Value,
}

fn fixtures() -> Vec<Fixture> {
    include_str!("fixtures/rules.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let code = v["rule"].as_str().unwrap();
            Fixture {
                rule: RepairRule::from_code(code).unwrap_or_else(|| panic!("unknown rule {code}")),
                input: v["input"].as_str().unwrap().to_owned(),
                schema: v.get("schema").cloned(),
                expected: v["expected"].clone(),
            }
        })
        .collect()
}

fn options(f: &Fixture) -> RepairOptions {
    let options = RepairOptions::default();
    match &f.schema {
        Some(s) => options.with_schema(s.clone()),
        None => options,
    }
}

#[test]
fn every_rule_fires_on_its_fixture_with_the_expected_value() {
    for f in fixtures() {
        let out = repair(&f.input, &options(&f).with_unsafe(true));
        let code = f.rule.code();
        assert!(
            out.repairs.iter().any(|r| r.code == code),
            "{code}: rule did not fire; repairs {:?}",
            out.repairs.iter().map(|r| &r.code).collect::<Vec<_>>()
        );
        assert_eq!(
            out.value.as_ref(),
            Some(&f.expected),
            "{code}: {:?}",
            out.diagnostics
        );
        assert!(out.is_valid(), "{code}: {:?}", out.diagnostics);
    }
}

/// Unsafe coercions tried only with permission: without it the plain schema mismatch
/// stands, which tells a model more than a refusal of the repair would.
const TRIED_ONLY_WITH_PERMISSION: &[&str] = &["coerce.json_as_string", "coerce.missing_as_empty"];

#[test]
fn unsafe_rules_need_permission_and_safe_rules_do_not() {
    for f in fixtures() {
        let out = repair(&f.input, &options(&f));
        let code = f.rule.code();
        let needs_unsafe = out
            .repairs
            .iter()
            .any(|r| r.applicability == Applicability::Unsafe);
        if TRIED_ONLY_WITH_PERMISSION.contains(&code) {
            assert!(out.repairs.iter().all(|r| r.code != code), "{code}");
            assert!(
                out.diagnostics
                    .iter()
                    .any(|d| d.code == "repair.schema_mismatch"),
                "{code}: {:?}",
                out.diagnostics
            );
        } else if f.rule.applicability() == Applicability::Unsafe {
            assert!(
                out.value.is_none(),
                "{code}: unsafe rule applied without permission"
            );
            assert!(
                out.diagnostics
                    .iter()
                    .any(|d| d.code == "repair.unsafe" && d.message.contains(code)),
                "{code}: {:?}",
                out.diagnostics
            );
        } else if !needs_unsafe {
            assert_eq!(out.value.as_ref(), Some(&f.expected), "{code}");
        }
    }
}

#[test]
fn strict_mode_turns_every_needed_repair_into_an_error() {
    for f in fixtures() {
        let out = repair(&f.input, &options(&f).with_strict(true));
        if TRIED_ONLY_WITH_PERMISSION.contains(&f.rule.code()) {
            assert!(!out.is_valid(), "{}", f.rule.code());
            continue;
        }
        assert!(out.value.is_none(), "{}", f.rule.code());
        assert!(out.diagnostics.iter().any(|d| d.code == "repair.strict"));
    }
}

#[test]
fn every_rule_but_invalid_utf8_has_a_fixture() {
    let covered: Vec<RepairRule> = fixtures().iter().map(|f| f.rule).collect();
    let missing: Vec<&str> = RepairRule::ALL
        .iter()
        .filter(|r| !covered.contains(r))
        .filter(|r| r.code() != "text.invalid_utf8")
        .map(|r| r.code())
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
}

#[test]
fn repairs_say_where_they_happened() {
    let out = repair("{\n  \"a\": [1, 2,],\n}", &RepairOptions::default());
    let comma = out
        .repairs
        .iter()
        .find(|r| r.code == "json.trailing_comma")
        .unwrap();
    assert_eq!(comma.location.pointer, "/a");
    let span = comma.location.span.unwrap();
    assert_eq!((span.line, span.column), (2, 13));
    assert_eq!(comma.before, ",");
}

#[test]
fn ambiguous_enum_is_a_diagnostic_not_a_guess() {
    let schema = serde_json::json!({"properties": {"s": {"enum": ["in-progress", "in_progress"]}}});
    let out = repair(
        "{\"s\": \"In Progress\"}",
        &RepairOptions::default().with_schema(schema),
    );
    assert_eq!(out.value.unwrap()["s"], "In Progress");
    assert!(out.diagnostics.iter().any(|d| d.code == "repair.ambiguous"));
}

#[test]
fn schema_picks_the_fitting_candidate() {
    let schema = serde_json::json!({"type": "object", "required": ["id"]});
    let text = "```json\n{\"name\": \"x\"}\n```\nor\n```json\n{\"id\": 3}\n```";
    let out = repair(
        text,
        &RepairOptions::default()
            .with_schema(schema.clone())
            .with_unsafe(true),
    );
    assert_eq!(out.value.unwrap(), serde_json::json!({"id": 3}));
    assert_eq!(out.candidates.len(), 2);
    let text = "{\"id\": 1} {\"id\": 2}";
    let out = repair(
        text,
        &RepairOptions::default()
            .with_schema(schema)
            .with_unsafe(true),
    );
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.code == "repair.ambiguous_candidates")
    );
}

#[test]
fn a_required_null_is_reported_not_dropped() {
    let schema = serde_json::json!({"type": "object",
        "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let out = repair(
        r#"{"name": null}"#,
        &RepairOptions::default()
            .with_schema(schema)
            .with_unsafe(true),
    );
    assert!(out.repairs.iter().all(|r| r.code != "coerce.drop_null"));
    assert!(!out.is_valid());
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.code == "repair.schema_mismatch")
    );
}

#[test]
fn every_rule_is_documented_with_its_safety() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules");
    for rule in RepairRule::ALL {
        let path = dir.join(format!("{}.md", rule.code()));
        let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let safety = match rule.applicability() {
            Applicability::Safe => "**Safety:** safe",
            Applicability::Unsafe => "**Safety:** unsafe",
        };
        assert!(
            doc.contains(safety),
            "{}: safety not documented",
            rule.code()
        );
        assert!(doc.contains("## Why"), "{}", rule.code());
    }
}
