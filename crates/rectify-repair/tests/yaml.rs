//! YAML payloads: fenced YAML, tabs used for indentation, plain values containing `: `, and a
//! JSON answer inside a YAML fence.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_core::Format;
use rectify_repair::{RepairOptions, repair};
use serde_json::json;

fn codes(out: &rectify_repair::Repaired) -> Vec<&str> {
    out.repairs.iter().map(|r| r.code.as_str()).collect()
}

#[test]
fn fenced_yaml_is_extracted_and_read() {
    let text = "Here is the plan:\n```yaml\nphases:\n  - id: p1\n    name: Setup\n```\nDone.";
    let out = repair(text, &RepairOptions::default());
    assert_eq!(
        out.value.clone().unwrap(),
        json!({"phases": [{"id": "p1", "name": "Setup"}]})
    );
    assert_eq!(out.format, Some(Format::Yaml));
    assert_eq!(codes(&out), vec!["extract.code_fence"]);
}

#[test]
fn tabs_used_for_indentation_become_spaces() {
    let text = "tasks:\n\t- id: 1\n\t  done: true\n";
    let out = repair(
        text,
        &RepairOptions::default().with_format(Some(Format::Yaml)),
    );
    assert_eq!(
        out.value.clone().unwrap(),
        json!({"tasks": [{"id": 1, "done": true}]})
    );
    let tabs: Vec<_> = out
        .repairs
        .iter()
        .filter(|r| r.code == "yaml.tabs")
        .collect();
    assert_eq!(tabs.len(), 2);
    assert_eq!(tabs[0].location.span.unwrap().line, 2);
}

#[test]
fn plain_values_containing_colon_space_are_quoted() {
    let text = "title: Step 1: set up the repo\nnote: fine\n";
    let out = repair(
        text,
        &RepairOptions::default().with_format(Some(Format::Yaml)),
    );
    assert_eq!(
        out.value.clone().unwrap(),
        json!({"title": "Step 1: set up the repo", "note": "fine"})
    );
    assert_eq!(codes(&out), vec!["yaml.colon_in_value"]);
    assert_eq!(out.repairs[0].after, "\"Step 1: set up the repo\"");
}

#[test]
fn json_inside_a_yaml_fence_goes_to_the_json_repair_when_the_yaml_reader_fails() {
    let text = "```yaml\n{'a': 1, \"b\": [1, 2}\n```";
    let out = repair(text, &RepairOptions::default());
    assert_eq!(out.value.clone().unwrap(), json!({"a": 1, "b": [1, 2]}));
    assert_eq!(out.format, Some(Format::Json));
    assert!(codes(&out).contains(&"json.single_quotes"));
}

#[test]
fn a_flow_document_the_yaml_reader_reads_is_yaml() {
    let text = "```yaml\n{'a': 1,}\n```";
    let out = repair(text, &RepairOptions::default());
    assert_eq!(out.value.clone().unwrap(), json!({"a": 1}));
    assert_eq!(out.format, Some(Format::Yaml));
    assert_eq!(codes(&out), vec!["extract.code_fence"]);
}

#[test]
fn broken_yaml_is_a_diagnostic() {
    let text = "a: [1, 2\nb: 3\n";
    let out = repair(
        text,
        &RepairOptions::default().with_format(Some(Format::Yaml)),
    );
    assert!(out.value.is_none());
    assert!(
        out.diagnostics
            .iter()
            .any(rectify_core::Diagnostic::is_error)
    );
}

#[test]
fn strict_refuses_yaml_repairs() {
    let text = "a:\n\tb: 1\n";
    let options = RepairOptions::default()
        .with_format(Some(Format::Yaml))
        .with_strict(true);
    let out = repair(text, &options);
    assert!(out.value.is_none());
    assert!(out.diagnostics.iter().any(|d| d.code == "repair.strict"));
}

#[test]
fn a_repair_leaves_block_scalars_alone() {
    let text = "a:\n\tb: 1\ntext: |\n  x\n  \ty: z: w\nnext: 2\n";
    let out = repair(
        text,
        &RepairOptions::default().with_format(Some(Format::Yaml)),
    );
    assert_eq!(
        out.value.clone().unwrap(),
        json!({"a": {"b": 1}, "text": "x\n\ty: z: w\n", "next": 2})
    );
    assert_eq!(codes(&out), vec!["yaml.tabs"]);
}
