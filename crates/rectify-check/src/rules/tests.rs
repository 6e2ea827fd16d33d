use std::path::Path;

use rectify_core::{Diagnostic, Document, Format, Section, Severity, SpanMap};
use rectify_parse::{Limits, read};
use serde_json::{Value, json};

use super::*;

fn json_doc(text: &str) -> Document {
    read(text.to_owned(), Format::Json, &Limits::default())
        .document
        .unwrap()
}

fn rules(value: &Value) -> RuleSet {
    RuleSet::from_value(value, None).unwrap()
}

fn config_error(value: &Value) -> ConfigError {
    RuleSet::from_value(value, None).unwrap_err()
}

fn run(rules: &RuleSet, doc: &Document) -> Vec<Diagnostic> {
    rules.check(doc, &References::new()).unwrap()
}

fn line(d: &Diagnostic) -> usize {
    d.location.span.unwrap().line
}

const TASKS: &str = r#"{
  "tasks": [
    {"id": "T1", "phaseId": "phase-1", "filesToCreate": ["a.rs"]},
    {"id": "T2", "phaseId": "phase-9", "filesToCreate": [], "filesToModify": []},
    {"id": "T1", "phaseId": "phase-2", "filesToModify": ["b.rs"]}
  ],
  "goal": ""
}"#;

fn plan_refs() -> References {
    let plan = json_doc(r#"{"phases": [{"id": "phase-1"}, {"id": "phase-2"}]}"#);
    References::from([("plan".to_owned(), plan)])
}

#[test]
fn reference_to_another_document() {
    let set = rules(&json!({"rules": [
        {"id": "task-phase-exists", "each": "$.tasks[*].phaseId", "in": "plan:$.phases[*].id"}
    ]}));
    assert_eq!(
        set.referenced_documents().into_iter().collect::<Vec<_>>(),
        vec!["plan"]
    );
    let diags = set.check(&json_doc(TASKS), &plan_refs()).unwrap();
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    assert_eq!(
        (d.code.as_str(), d.source.as_str()),
        ("rule.ref", "rules:task-phase-exists")
    );
    assert_eq!(d.location.pointer, "/tasks/1/phaseId");
    assert_eq!(d.location.path, "tasks[1].phaseId");
    assert_eq!(line(d), 4);
    assert_eq!(
        d.message,
        "\"phase-9\" is not one of the values of plan:$.phases[*].id (phase-1, phase-2)"
    );
    assert_eq!(d.expected.as_deref(), Some("one of phase-1, phase-2"));
    assert_eq!(d.received.as_deref(), Some("\"phase-9\""));
    assert_eq!(d.severity, Severity::Error);
}

#[test]
fn reference_message_template_and_self_reference() {
    let set = rules(&json!({"rules": [{
        "id": "known-phase", "each": "$.tasks[*].phaseId", "in": "$.phases[*]",
        "message": "{path}: {value} is not one of the plan's phase ids ({allowed}) [{id}]"
    }]}));
    let doc = Document::from_value(
        json!({"phases": ["p1", "p1"], "tasks": [{"phaseId": "p1"}, {"phaseId": 7}]}),
    );
    let diags = run(&set, &doc);
    assert_eq!(diags.len(), 1);
    assert_eq!(
        diags[0].message,
        "tasks[1].phaseId: 7 is not one of the plan's phase ids (p1) [known-phase]"
    );
    assert!(diags[0].location.span.is_none());
}

#[test]
fn reference_to_a_missing_document_is_a_config_error() {
    let set = rules(&json!({"rules": [{"id": "r", "each": "$.a[*]", "in": "plan:$.ids[*]"}]}));
    let err = set.check(&json_doc("{}"), &References::new()).unwrap_err();
    assert!(
        matches!(&err, ConfigError::MissingDocument { rule, name } if rule == "r" && name == "plan"),
        "{err:?}"
    );
    // A library message: what to do, in the rules file's terms, no CLI flag (the CLI adds
    // `--ref plan=FILE` as a hint).
    assert!(
        err.to_string().contains("name it under `documents:`"),
        "{err}"
    );
    assert!(!err.to_string().contains("--ref"), "{err}");
    assert!(set.verify_references(&plan_refs()).is_ok());
}

#[test]
fn any_nonempty_per_task_with_each() {
    let set = rules(&json!({"rules": [{
        "id": "files-to-change", "each": "$.tasks[*]",
        "any_nonempty": ["$.filesToCreate", "$.filesToModify"]
    }]}));
    let diags = run(&set, &json_doc(TASKS));
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    assert_eq!(d.code, "rule.any_nonempty");
    assert_eq!(d.location.path, "tasks[1]");
    assert_eq!(line(d), 4);
    assert_eq!(
        d.message,
        "at least one of $.filesToCreate, $.filesToModify must be non-empty"
    );
    assert_eq!(
        d.expected.as_deref(),
        Some("a non-empty value at one of $.filesToCreate, $.filesToModify")
    );
    assert_eq!(d.received, None);
}

#[test]
fn any_nonempty_over_the_whole_document() {
    let set = rules(&json!({"rules": [{"id": "files", "any_nonempty": ["$.create", "$.modify"]}]}));
    let diags = run(&set, &json_doc("{\"create\": [],\n \"modify\": null}"));
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].location.pointer, "/create");
    assert_eq!(diags[0].received.as_deref(), Some("[]"));
    assert!(run(&set, &json_doc(r#"{"modify": ["x"]}"#)).is_empty());
    let none = run(&set, &json_doc("{}"));
    assert_eq!(none[0].location.pointer, "");
}

#[test]
fn unique_reports_later_duplicates() {
    let set = rules(&json!({"rules": [{"id": "unique-task-ids", "unique": "$.tasks[*].id"}]}));
    let diags = run(&set, &json_doc(TASKS));
    assert_eq!(diags.len(), 1);
    let d = &diags[0];
    assert_eq!(d.code, "rule.unique");
    assert_eq!(d.location.path, "tasks[2].id");
    assert_eq!(line(d), 5);
    assert_eq!(d.message, "duplicate value \"T1\" (first at tasks[0].id)");
    assert_eq!(
        d.expected.as_deref(),
        Some("a value unique among $.tasks[*].id")
    );
    assert_eq!(d.received.as_deref(), Some("\"T1\""));
    let objects = rules(
        &json!({"rules": [{"id": "u", "unique": "$[*]", "message": "{value} repeats {first}"}]}),
    );
    let diags = run(
        &objects,
        &Document::from_value(json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 2}])),
    );
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "{\"b\":2,\"a\":1} repeats [0]");
}

