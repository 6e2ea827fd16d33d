//! Snapshots (insta) of what people and programs see: the human and JSON output of the
//! commands on the repository's examples. A change to any of them shows up as a diff to review
//! (`cargo insta review`, or `INSTA_UPDATE=always` and `git diff`); times are redacted.

use crate::support::{Run, run, run_stdin};

/// The status, stdout and stderr of a run, as one snapshot.
fn shown(r: &Run) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        r.code, r.stdout, r.stderr
    )
}

#[test]
fn check_on_the_broken_spec() {
    let args = [
        "check",
        "examples/spec/spec.broken.yaml",
        "--schema",
        "examples/spec/spec.schema.json",
    ];
    insta::assert_snapshot!("check_human", shown(&run(&args)));
    let json = run(&[&args[..], &["--output", "json"]].concat());
    insta::assert_snapshot!("check_json", shown(&json));
}

#[test]
fn check_with_rules_on_the_broken_tasks() {
    let args = [
        "check",
        "examples/plan/tasks.broken.yaml",
        "--schema",
        "examples/plan/tasks.schema.json",
        "--rules",
        "examples/plan/tasks.rules.yaml",
    ];
    insta::assert_snapshot!("rules_human", shown(&run(&args)));
    let json = run(&[&args[..], &["--output", "json"]].concat());
    insta::assert_snapshot!("rules_json", shown(&json));
}

#[test]
fn repair_of_a_typical_model_answer() {
    let answer = "Sure! Here is the JSON:\n```json\n{'name': 'rectify', tags: [\"rust\",], \"stars\": 12,}\n```\nLet me know!";
    insta::assert_snapshot!("repair_human", shown(&run_stdin(&["repair", "-"], answer)));
    let json = run_stdin(&["repair", "-", "--output", "json"], answer);
    insta::assert_snapshot!("repair_json", shown(&json));
}

#[test]
fn dry_run_of_the_example_workflows() {
    for name in ["feature", "architect", "orchestrator"] {
        let wf = format!("examples/workflows/{name}/workflow.yaml");
        let human = run(&["run", &wf, "--dry-run"]);
        insta::assert_snapshot!(format!("dry_run_{name}"), shown(&human));
        let json = run(&["run", &wf, "--dry-run", "--output", "json"]);
        insta::assert_snapshot!(format!("dry_run_{name}_json"), shown(&json));
    }
}
