//! `rectify run` stopped by a signal, and `rectify resume` in a moved working directory: each
//! with script agents, spawning the binary as a user does.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::support::rectify;

/// A workflow in `work` (its agents' scripts outside it): one step whose agent sleeps on its
/// first call (until the run is stopped) and writes `x.txt` on the next.
fn slow_workflow(root: &Path) -> std::path::PathBuf {
    let work = root.join("work");
    std::fs::create_dir_all(work.join("agents")).unwrap();
    std::fs::write(work.join("agents/a.md"), "---\nname: a\n---\nWork.\n").unwrap();
    let marker = root.join("started");
    std::fs::write(
        root.join("slow.sh"),
        format!(
            "if [ ! -f '{m}' ]; then touch '{m}'; sleep 60; fi\necho ok > x.txt\n",
            m = marker.display()
        ),
    )
    .unwrap();
    std::fs::write(
        work.join("workflow.yaml"),
        format!(
            "name: slow\nproviders:\n  sh: {{kind: command, command: [sh, \"{}\"]}}\ndefaults: {{provider: sh}}\nagents: {{a: agents/a.md}}\nsteps:\n  - {{id: s, agent: a, prompt: go, outputs: [{{path: x.txt}}]}}\n",
            root.join("slow.sh").display()
        ),
    )
    .unwrap();
    work
}

/// Starts `rectify run` of the slow workflow and waits until its agent runs.
fn start_slow(root: &Path, work: &Path) -> Child {
    let child = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["run", "workflow.yaml", "--run-id", "slow"])
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !root.join("started").exists() && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(root.join("started").exists(), "the agent started");
    child
}

fn signal(child: &Child, name: &str) {
    let sent = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

fn json_in(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = rectify().args(args).current_dir(dir).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_interrupted_then_resumed(work: &Path) {
    let (code, status, _) = json_in(work, &["status", "slow", "--output", "json"]);
    assert_eq!(code, 0);
    assert_eq!(status["status"], "interrupted", "{status:#}");
    let (code, list, _) = json_in(work, &["status", "--output", "json"]);
    assert_eq!(code, 0);
    assert_eq!(list["runs"][0]["status"], "interrupted", "{list:#}");
    let (code, done, stderr) = json_in(work, &["resume", "slow", "--output", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(done["status"], "completed", "{done:#}");
    assert_eq!(std::fs::read_to_string(work.join("x.txt")).unwrap(), "ok\n");
}

#[test]
fn sigterm_records_the_run_as_interrupted_and_resume_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let work = slow_workflow(dir.path());
    let child = start_slow(dir.path(), &work);
    signal(&child, "-TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("recorded as interrupted"), "{stderr}");
    assert_interrupted_then_resumed(&work);
}

#[test]
fn a_run_whose_process_was_killed_shows_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let work = slow_workflow(dir.path());
    let mut child = start_slow(dir.path(), &work);
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_interrupted_then_resumed(&work);
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