#[test]
fn required_nonempty_missing_and_empty() {
    let set = rules(&json!({"rules": [
        {"id": "goal", "required_nonempty": ["$.goal", "$.summary.text", "$.tasks"]}
    ]}));
    let diags = run(&set, &json_doc(TASKS));
    assert_eq!(diags.len(), 2, "{diags:#?}");
    let empty = &diags[0];
    assert_eq!(
        (empty.code.as_str(), empty.location.path.as_str()),
        ("rule.required_nonempty", "goal")
    );
    assert_eq!(empty.message, "$.goal must not be empty");
    assert_eq!(empty.received.as_deref(), Some("\"\""));
    assert_eq!(line(empty), 7);
    let missing = &diags[1];
    assert_eq!(missing.location.pointer, "/summary/text");
    assert_eq!(missing.message, "missing a value for $.summary.text");
    assert_eq!(
        missing.expected.as_deref(),
        Some("a non-empty value at $.summary.text")
    );
    assert_eq!(missing.received, None);
    assert_eq!(line(missing), 1, "nearest existing ancestor: the root");
}

#[test]
fn required_nonempty_inside_each() {
    let set = rules(
        &json!({"rules": [{"id": "ac", "each": "$.tasks[*]", "required_nonempty": "$.files"}]}),
    );
    let diags = run(
        &set,
        &Document::from_value(json!({"tasks": [{"files": ["a"]}, {}, {"files": []}]})),
    );
    let pointers: Vec<&str> = diags.iter().map(|d| d.location.pointer.as_str()).collect();
    assert_eq!(pointers, vec!["/tasks/1/files", "/tasks/2/files"]);
}

const PLAN_MD: &str = "# Plan\n\n## Goal\n\n## Tasks\n\n### Task 1: Parse\nRead input.\n\n### Task 2: Check\nRun checks.\n";

