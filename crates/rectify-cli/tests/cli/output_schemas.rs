//! The `--output json` of every command matches its documented wire format
//! (`docs/output/*.schema.json`, described in docs/output.md), run on the repository's
//! examples and on small workflows; `ask` is covered in ask.rs (it needs the fake server).

use std::path::Path;

use serde_json::Value;

use crate::support::{assert_wire_format, in_dir, json, run, run_stdin};

#[test]
fn check_and_repair_outputs_match_their_schemas() {
    for file in ["spec.valid.yaml", "spec.broken.yaml"] {
        let r = run(&[
            "check",
            &format!("examples/spec/{file}"),
            "--schema",
            "examples/spec/spec.schema.json",
            "--output",
            "json",
        ]);
        assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
        assert_wire_format("check", &json(&r));
    }
    for input in [
        "{\"a\": 1,}",
        "Sure! here it is: {'a': [1, 2",
        "no json at all",
    ] {
        let r = run_stdin(&["repair", "-", "--output", "json"], input);
        assert_wire_format("repair", &json(&r));
    }
}

/// A workflow whose first step is revised, then waits for a person.
fn workflow(dir: &Path) {
    std::fs::write(
        dir.join("workflow.yaml"),
        "name: w\nproviders:\n  sh: {kind: command, command: [sh, writer.sh]}\nagents:\n  writer: writer.md\ndefaults: {provider: sh}\nsteps:\n  - id: count\n    agent: writer\n    prompt: count\n    answer: {format: json, schema: n.schema.json}\n    on_invalid: {revise: 1}\n  - id: approve\n    needs: [count]\n    human: \"Right?\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("writer.sh"),
        "cat >> .calls\nif [ $(wc -l < .calls) -gt 1 ]; then echo '{\"n\": 2}'; else echo '{\"m\": 1}'; fi\n",
    )
    .unwrap();
    std::fs::write(dir.join("writer.md"), "---\nname: writer\n---\nCount.\n").unwrap();
    std::fs::write(
        dir.join("n.schema.json"),
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    )
    .unwrap();
}

#[test]
fn workflow_outputs_match_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    workflow(p);
    let wf = p.join("workflow.yaml").display().to_string();
    let dry = in_dir(p, &["run", &wf, "--dry-run", "--output", "json"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_wire_format("dry-run", &json(&dry));
    let started = in_dir(p, &["run", &wf, "--run-id", "r1", "--output", "json"]);
    assert_eq!(started.code, 3, "{}", started.stderr);
    let waiting = json(&started);
    assert_eq!(waiting["status"], "waiting");
    assert_wire_format("run", &waiting);
    assert_wire_format(
        "run",
        &json(&in_dir(p, &["status", "r1", "--output", "json"])),
    );
    let list = json(&in_dir(p, &["status", "--output", "json"]));
    assert_wire_format("status", &list);
    let report = json(&in_dir(p, &["report", "r1", "--output", "json"]));
    assert_wire_format("report", &report);
    let done = in_dir(p, &["resume", "r1", "--approve", "--output", "json"]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    let completed: Value = json(&done);
    assert_eq!(completed["status"], "completed");
    assert_wire_format("run", &completed);
}
