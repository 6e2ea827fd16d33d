//! `rectify resume` of a run whose working directory moved: script agents, the binary spawned
//! as a user runs it.

use std::path::Path;

use serde_json::Value;

use crate::support::rectify;

fn json_in(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = rectify().args(args).current_dir(dir).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_moved_working_directory_resumes_where_it_is_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let work = root.join("work");
    std::fs::create_dir_all(work.join("agents")).unwrap();
    std::fs::write(work.join("agents/a.md"), "---\nname: a\n---\nWork.\n").unwrap();
    std::fs::write(
        root.join("agent.sh"),
        "echo \"$RECTIFY_STEP\" > \"$RECTIFY_STEP.txt\"\n",
    )
    .unwrap();
    std::fs::write(
        work.join("workflow.yaml"),
        format!(
            "name: moved\nproviders:\n  sh: {{kind: command, command: [sh, \"{}\"]}}\ndefaults: {{provider: sh}}\nagents: {{a: agents/a.md}}\nsteps:\n  - {{id: spec, agent: a, prompt: go, outputs: [{{path: spec.txt}}]}}\n  - {{id: approve, needs: [spec], human: ok?}}\n  - {{id: code, needs: [approve], agent: a, prompt: go, outputs: [{{path: code.txt}}]}}\n",
            root.join("agent.sh").display()
        ),
    )
    .unwrap();
    let (code, started, stderr) = json_in(
        &work,
        &["run", "workflow.yaml", "--run-id", "m", "--output", "json"],
    );
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(started["status"], "waiting");
    let moved = root.join("moved");
    std::fs::rename(&work, &moved).unwrap();
    let (code, done, stderr) = json_in(&moved, &["resume", "m", "--approve", "--output", "json"]);
    assert_eq!(code, 0, "{stderr}\n{done:#}");
    assert_eq!(done["status"], "completed", "{done:#}");
    assert_eq!(
        std::fs::read_to_string(moved.join("code.txt")).unwrap(),
        "code\n"
    );
    let notes = done["notes"].to_string();
    let here = moved.canonicalize().unwrap();
    assert!(
        notes.contains(&format!("goes on in `{}`", here.display())),
        "{notes}"
    );
}
