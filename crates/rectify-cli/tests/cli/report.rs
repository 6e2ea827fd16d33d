//! `rectify report`, `rectify status` on a waiting run, `rectify runs prune`, and the decision
//! paths that must refuse (issue 14), on a small workflow that escalates to a person.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{in_dir, json, rectify};

/// A working directory with a workflow whose writer never gets the schema right: the step
/// is revised once, then waits for a person. Prints `<b>` in its answer (the page must
/// escape it).
fn escalating() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("workflow.yaml"),
        "name: esc\nproviders:\n  sh: {kind: command, command: [sh, writer.sh]}\nagents:\n  writer: writer.md\ndefaults: {provider: sh}\nsteps:\n  - id: count\n    agent: writer\n    prompt: count things\n    outputs:\n      - {path: out/count.json, schema: n.schema.json}\n    on_invalid: {revise: 1}\n  - id: after\n    needs: [count]\n    human: \"Is the count right?\"\n",
    )
    .unwrap();
    std::fs::write(
        p.join("writer.sh"),
        "cat >> .prompts.txt\nmkdir -p out\necho '{\"n\": \"<b>many</b>\"}' > out/count.json\necho wrote\n",
    )
    .unwrap();
    std::fs::write(
        p.join("writer.md"),
        "---\nname: writer\n---\nYou are the writer.\n",
    )
    .unwrap();
    std::fs::write(
        p.join("n.schema.json"),
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    )
    .unwrap();
    dir
}