fn markdown_doc() -> Document {
    let parsed = read(PLAN_MD.to_owned(), Format::Markdown, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    parsed.document.unwrap()
}

/// The same structure built by hand, as a document without front matter from another source.
fn hand_built_markdown() -> Document {
    let find = |needle: &str| PLAN_MD.find(needle).unwrap();
    let section = |level: u8, title: &str, heading: &str, body_end: usize| {
        let start = find(heading);
        let end = start + PLAN_MD[start..].find('\n').unwrap();
        Section {
            level,
            title: title.to_owned(),
            heading: (start, end),
            body: (end + 1, body_end),
        }
    };
    let len = PLAN_MD.len();
    let sections = vec![
        section(1, "Plan", "# Plan", len),
        section(2, "Goal", "## Goal", find("## Tasks")),
        section(2, "Tasks", "## Tasks", len),
        section(3, "Task 1: Parse", "### Task 1", find("### Task 2")),
        section(3, "Task 2: Check", "### Task 2", len),
    ];
    Document::new(
        Format::Markdown,
        PLAN_MD.to_owned(),
        Value::Null,
        SpanMap::default(),
    )
    .with_sections(sections)
}

#[test]
fn markdown_rules_see_what_the_reader_sees() {
    let set = rules(&json!({"rules": [
        {"id": "tasks", "markdown": {"heading": "^### Task \\d+:", "min_count": 3}},
        {"id": "goal", "markdown": {"section": "^## Goal", "nonempty": true}}
    ]}));
    let read = run(&set, &markdown_doc());
    let built = run(&set, &hand_built_markdown());
    assert_eq!(read.len(), 2);
    for (a, b) in read.iter().zip(&built) {
        assert_eq!((&a.code, &a.message), (&b.code, &b.message));
        assert_eq!(
            a.location.span.map(|s| s.line),
            b.location.span.map(|s| s.line)
        );
    }
}

#[test]
fn markdown_with_front_matter_and_setext_headings() {
    let text = "---\ntitle: Plan\n---\nGoal\n====\n\nShip it.\n\n### Task 1: Go\n";
    let doc = read(text.to_owned(), Format::Markdown, &Limits::default())
        .document
        .unwrap();
    let set = rules(&json!({"rules": [
        {"id": "goal", "markdown": {"section": "^# Goal$", "nonempty": true}},
        {"id": "task", "markdown": {"heading": "^### Task \\d+:", "max_count": 1}},
        {"id": "title", "required_nonempty": "$.title"}
    ]}));
    assert!(run(&set, &doc).is_empty(), "{:#?}", run(&set, &doc));
}

#[test]
fn markdown_heading_counts() {
    let at_least = rules(&json!({"rules": [
        {"id": "tasks", "markdown": {"heading": "^### Task \\d+(\\.\\d+)?:", "min_count": 3}}
    ]}));
    let diags = run(&at_least, &markdown_doc());
    assert_eq!(diags.len(), 1);
    let d = &diags[0];
    assert_eq!(d.code, "rule.markdown_heading");
    assert_eq!(d.location.path, "$");
    assert_eq!(
        d.message,
        "expected at least 3 headings matching \"^### Task \\\\d+(\\\\.\\\\d+)?:\", found 2"
    );
    assert_eq!(d.received.as_deref(), Some("2 matching"));
    assert_eq!(
        d.expected.as_deref(),
        Some("at least 3 headings matching \"^### Task \\\\d+(\\\\.\\\\d+)?:\"")
    );
    let ok = rules(&json!({"rules": [{"id": "t", "markdown": {"heading": "^### Task \\d+:"}}]}));
    assert!(run(&ok, &markdown_doc()).is_empty());
    let at_most =
        rules(&json!({"rules": [{"id": "t", "markdown": {"heading": "^### ", "max_count": 1}}]}));
    let diags = run(&at_most, &markdown_doc());
    assert_eq!(
        diags[0].message,
        "expected at most 1 headings matching \"^### \", found 2"
    );
    assert_eq!(
        line(&diags[0]),
        10,
        "points at the first heading over the limit"
    );
}

#[test]
fn markdown_section_exists_and_is_nonempty() {
    let set = rules(&json!({"rules": [
        {"id": "goal-section", "markdown": {"section": "^## Goal", "nonempty": true}},
        {"id": "tasks-section", "markdown": {"section": "^## Tasks", "nonempty": true}},
        {"id": "risks", "markdown": {"section": "^## Risks"}}
    ]}));
    let diags = run(&set, &markdown_doc());
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].code, "rule.markdown_section");
    assert_eq!(diags[0].message, "section \"## Goal\" is empty");
    assert_eq!(diags[0].source, "rules:goal-section");
    assert_eq!(diags[0].expected.as_deref(), Some("text under the heading"));
    assert_eq!(diags[0].received.as_deref(), Some("an empty section"));
    assert_eq!(
        (line(&diags[0]), diags[0].location.span.unwrap().column),
        (3, 1)
    );
    assert_eq!(diags[1].message, "missing section matching \"^## Risks\"");
    assert!(diags[1].location.span.is_none());
}

