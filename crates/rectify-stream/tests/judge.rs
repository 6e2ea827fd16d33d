//! Prefix verdicts: what is stopped early, and what is not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use rectify_stream::{PrefixChecker, PrefixOptions, StreamJudge, Verdict};
use serde_json::{Value, json};

fn schema() -> Value {
    json!({
        "type": "object",
        "required": ["status", "items"],
        "properties": {
            "status": {"enum": ["todo", "in_progress", "done"]},
            "count": {"type": "integer", "maximum": 10},
            "title": {"type": "string", "maxLength": 5},
            "owner": {"$ref": "#/$defs/person"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/person"}}
        },
        "$defs": {
            "person": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}
            }
        }
    })
}

/// Feeds `text` one character at a time; the pointer of the first doomed error and how many
/// bytes had arrived then.
fn judge_with(schema: &Value, options: PrefixOptions, text: &str) -> Option<(String, usize)> {
    let checker = Arc::new(PrefixChecker::new(schema, options));
    let mut judge = StreamJudge::new(checker);
    let mut buf = [0u8; 4];
    for (at, c) in text.char_indices() {
        if let Verdict::Doomed(why) = judge.push(c.encode_utf8(&mut buf)).unwrap() {
            return Some((why[0].location.pointer.clone(), at + c.len_utf8()));
        }
    }
    None
}

fn judge(text: &str) -> Option<(String, usize)> {
    judge_with(&schema(), PrefixOptions::default(), text)
}