fn start(dir: &Path) {
    let run = rectify()
        .args(["run"])
        .arg(dir.join("workflow.yaml"))
        .args(["--run-id", "r1", "--workdir"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn status_of_a_waiting_run_shows_the_problems_with_locations_and_the_commands_to_continue() {
    let dir = escalating();
    start(dir.path());
    let status = in_dir(dir.path(), &["status", "r1"]);
    assert_eq!(status.code, 0);
    let text = &status.stderr;
    assert!(text.contains("waiting at `count` (exhausted)"), "{text}");
    assert!(text.contains("schema.type"), "{text}");
    assert!(text.contains("(line 1, column"), "located: {text}");
    assert!(text.contains("files: out/count.json"), "{text}");
    assert!(
        text.contains("rectify resume r1 --approve --step count"),
        "{text}"
    );
    assert!(text.contains("--edit PATH=FILE"), "{text}");
    let json = json(&in_dir(dir.path(), &["status", "r1", "--output", "json"]));
    let commands = json["waiting"]["continue"].as_array().unwrap();
    assert!(
        commands
            .iter()
            .any(|c| c.as_str().unwrap().contains("--reject"))
    );
}

#[test]
fn a_json_report_has_every_attempt_raw_answer_and_diagnostics_in_the_check_shape() {
    let dir = escalating();
    start(dir.path());
    let run = in_dir(dir.path(), &["report", "r1", "--output", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = json(&run);
    assert_eq!(report["run"]["id"], "r1");
    assert_eq!(report["run"]["status"], "waiting");
    assert_eq!(report["totals"]["calls"], 2);
    let count = &report["steps"][0];
    assert_eq!(count["id"], "count");
    assert_eq!(count["attempts"], 2);
    assert_eq!(count["calls"].as_array().unwrap().len(), 2);
    assert_eq!(count["calls"][0]["raw"], "wrote\n");
    let revise = count["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "revise")
        .unwrap();
    let d = revise["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "schema.type")
        .unwrap_or_else(|| panic!("{revise:#}"));
    assert_eq!(
        d["path"], "n",
        "flattened like `rectify check --output json`: {d}"
    );
    assert!(d["line"].is_number(), "{d}");
    let kinds: Vec<&str> = count["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"written"), "{kinds:?}");
    assert_eq!(report["waits"][0]["step"], "count");
    let missing = in_dir(dir.path(), &["report", "nope"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("no run `nope`"),
        "{}",
        missing.stderr
    );
}

/// The page, rendered by headless Chromium (installed by `scripts/setup.sh`): it loads with
/// no console errors, its script ran, and it shows the run's steps and what waits.
#[test]
fn the_html_report_renders_in_a_browser_without_errors_and_shows_the_steps() {
    let dir = escalating();
    start(dir.path());
    let run = in_dir(dir.path(), &["report", "r1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("<!doctype html>"));
    assert!(
        !run.stdout.contains("<b>many</b>"),
        "model text is escaped, not markup"
    );
    let page = dir.path().join("report.html");
    std::fs::write(&page, &run.stdout).unwrap();
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
        .expect("chromium is installed (scripts/setup.sh installs it)");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        !log.lines()
            .any(|l| l.contains("CONSOLE") || l.contains("Uncaught")),
        "console messages: {log}"
    );
    assert!(
        dom.contains("data-steps=\"2\""),
        "the page's script ran: {dom}"
    );
    assert!(dom.contains("id=\"step-count\""), "{dom}");
    assert!(dom.contains("id=\"step-after\""), "{dom}");
    assert!(dom.contains("Waiting for a person"), "{dom}");
    assert!(dom.contains("schema.type"), "{dom}");
    assert!(dom.contains("&lt;b&gt;many&lt;/b&gt;"), "{dom}");
}

#[test]
fn decisions_that_cannot_apply_are_refused_and_a_completed_run_is_not_run_again() {
    let dir = escalating();
    start(dir.path());
    let edit = dir.path().join("fixed.json");
    std::fs::write(&edit, "{\"n\": oops").unwrap();
    let bad = in_dir(
        dir.path(),
        &[
            "resume",
            "r1",
            "--edit",
            &format!("out/count.json={}", edit.display()),
            "--output",
            "json",
        ],
    );
    assert_eq!(
        bad.code, 3,
        "an edit that does not parse keeps the run waiting: {}",
        bad.stderr
    );
    assert!(
        std::fs::read_to_string(dir.path().join("out/count.json"))
            .unwrap()
            .contains("many"),
        "the rejected edit was put back"
    );
    std::fs::write(&edit, "{\"n\": 7}\n").unwrap();
    let good = in_dir(
        dir.path(),
        &[
            "resume",
            "r1",
            "--edit",
            &format!("out/count.json={}", edit.display()),
        ],
    );
    assert_eq!(
        good.code, 3,
        "now waiting at the human step: {}",
        good.stderr
    );
    let approved = in_dir(
        dir.path(),
        &["resume", "r1", "--approve", "--output", "json"],
    );
    assert_eq!(approved.code, 0, "{}", approved.stderr);
    let summary: Value = json(&approved);
    assert_eq!(summary["status"], "completed");
    let again = in_dir(dir.path(), &["resume", "r1", "--output", "json"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        json(&again)["notes"][0]
            .as_str()
            .unwrap()
            .contains("completed")
    );
    let approve_again = in_dir(dir.path(), &["resume", "r1", "--approve"]);
    assert_eq!(approve_again.code, 2);
    assert!(
        approve_again.stderr.contains("waits for no decision"),
        "{}",
        approve_again.stderr
    );
    let unknown = in_dir(dir.path(), &["resume", "nope"]);
    assert_eq!(unknown.code, 2);
}

#[test]
fn prune_deletes_old_finished_runs_only() {
    let dir = escalating();
    start(dir.path());
    let none = in_dir(dir.path(), &["runs", "prune", "--older-than", "1d"]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(none.stdout.contains("pruned 0 runs"), "{}", none.stdout);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let pruned = in_dir(dir.path(), &["runs", "prune", "--older-than", "1s"]);
    assert!(
        pruned.stdout.contains("pruned 1 run\n"),
        "{}",
        pruned.stdout
    );
    assert_eq!(in_dir(dir.path(), &["status", "r1"]).code, 2);
    let bad = in_dir(dir.path(), &["runs", "prune", "--older-than", "soon"]);
    assert_eq!(bad.code, 2);
}

/// A working directory whose `slow` step's agent sleeps (`SLOW` seconds), beside a human
/// gate; `after` needs the gate. The agent counts its calls in a file beside the directory
/// (agents work in their own views: a file in the tree shows only when the agent has ended).
fn gated_slow(seconds: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("workflow.yaml"),
        "name: gated\nproviders:\n  sh: {kind: command, command: [sh, agent.sh]}\nagents:\n  worker: worker.md\ndefaults: {provider: sh}\nsteps:\n  - id: slow\n    agent: worker\n    prompt: slow\n    outputs: [{path: slow.txt}]\n  - id: gate\n    human: \"Go on?\"\n  - id: after\n    needs: [gate, slow]\n    agent: worker\n    prompt: after\n    outputs: [{path: after.txt}]\n",
    )
    .unwrap();
    std::fs::write(
        p.join("agent.sh"),
        format!(
            "p=$(cat)\n[ -n \"$p\" ] || exit 3\necho \"$RECTIFY_STEP\" >> '{}'\n[ \"$RECTIFY_STEP\" = slow ] && sleep {seconds}\necho done > \"$RECTIFY_OUTPUTS\"\necho ok\n",
            calls_file(p).display()
        ),
    )
    .unwrap();
    std::fs::write(p.join("worker.md"), "---\nname: worker\n---\nYou work.\n").unwrap();
    dir
}

/// Where `gated_slow`'s agent counts its calls.
fn calls_file(dir: &Path) -> std::path::PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".calls");
    std::path::PathBuf::from(name)
}

fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(args)
        .arg("--workdir")
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !ready() {
        assert!(
            start.elapsed().as_secs() < 30,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(calls_file(dir))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_human_pause_survives_a_kill_before_the_decision() {
    let dir = gated_slow("1");
    let p = dir.path();
    let mut run = spawn(
        p,
        &[
            "run",
            &p.join("workflow.yaml").to_string_lossy(),
            "--run-id",
            "g",
        ],
    );
    // The wait is committed (status shows it) while `slow` is still running: kill -9 now.
    wait_until("the gate's wait", || {
        let s = in_dir(p, &["status", "g", "--output", "json"]);
        s.code == 0
            && json(&s)["steps"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["id"] == "gate" && x["status"] == "waiting")
    });
    run.kill().unwrap();
    run.wait().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let status = json(&in_dir(p, &["status", "g", "--output", "json"]));
    assert_eq!(status["waiting"]["step"], "gate", "{status:#}");
    let done = in_dir(
        p,
        &[
            "resume",
            "g",
            "--approve",
            "--step",
            "gate",
            "--output",
            "json",
        ],
    );
    assert_eq!(done.code, 0, "{}", done.stderr);
    let summary = json(&done);
    assert_eq!(summary["status"], "completed");
    let gate = summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "gate")
        .unwrap();
    assert_eq!(gate["verdict"], "APPROVED");
    let made = calls(p);
    assert_eq!(made.iter().filter(|c| *c == "after").count(), 1, "{made:?}");
    assert!(
        made.iter().filter(|c| *c == "slow").count() <= 2,
        "the call in flight at the kill is made once more at most: {made:?}"
    );
}

#[test]
fn two_resumes_at_once_one_is_refused_with_who_holds_the_run() {
    let dir = gated_slow("2");
    let p = dir.path();
    let mut run = spawn(
        p,
        &[
            "run",
            &p.join("workflow.yaml").to_string_lossy(),
            "--run-id",
            "g",
        ],
    );
    wait_until("the slow agent", || calls(p).iter().any(|c| c == "slow"));
    run.kill().unwrap();
    run.wait().unwrap();
    let first = spawn(p, &["resume", "g"]);
    wait_until("the resumed agent", || {
        calls(p).iter().filter(|c| *c == "slow").count() == 2
    });
    let second = in_dir(p, &["resume", "g", "--approve"]);
    assert_eq!(second.code, 2, "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains(&format!("is being run by process {}", first.id())),
        "{}",
        second.stderr
    );
    let out = first.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = in_dir(p, &["resume", "g", "--approve"]);
    assert_eq!(after.code, 0, "{}", after.stderr);
}

#[test]
fn reject_with_feedback_then_approve_an_exhausted_step_through_the_cli() {
    let dir = escalating();
    let p = dir.path();
    start(p);
    let rejected = in_dir(
        p,
        &[
            "resume",
            "r1",
            "--reject",
            "--feedback",
            "Use a whole number.",
            "--output",
            "json",
        ],
    );
    assert_eq!(rejected.code, 3, "{}", rejected.stderr);
    let prompts = std::fs::read_to_string(p.join(".prompts.txt")).unwrap();
    assert!(prompts.contains("Use a whole number."), "{prompts}");
    assert_eq!(json(&rejected)["waiting"]["step"], "count");
    let approved = in_dir(p, &["resume", "r1", "--approve", "--output", "json"]);
    assert_eq!(
        approved.code, 3,
        "now the human step waits: {}",
        approved.stderr
    );
    let summary = json(&approved);
    assert_eq!(summary["waiting"]["step"], "after");
    let count = summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "count")
        .unwrap();
    assert_eq!(count["status"], "done_with_warnings");
    assert_eq!(count["verdict"], "ACCEPTED_BY_PERSON");
    assert!(
        count["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("accepted by a person with 1 error")),
        "{count:#}"
    );
    let wrong_step = in_dir(p, &["resume", "r1", "--approve", "--step", "count"]);
    assert_eq!(wrong_step.code, 2);
    assert!(
        wrong_step.stderr.contains("does not wait at `count`"),
        "{}",
        wrong_step.stderr
    );
    let done = in_dir(p, &["resume", "r1", "--approve", "--step", "after"]);
    assert_eq!(done.code, 0, "{}", done.stderr);
}

/// Several runs in one store from parallel processes: no "database is locked" failure (WAL,
/// a busy timeout, short transactions).
#[test]
fn parallel_processes_share_one_store() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut steps = String::new();
    for i in 0..8 {
        let _ = write!(
            steps,
            "  - id: s{i}\n    agent: worker\n    prompt: step {i}\n    answer: {{format: text}}\n"
        );
    }
    std::fs::write(
        p.join("workflow.yaml"),
        format!("name: par\nproviders:\n  sh: {{kind: command, command: [sh, agent.sh]}}\nagents:\n  worker: worker.md\ndefaults: {{provider: sh}}\nsteps:\n{steps}"),
    )
    .unwrap();
    std::fs::write(p.join("agent.sh"), "cat >/dev/null\necho ok\n").unwrap();
    std::fs::write(p.join("worker.md"), "---\nname: worker\n---\nYou work.\n").unwrap();
    let children: Vec<_> = (0..4)
        .map(|n| {
            let run = format!("p{n}");
            spawn(
                p,
                &[
                    "run",
                    &p.join("workflow.yaml").to_string_lossy(),
                    "--run-id",
                    &run,
                    "--max-parallel",
                    "4",
                ],
            )
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let list = json(&in_dir(p, &["status", "--output", "json"]));
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    assert!(runs.iter().all(|r| r["status"] == "completed"), "{list:#}");
}

/// The store on a full disk (a 2 MB tmpfs in a private mount namespace,
/// `tests/cli/scripts/full_disk.sh`): the decision fails with a clear error and exit 2, the
/// store is not made worse (the run still waits), and it succeeds once space is freed.
#[test]
fn a_full_disk_is_a_clear_error_and_the_store_is_not_made_worse() {
    let script = crate::support::root().join("crates/rectify-cli/tests/cli/scripts/full_disk.sh");
    let out = Command::new("unshare")
        .arg("-m")
        .arg("sh")
        .arg(&script)
        .arg(assert_cmd::cargo::cargo_bin("rectify"))
        .output()
        .expect("unshare (util-linux) runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_default()
            .to_owned()
    };
    if get("mount") == "failed" || !out.status.success() {
        // Mounting needs root (or a user namespace); the machines this suite runs on allow
        // it. Elsewhere the case cannot be set up: say so loudly rather than fail the suite.
        eprintln!(
            "SKIPPED: cannot mount a tmpfs here: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    assert_eq!(get("run"), "3", "{text}");
    assert_eq!(get("full"), "2", "{text}");
    assert!(get("message").contains("run store"), "{text}");
    assert!(!get("message").contains("panicked"), "{text}");
    assert!(
        get("status").contains("waiting"),
        "the store still holds the pause: {text}"
    );
    assert_eq!(get("after"), "0", "{text}");
    assert_eq!(get("two"), "done", "{text}");
}

/// The report rewrites the diagnostics it keeps to the check shape, never the user's data: an
/// accepted answer that looks like a diagnostic comes back as it was.
#[test]
fn a_json_report_leaves_answers_that_look_like_diagnostics_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let answer = r#"{"severity": "error", "code": "x.y", "location": {"pointer": "/a", "path": "a"}, "message": "m", "source": "s"}"#;
    std::fs::write(
        p.join("workflow.yaml"),
        "name: diag\nproviders:\n  sh: {kind: command, command: [sh, say.sh]}\nagents:\n  say: say.md\ndefaults: {provider: sh}\nsteps:\n  - id: say\n    agent: say\n    prompt: say it\n    answer: {format: json}\n",
    )
    .unwrap();
    std::fs::write(
        p.join("say.sh"),
        format!("cat > /dev/null\necho '{answer}'\n"),
    )
    .unwrap();
    std::fs::write(p.join("say.md"), "---\nname: say\n---\nSay it.\n").unwrap();
    let run = rectify()
        .args(["run"])
        .arg(p.join("workflow.yaml"))
        .args(["--run-id", "d1", "--workdir"])
        .arg(p)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = json(&in_dir(p, &["report", "d1", "--output", "json"]));
    let output = &report["steps"][0]["output"];
    let expected: Value = serde_json::from_str(answer).unwrap();
    assert_eq!(output, &expected, "{report:#}");
}