#[test]
fn length_limits() {
    let set =
        rules(&json!({"rules": [{"id": "long-enough", "min_length": 200, "max_length": 300}]}));
    let diags = run(&set, &markdown_doc());
    let d = &diags[0];
    let n = PLAN_MD.trim().chars().count();
    assert_eq!(d.code, "rule.min_length");
    assert_eq!(
        d.message,
        format!("the text is {n} characters long, expected at least 200")
    );
    assert_eq!(d.expected.as_deref(), Some("at least 200 characters"));
    assert_eq!(
        d.received.as_deref(),
        Some(format!("{n} characters").as_str())
    );
    let short = rules(
        &json!({"rules": [{"id": "short", "max_length": 5, "severity": "warning",
        "message": "{length} > {max}"}]}),
    );
    let diags = run(&short, &Document::from_value(json!("  a long answer  ")));
    assert_eq!(
        (diags[0].code.as_str(), diags[0].message.as_str()),
        ("rule.max_length", "13 > 5")
    );
    assert_eq!(diags[0].severity, Severity::Warning);
    assert!(!diags[0].is_error());
}

fn rule_error(rule: &Value) -> (usize, Option<String>, String) {
    match config_error(&json!({"rules": [{"id": "ok", "unique": "$.a"}, rule]})) {
        ConfigError::Rule {
            index, id, message, ..
        } => (index, id, message),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_rules_name_the_rule() {
    let (index, id, message) = rule_error(&json!({"id": "x", "bogus": 1}));
    assert_eq!((index, id.as_deref()), (1, Some("x")));
    assert!(message.starts_with("unknown check `bogus`"), "{message}");
    let (_, _, message) = rule_error(&json!({"id": "x", "unique": "$.a", "min_length": 3}));
    assert_eq!(
        message,
        "the rule has two checks, `unique` and `min_length`: split it into two rules"
    );
    let (_, _, message) = rule_error(&json!({"id": "x", "unique": "$.tasks[*"}));
    assert!(
        message.starts_with("invalid JSONPath `$.tasks[*`"),
        "{message}"
    );
    let (_, _, message) = rule_error(&json!({"id": "x", "markdown": {"heading": "^(### Task"}}));
    assert!(
        message.starts_with("invalid regex `^(### Task` in `heading`: unclosed group"),
        "{message}"
    );
    let (_, id, message) = rule_error(&json!({"unique": "$.a"}));
    assert_eq!((id, message.as_str()), (None, "missing `id`"));
    let (_, id, message) = rule_error(&json!({"id": "ok", "unique": "$.b"}));
    assert_eq!(
        (id.as_deref(), message.as_str()),
        (Some("ok"), "duplicate rule id")
    );
    let (_, _, message) = rule_error(&json!({"id": "x", "in": "$.a"}));
    assert_eq!(message, "`in` needs `each` (the values to look up)");
    let (_, _, message) = rule_error(&json!({"id": "x", "each": "$.a"}));
    assert!(message.starts_with("`each` needs `in`"), "{message}");
    let (_, _, message) = rule_error(&json!({"id": "x", "each": "$.a", "unique": "$.b"}));
    assert_eq!(message, "`each` cannot be combined with `unique`");
    let (_, _, message) = rule_error(&json!({"id": "x", "unique": "$.a", "message": "{valeu}"}));
    assert!(
        message.starts_with("unknown placeholder `{valeu}`"),
        "{message}"
    );
    let (_, _, message) =
        rule_error(&json!({"id": "x", "markdown": {"heading": "a", "section": "b"}}));
    assert!(message.contains("two checks"), "{message}");
    let (_, _, message) = rule_error(&json!({"id": "x", "markdown": {"heading": "a", "min": 1}}));
    assert!(
        message.starts_with("unknown key `min` in `markdown`"),
        "{message}"
    );
    let (_, _, message) = rule_error(&json!({"id": "x", "min_length": -1}));
    assert_eq!(message, "`min_length` must be a non-negative integer");
    let (_, _, message) = rule_error(&json!({"id": "x", "each": "$.a", "in": "plan $.b"}));
    assert!(message.starts_with("`in` must be"), "{message}");
}

#[test]
fn malformed_files_are_config_errors() {
    assert!(matches!(
        config_error(&json!([1])),
        ConfigError::RulesFile { .. }
    ));
    assert!(matches!(
        config_error(&json!({"rules": {}})),
        ConfigError::RulesFile { .. }
    ));
    let err = config_error(&json!({"rule": []}));
    assert_eq!(
        err.to_string(),
        "rules file: unknown key `rule` (expected `rules` and `documents`)"
    );
    assert!(matches!(
        config_error(&json!({"rules": [], "documents": {"a b": "x"}})),
        ConfigError::RulesFile { .. }
    ));
}

#[test]
fn errors_from_a_read_document_carry_lines() {
    let text = "{\"rules\": [\n  {\"id\": \"a\", \"unique\": \"$.x\"},\n  {\"id\": \"b\",\n   \"unique\": \"$[\"}\n]}";
    let err = RuleSet::from_document(&json_doc(text), None).unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Rule {
                index: 1,
                line: Some(3),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("rule rules[1] (id `b`, line 3): invalid JSONPath"),
        "{err}"
    );
}

#[test]
fn documents_resolve_against_the_base_dir_and_load() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plan.json"),
        r#"{"phases": [{"id": "phase-1"}]}"#,
    )
    .unwrap();
    let rules_path = dir.path().join("rules.json");
    std::fs::write(
        &rules_path,
        r#"{"documents": {"plan": "plan.json"}, "rules": [{"id": "r", "each": "$.tasks[*].phaseId", "in": "plan:$.phases[*].id"}]}"#,
    )
    .unwrap();
    let set = RuleSet::from_file(&rules_path).unwrap();
    assert_eq!(set.documents()["plan"], dir.path().join("plan.json"));
    let refs = set.load_documents().unwrap();
    let diags = set
        .check(
            &Document::from_value(json!({"tasks": [{"phaseId": "phase-2"}]})),
            &refs,
        )
        .unwrap();
    assert_eq!(diags[0].expected.as_deref(), Some("one of phase-1"));
    let abs = RuleSet::from_value(
        &json!({"documents": {"p": "/x/p.json"}, "rules": []}),
        Some(Path::new("/base")),
    );
    assert!(
        abs.is_err(),
        "an absolute document is outside the rules file's directory"
    );
    let inline =
        RuleSet::from_value(&json!({"documents": {"p": "/x/p.json"}, "rules": []}), None).unwrap();
    assert_eq!(inline.documents()["p"], Path::new("/x/p.json"));
    std::fs::write(dir.path().join("plan.json"), "{broken").unwrap();
    let err = set.load_documents().unwrap_err();
    assert!(
        matches!(&err, ConfigError::InvalidDocument { name, .. } if name == "plan"),
        "{err:?}"
    );
}

