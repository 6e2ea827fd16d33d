//! `rectify check` on the examples: exit codes, diagnostics with paths and lines, both outputs.

use crate::support::{json, run, run_stdin, triples};

fn t(code: &str, path: &str, line: i64) -> (String, String, i64) {
    (code.to_owned(), path.to_owned(), line)
}

#[test]
fn valid_spec_passes() {
    let r = run(&[
        "check",
        "examples/spec/spec.valid.yaml",
        "--schema",
        "examples/spec/spec.schema.json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("examples/spec/spec.valid.yaml: valid"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn broken_spec_reports_every_schema_error_with_lines() {
    let r = run(&[
        "check",
        "examples/spec/spec.broken.yaml",
        "--schema",
        "examples/spec/spec.schema.json",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut got = triples(&r);
    got.sort();
    assert_eq!(
        got,
        vec![
            t("schema.additional_properties", "owner", 11),
            t("schema.enum", "status", 4),
            t("schema.min_length", "title", 2),
            t("schema.required", "requirements[1].priority", 9),
        ]
    );
    assert_eq!(json(&r)["valid"], false);
}

#[test]
fn human_output_has_a_code_frame_with_a_caret() {
    let r = run(&[
        "check",
        "examples/research/research.broken.json",
        "--schema",
        "examples/research/research.schema.json",
    ]);
    assert_eq!(r.code, 1);
    let expected = "\
error[schema.type]: findings[1].sourceIds[0]: expected integer, got string
 --> examples/research/research.broken.json:5:73
  |
5 |     {\"claim\": \"Semicolons are expected by some locales.\", \"sourceIds\": [\"2\"]}
  |                                                                         ^^^
  |
note: expected: integer
      received: \"2\"";
    assert!(r.stderr.contains(expected), "{}", r.stderr);
    assert!(
        r.stderr
            .ends_with("research.broken.json: invalid, 3 errors\n"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("\u{1b}["),
        "no colour when not a terminal"
    );
}

#[test]
fn json_output_fields() {
    let r = run(&[
        "check",
        "examples/research/research.broken.json",
        "--schema",
        "examples/research/research.schema.json",
        "--output",
        "json",
    ]);
    let v = json(&r);
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["pointer"], "/findings/1/sourceIds/0");
    assert_eq!(d["path"], "findings[1].sourceIds[0]");
    assert_eq!(
        (d["line"].as_i64(), d["column"].as_i64()),
        (Some(5), Some(73))
    );
    assert_eq!(d["expected"], "integer");
    assert_eq!(d["received"], "\"2\"");
    assert!(v["repairs"].as_array().unwrap().is_empty());
}

#[test]
fn several_schemas_must_all_pass() {
    let r = run(&[
        "check",
        "examples/plan/plan.yaml",
        "--schema",
        "examples/plan/plan.schema.json",
        "--schema",
        "examples/spec/spec.schema.json",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 1);
    let codes: Vec<_> = triples(&r).into_iter().map(|(c, _, _)| c).collect();
    assert!(codes.contains(&"schema.required".to_owned()), "{codes:?}");
    let r = run(&[
        "check",
        "examples/plan/plan.yaml",
        "--schema",
        "examples/plan/plan.schema.json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn stdin_with_dash_and_format_flag() {
    let r = run_stdin(
        &[
            "check",
            "-",
            "--format",
            "yaml",
            "--schema",
            "examples/plan/plan.schema.json",
        ],
        "goal: x\n",
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("<stdin>:1:1"), "{}", r.stderr);
    assert!(r.stderr.contains("phases"), "{}", r.stderr);
}

#[test]
fn json_syntax_error_points_at_line_and_column() {
    let r = run_stdin(
        &["check", "-", "--output", "json"],
        "{\n  \"a\": 1,\n  \"b\" 2\n}\n",
    );
    assert_eq!(r.code, 1);
    assert_eq!(triples(&r), vec![t("parse.syntax", "$", 3)]);
    assert_eq!(json(&r)["diagnostics"][0]["column"], 7);
}

fn fenced(before: &str, body: &str, after: &str) -> String {
    format!("{before}```markdown\n{body}```\n{after}")
}

fn check_markdown(text: String) -> crate::support::Run {
    run_stdin(
        &[
            "check",
            "-",
            "--format",
            "markdown",
            "--rules",
            "examples/implementation-plan/plan.rules.yaml",
            "--output",
            "json",
        ],
        text,
    )
}

#[test]
fn a_markdown_document_in_one_markdown_fence_is_checked_as_its_content() {
    let plan = std::fs::read_to_string(
        crate::support::root().join("examples/implementation-plan/plan.valid.md"),
    )
    .unwrap();
    let r = check_markdown(fenced("", &plan, ""));
    assert_eq!(r.code, 0, "a fence alone: {}", r.stdout);
    assert_eq!(json(&r)["repairs"][0]["code"], "extract.code_fence");
    let r = check_markdown(fenced("Here is the plan:\n\n", &plan, "\nLet me know.\n"));
    assert_eq!(r.code, 0, "with prose around it: {}", r.stdout);
    let repairs = json(&r)["repairs"].clone();
    let got: Vec<(&str, i64)> = repairs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["code"].as_str().unwrap(),
                r["location"]["span"]["line"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("extract.code_fence", 4),
            ("extract.prose", 1),
            (
                "extract.prose",
                3 + i64::try_from(plan.lines().count()).unwrap() + 3
            )
        ]
    );
}

#[test]
fn problems_in_a_fenced_markdown_document_point_at_the_lines_of_the_input() {
    let broken = "# Implementation plan\n\n## Goal\n\n## Tasks\n";
    let r = check_markdown(fenced("Here is the plan:\n", broken, ""));
    assert_eq!(r.code, 1, "{}", r.stdout);
    let section = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "rule.markdown_section")
        .cloned()
        .unwrap();
    assert_eq!(section["line"], 5, "the `## Goal` line of the input");
}

#[test]
fn a_markdown_document_that_only_contains_a_fence_is_read_as_it_is() {
    let text = "# Plan\n\n```markdown\n## Goal\n\nShip it.\n\n### Task 1: a\n```\n";
    let r = check_markdown(text.to_owned());
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(json(&r)["repairs"], serde_json::json!([]));
}
