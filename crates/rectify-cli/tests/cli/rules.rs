//! `rectify check --rules`: cross-document references, structure rules and their configuration
//! errors.

use std::io::Write;

use crate::support::{json, run, run_stdin, triples};

fn t(code: &str, path: &str, line: i64) -> (String, String, i64) {
    (code.to_owned(), path.to_owned(), line)
}

const TASKS: [&str; 5] = [
    "--schema",
    "examples/plan/tasks.schema.json",
    "--rules",
    "examples/plan/tasks.rules.yaml",
    "--output",
];

#[test]
fn tasks_must_name_plan_phases_change_files_and_be_unique() {
    let mut args = vec!["check", "examples/plan/tasks.broken.yaml"];
    args.extend(TASKS);
    args.push("json");
    let r = run(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut got = triples(&r);
    got.sort();
    assert_eq!(
        got,
        vec![
            t("rule.any_nonempty", "tasks[1]", 8),
            t("rule.ref", "tasks[1].phaseId", 9),
            t("rule.unique", "tasks[1].id", 8),
            t("schema.required", "tasks[1].acceptanceCriteria", 8),
        ]
    );
    let v = json(&r);
    let reference = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "rule.ref")
        .unwrap();
    assert_eq!(
        reference["message"],
        "\"phase-9\" is not one of the plan's phase ids (phase-1, phase-2)"
    );
    assert_eq!(reference["source"], "rules:task-phase-exists");
}

#[test]
fn valid_tasks_pass() {
    let mut args = vec!["check", "examples/plan/tasks.valid.yaml"];
    args.extend(TASKS);
    args.push("human");
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn ref_flag_overrides_the_rules_file_document() {
    let mut plan = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    plan.write_all(b"phases:\n  - id: phase-1\n  - id: phase-9\n")
        .unwrap();
    let plan_arg = format!("plan={}", plan.path().display());
    let mut args = vec![
        "check",
        "examples/plan/tasks.broken.yaml",
        "--ref",
        &plan_arg,
    ];
    args.extend(TASKS);
    args.push("json");
    let r = run(&args);
    let codes: Vec<String> = triples(&r).into_iter().map(|(c, _, _)| c).collect();
    assert!(!codes.contains(&"rule.ref".to_owned()), "{codes:?}");
}

#[test]
fn ref_naming_a_missing_file_is_a_configuration_error() {
    let mut args = vec![
        "check",
        "examples/plan/tasks.valid.yaml",
        "--ref",
        "plan=nowhere/plan.yaml",
    ];
    args.extend(TASKS);
    args.push("json");
    let r = run(&args);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("cannot load the reference document `plan`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("nowhere/plan.yaml"), "{}", r.stderr);
}

#[test]
fn rule_naming_an_unknown_document_is_a_configuration_error() {
    let rules = temp("rules:\n  - id: phase\n    each: \"$.a[*]\"\n    in: \"roadmap:$.ids[*]\"\n");
    let r = run_stdin(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--rules",
            rules.path().to_str().unwrap(),
        ],
        "{\"a\": [1]}",
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("rule `phase` refers to document `roadmap`"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("  hint: `--ref roadmap=FILE` gives it"),
        "{}",
        r.stderr
    );
}

#[test]
fn unknown_check_names_the_rule() {
    let rules =
        temp("rules:\n  - id: ok\n    unique: \"$.a[*]\"\n  - id: typo\n    uniqe: \"$.a[*]\"\n");
    let r = run_stdin(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--rules",
            rules.path().to_str().unwrap(),
        ],
        "{}",
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("rules[1] (id `typo`, line 4)"),
        "{}",
        r.stderr
    );
}

#[test]
fn invalid_jsonpath_names_the_rule() {
    let rules = temp("rules:\n  - id: broken-path\n    unique: \"$.tasks[*\"\n");
    let r = run_stdin(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--rules",
            rules.path().to_str().unwrap(),
        ],
        "{}",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`broken-path`"), "{}", r.stderr);
    assert!(r.stderr.to_lowercase().contains("jsonpath"), "{}", r.stderr);
}

#[test]
fn markdown_plan_structure() {
    let r = run(&[
        "check",
        "examples/implementation-plan/plan.broken.md",
        "--rules",
        "examples/implementation-plan/plan.rules.yaml",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut codes: Vec<String> = triples(&r).into_iter().map(|(c, _, _)| c).collect();
    codes.sort();
    assert_eq!(
        codes,
        vec![
            "rule.markdown_heading",
            "rule.markdown_section",
            "rule.min_length"
        ]
    );
    let section = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "rule.markdown_section")
        .cloned()
        .unwrap();
    assert_eq!(section["line"], 3, "points at the empty `## Goal` heading");
    let r = run(&[
        "check",
        "examples/implementation-plan/plan.valid.md",
        "--rules",
        "examples/implementation-plan/plan.rules.yaml",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

fn temp(contents: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(contents.as_bytes()).unwrap();
    f
}