/// Issue 34, finding 10: a rules file's documents are read only under its own directory, as a
/// schema's `$ref`s are.
#[test]
fn a_rules_files_documents_stay_under_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(dir.path().join("secret.json"), "{}").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.json"), rules.join("link.json")).unwrap();
    for doc in [
        "/etc/passwd",
        "../secret.json",
        "a/../../secret.json",
        "link.json",
    ] {
        let path = rules.join("rules.json");
        std::fs::write(
            &path,
            format!(r#"{{"documents": {{"d": "{doc}"}}, "rules": []}}"#),
        )
        .unwrap();
        let err = RuleSet::from_file(&path).expect_err(doc).to_string();
        assert!(err.contains("under its own directory"), "{doc}: {err}");
    }
    std::fs::write(rules.join("plan.json"), "{}").unwrap();
    let path = rules.join("rules.json");
    std::fs::write(
        &path,
        r#"{"documents": {"d": "./x/../plan.json"}, "rules": []}"#,
    )
    .unwrap();
    assert!(RuleSet::from_file(&path).is_ok());
}

const RULES_YAML: &str = r#"documents:
  plan: plan.yaml
rules:
  - id: task-phase-exists
    each: "$.tasks[*].phaseId"
    in: "plan:$.phases[*].id"
    message: "{value} is not one of the plan's phase ids ({allowed})"
  - id: files-to-change
    each: "$.tasks[*]"
    any_nonempty: ["$.filesToCreate", "$.filesToModify"]
  - id: unique-task-ids
    unique: "$.tasks[*].id"