#[test]
fn a_wrong_enum_value_stops_the_answer_as_soon_as_it_is_complete() {
    let text = r#"{"status": "lost", "count": 3, "items": []}"#;
    let (pointer, at) = judge(text).unwrap();
    assert_eq!(pointer, "/status");
    // Judged at the comma: only then is `"lost"` known to be the whole value.
    assert_eq!(at, r#"{"status": "lost","#.len());
}

#[test]
fn safe_coercions_are_applied_before_judging() {
    assert_eq!(
        judge(r#"{"status": "In Progress", "count": "3", "items": []}"#),
        None
    );
    assert_eq!(
        judge(r#"{"status": "DONE", "count": 3.0, "items": []}"#),
        None
    );
    let (pointer, _) = judge(r#"{"count": "three", "status": "done"}"#).unwrap();
    assert_eq!(pointer, "/count");
    let (pointer, _) = judge(r#"{"count": 11}"#).unwrap();
    assert_eq!(pointer, "/count");
}

#[test]
fn a_nested_object_missing_a_required_member_is_doomed_when_it_closes() {
    let text = r#"{"owner": {"age": 3}, "status": "done"}"#;
    let (pointer, at) = judge(text).unwrap();
    assert_eq!(pointer, "/owner/name");
    assert_eq!(at, r#"{"owner": {"age": 3},"#.len());
    // An array item breaking its schema, through a $ref (a number for a string would be
    // coerced safely, so the item misses its name instead).
    let text = r#"{"items": [{"name": "a"}, {"age": 5}, {"name": "c"}]}"#;
    let (pointer, _) = judge(text).unwrap();
    assert_eq!(pointer, "/items/1/name");
}

#[test]
fn a_string_over_max_length_is_doomed_before_it_ends() {
    let text = r#"{"title": "far too long a title", "status": "done"}"#;
    let (pointer, at) = judge(text).unwrap();
    assert_eq!(pointer, "/title");
    assert_eq!(at, r#"{"title": "far too"#.len());
    // White space is not counted while the string goes on; once it ends, the whole string
    // is checked as the full judge checks it.
    let text = r#"{"title": "  abc      ", "status": "done", "items": []}"#;
    assert_eq!(
        judge(text).map(|d| d.1),
        Some(r#"{"title": "  abc      ","#.len())
    );
}

#[test]
fn prose_first_is_never_judged_and_a_fence_is() {
    assert_eq!(judge("Sure!\n{\"status\": \"lost\"}"), None);
    assert_eq!(
        judge("```json\n{\"status\": \"lost\"}")
            .map(|d| d.0)
            .as_deref(),
        Some("/status")
    );
}

#[test]
fn loose_json_is_left_to_the_full_judge() {
    assert_eq!(judge("{'status': 'lost'}"), None);
    assert_eq!(
        judge("{\"count\": 3, // a comment\n\"status\": \"lost\"}"),
        None
    );
}

#[test]
fn with_unsafe_repairs_members_wait_for_their_object() {
    let unsafe_ok = PrefixOptions {
        unsafe_repairs: true,
    };
    // Last wins: a repeated key may still fix it, so nothing is judged inside the root.
    let text = r#"{"status": "lost", "status": "done", "items": []}"#;
    assert_eq!(judge_with(&schema(), unsafe_ok, text), None);
    // Items of a root array are final when complete.
    let list = json!({"type": "array", "items": {"$ref": "#/$defs/p"},
                      "$defs": {"p": {"type": "object", "required": ["n"]}}});
    let (pointer, _) = judge_with(&list, unsafe_ok, r#"[{"n": 1}, {}, {"n": 2}]"#).unwrap();
    assert_eq!(pointer, "/1/n");
}

#[test]
fn roots_the_repair_may_read_as_text_are_not_judged() {
    for root in [
        json!({"type": "object", "properties": {"answer": {"enum": ["a"]}}}),
        json!({"type": "string", "maxLength": 1}),
        json!({"type": "array", "items": {"enum": ["a"]}}),
        json!({"anyOf": [{"type": "object"}]}),
    ] {
        let checker = PrefixChecker::new(&root, PrefixOptions::default());
        assert!(!checker.judges(), "{root}");
    }
}

#[test]
fn places_the_schema_leaves_open_are_not_judged() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "integer"}, {"properties": {"x": {"type": "integer"}}}]},
            "b": {"type": "object", "additionalProperties": {"type": "integer"}}
        }
    });
    let text = r#"{"b": {"z": "no"}, "a": {"x": "no"}}"#;
    // /b/z and /a/x are open; /b is judged whole when it closes.
    let (pointer, _) = judge_with(&schema, PrefixOptions::default(), text).unwrap();
    assert_eq!(pointer, "/b/z");
}

#[test]
fn a_string_that_can_no_longer_match_its_pattern_stops_the_answer_mid_string() {
    let schema = json!({
        "type": "object",
        "properties": {
            "invoice": {"type": "string", "pattern": "^INV-[0-9]{4}$"},
            "note": {"type": "string", "pattern": "[0-9]"},
            "code": {"type": "string", "pattern": "^(?=A)A+$"}
        }
    });
    let options = PrefixOptions::default();
    let text = r#"{"invoice": "INV-12x4 and a long tail that is never waited for", "note": "x"}"#;
    let (pointer, at) = judge_with(&schema, options, text).unwrap();
    assert_eq!(pointer, "/invoice");
    assert_eq!(at, r#"{"invoice": "INV-12x"#.len());
    // Through an escape, and across a chunk boundary inside it.
    let text = r#"{"invoice": "INV\u002d12\u0041"#;
    let (_, at) = judge_with(&schema, options, text).unwrap();
    assert_eq!(at, text.len());
    // A pattern anywhere in the string, a valid value, and a pattern a DFA cannot run (its
    // value judged only when complete): never stopped mid-string.
    for text in [
        r#"{"note": "no digit for a long while, then 7", "invoice": "INV-1234"}"#,
        r#"{"code": "AAAB"#,
    ] {
        assert_eq!(judge_with(&schema, options, text), None, "{text}");
    }
}

#[test]
fn an_object_where_the_type_leaves_objects_out_is_stopped_as_it_opens() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "either": {"type": ["string", "object"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "id": {"type": "integer"}
        }
    });
    let options = PrefixOptions::default();
    let text = r#"{"name": {"first": "Ada", "last": "Lovelace"}}"#;
    let (pointer, at) = judge_with(&schema, options, text).unwrap();
    assert_eq!(pointer, "/name");
    assert_eq!(at, r#"{"name": {"#.len());
    let text = r#"{"tags": ["x", {"#;
    assert_eq!(judge_with(&schema, options, text).unwrap().0, "/tags/1");
    // An object the type allows; an array where a scalar is wanted (a safe repair takes
    // its only item); unsafe repairs (which may write the object as a string).
    for text in [r#"{"either": {"a": 1}}"#, r#"{"id": [7], "either": "x"}"#] {
        assert_eq!(judge_with(&schema, options, text), None, "{text}");
    }
    let unsafe_repairs = PrefixOptions {
        unsafe_repairs: true,
    };
    assert_eq!(judge_with(&schema, unsafe_repairs, r#"{"tags": [{"#), None);
}

/// A plan whose tasks name phases of another document and have unique ids.
fn plan_checker() -> Arc<PrefixChecker> {
    let schema = json!({
        "type": "object",
        "required": ["goal", "tasks"],
        "properties": {
            "goal": {"type": "string"},
            "tasks": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "phase"],
                "properties": {
                    "id": {"type": "string"},
                    "phase": {"type": "string"},
                    "files": {"type": "array", "items": {"type": "string"}}
                }
            }}
        }
    });
    let checker = plan_rules(&json!({"rules": [
        {"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*]"},
        {"id": "ids", "unique": "$.tasks[*].id"},
        {"id": "files", "each": "$.tasks[*]", "required_nonempty": ["$.files"]},
        {"id": "goal", "required_nonempty": ["$.goal"]}
    ]}));
    Arc::new(PrefixChecker::new(&schema, PrefixOptions::default()).with_rules(&checker))
}

/// The document the plan's rules refer to as `plan`.
fn plan() -> rectify_core::Document {
    rectify_core::Document::from_value(json!({"phases": ["design", "build"]}))
}

/// A checker with `rules` and the [`plan`] reference.
fn plan_rules(rules: &Value) -> rectify_check::Checker {
    rectify_check::Checker::builder()
        .rules(rectify_check::RuleSet::from_value(rules, None).unwrap())
        .reference("plan", plan())
        .build()
        .unwrap()
}

/// The first doomed error's code and pointer, and how many bytes had arrived then.
fn judge_plan(text: &str) -> Option<(String, String, usize)> {
    let mut judge = StreamJudge::new(plan_checker());
    let mut buf = [0u8; 4];
    for (at, c) in text.char_indices() {
        if let Verdict::Doomed(why) = judge.push(c.encode_utf8(&mut buf)).unwrap() {
            let first = &why[0];
            return Some((first.code.clone(), first.location.pointer.clone(), at + 1));
        }
    }
    None
}

#[test]
fn a_completed_item_that_breaks_a_rule_stops_the_answer() {
    let item = r#"{"id": "T1", "phase": "design", "files": ["a.rs"]}"#;
    let valid = format!(
        r#"{{"goal": "", "tasks": [{item}, {{"id": "T2", "phase": "build", "files": ["b"]}}]}}"#
    );
    assert_eq!(judge_plan(&valid), None, "the whole-document rule waits");

    let bad_phase =
        format!(r#"{{"tasks": [{item}, {{"id": "T2", "phase": "ship", "files": ["b"]}}, "#);
    let (code, pointer, at) = judge_plan(&bad_phase).unwrap();
    assert_eq!(
        (code.as_str(), pointer.as_str()),
        ("rule.ref", "/tasks/1/phase")
    );
    assert!(
        bad_phase[..at].ends_with("},"),
        "judged once the item is complete: {}",
        &bad_phase[..at]
    );

    let repeated =
        format!(r#"{{"tasks": [{item}, {{"id": "T1", "phase": "build", "files": ["b"]}}]"#);
    let (code, pointer, _) = judge_plan(&repeated).unwrap();
    assert_eq!(
        (code.as_str(), pointer.as_str()),
        ("rule.unique", "/tasks/1/id")
    );

    let empty = r#"{"tasks": [{"id": "T1", "phase": "design", "files": []}, "#;
    let (code, pointer, _) = judge_plan(empty).unwrap();
    assert_eq!(
        (code.as_str(), pointer.as_str()),
        ("rule.required_nonempty", "/tasks/0/files")
    );
}

#[test]
fn an_item_a_repair_changes_is_judged_by_the_rules_as_repaired_or_not_at_all() {
    // `"Design"` is repaired to the enum's `"design"` by the full judge, which is one of the
    // plan's phases: judged as written, the item would be stopped for a reference it keeps.
    let schema = json!({
        "type": "object",
        "properties": {
            "goal": {"type": "string"},
            "tasks": {"type": "array", "items": {
                "type": "object",
                "properties": {"phase": {"enum": ["design", "build"]}}
            }}
        }
    });
    let rules =
        json!({"rules": [{"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*]"}]});
    let checker = plan_rules(&rules);
    let text = r#"{"goal": "g", "tasks": [{"phase": "Design"}, {"phase": "build"}]}"#;
    assert!(
        rectify_judge::Validator::builder()
            .schema_value(schema.clone())
            .rules(
                rectify_check::RuleSet::from_value(&rules, None).unwrap(),
                std::collections::BTreeMap::from([("plan".to_owned(), plan())])
            )
            .build()
            .unwrap()
            .validate(text)
            .is_valid(),
        "the full judge accepts it"
    );
    let prefix = PrefixChecker::new(&schema, PrefixOptions::default()).with_rules(&checker);
    let mut judge = StreamJudge::new(Arc::new(prefix));
    let mut buf = [0u8; 4];
    for c in text.chars() {
        let verdict = judge.push(c.encode_utf8(&mut buf)).unwrap();
        assert_eq!(verdict, Verdict::Open, "at {:?}", judge.reader().text());
    }
}