"#;

#[test]
fn yaml_rules_file_against_yaml_documents() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rules.yaml"), RULES_YAML).unwrap();
    std::fs::write(
        dir.path().join("plan.yaml"),
        "phases:\n  - id: phase-1\n  - id: phase-2\n",
    )
    .unwrap();
    let set = RuleSet::from_file(&dir.path().join("rules.yaml")).unwrap();
    let refs = set.load_documents().unwrap();
    let tasks = "tasks:\n  - id: T1\n    phaseId: phase-9\n    filesToCreate: [a.rs]\n  - id: T1\n    phaseId: phase-1\n";
    let doc = read(tasks.to_owned(), Format::Yaml, &Limits::default())
        .document
        .unwrap();
    let diags = set.check(&doc, &refs).unwrap();
    let summary: Vec<(&str, &str, usize)> = diags
        .iter()
        .map(|d| (d.code.as_str(), d.location.path.as_str(), line(d)))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("rule.ref", "tasks[0].phaseId", 3),
            ("rule.any_nonempty", "tasks[1]", 5),
            ("rule.unique", "tasks[1].id", 5),
        ]
    );
    assert_eq!(
        diags[0].message,
        "\"phase-9\" is not one of the plan's phase ids (phase-1, phase-2)"
    );
}

#[test]
fn yaml_rules_errors_carry_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rules.yml");
    let broken = RULES_YAML.replace("unique: \"$.tasks[*].id\"", "uniq: \"$.tasks[*].id\"");
    std::fs::write(&path, broken).unwrap();
    let err = RuleSet::from_file(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rule rules[2] (id `unique-task-ids`, line 11): unknown check `uniq` (known: each/in, any_nonempty, unique, required_nonempty, markdown, min_length, max_length)"
    );
    std::fs::write(&path, "rules: [\n").unwrap();
    let err = RuleSet::from_file(&path).unwrap_err();
    assert!(matches!(err, ConfigError::Unreadable { .. }), "{err:?}");
}

/// A rule that fails for many values reports the first [`MAX_FINDINGS`], located, and one
/// more diagnostic counting the rest.
#[test]
fn many_failures_are_capped_with_a_count_of_the_rest() {
    let tasks: Vec<Value> = (0..250)
        .map(|i| json!({"id": i, "phaseId": format!("x{i}")}))
        .collect();
    let text = serde_json::to_string(&json!({"phases": [{"id": "p1"}], "tasks": tasks})).unwrap();
    let doc = json_doc(&text);
    let set = rules(&json!({"rules": [
        {"id": "phase", "each": "$.tasks[*].phaseId", "in": "$.phases[*].id", "severity": "warning"}
    ]}));
    let found = run(&set, &doc);
    assert_eq!(found.len(), MAX_FINDINGS + 1);
    assert_eq!(found[99].location.path, "tasks[99].phaseId");
    assert!(found[99].location.span.is_some());
    let rest = &found[MAX_FINDINGS];
    assert_eq!(rest.code, "rule.ref");
    assert_eq!(rest.severity, Severity::Warning);
    assert!(
        rest.message
            .starts_with("150 more values fail rule `phase`"),
        "{}",
        rest.message
    );
}
