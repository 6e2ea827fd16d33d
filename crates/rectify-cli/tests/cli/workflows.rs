//! `rectify run` and `rectify status` on the workflow examples under `examples/workflows/`,
//! each run in a temporary copy of its example (the stand-in agents are scripts of the example,
//! run in the working directory) and asserting the documented JSON, the exit codes and what the
//! agents received (the stand-ins keep every prompt in `.prompts/`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{Run, json, rectify, root};

/// A temporary copy of `examples/workflows/NAME` (without outputs of earlier runs in place).
pub(crate) struct Example {
    _dir: tempfile::TempDir,
    pub(crate) path: PathBuf,
}

impl Example {
    pub(crate) fn new(name: &str) -> Example {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        copy_dir(&root().join("examples/workflows").join(name), &path);
        Example { _dir: dir, path }
    }

    pub(crate) fn file(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.file(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// `rectify ARGS` with `WORKFLOW` (relative to the copy) and `--workdir` the copy.
    fn run(&self, workflow: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = rectify();
        cmd.env_remove("ARCHITECT_NEVER_LEARNS");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.arg("run")
            .arg(self.file(workflow))
            .arg("--workdir")
            .arg(&self.path)
            .args(args);
        finished(&mut cmd)
    }

    fn status(&self, args: &[&str]) -> Run {
        let mut cmd = rectify();
        cmd.arg("status")
            .args(args)
            .arg("--workdir")
            .arg(&self.path);
        finished(&mut cmd)
    }

    /// The prompts the stand-in `role` received, in order.
    /// The prompts `role` received (`.prompts/ROLE-N-PID.txt` or `ROLE-N.txt`), by N, then by the time the
    /// file reached the tree.
    pub(crate) fn prompts(&self, role: &str) -> Vec<String> {
        let mut found = Vec::new();
        let prefix = format!("{role}-");
        for entry in std::fs::read_dir(self.file(".prompts"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(n) = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".txt"))
                .and_then(|rest| rest.split('-').next())
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let at = entry.metadata().and_then(|m| m.modified()).ok();
            found.push((
                n,
                at,
                std::fs::read_to_string(entry.path()).unwrap_or_default(),
            ));
        }
        found.sort_by_key(|f| (f.0, f.1));
        found.into_iter().map(|(_, _, text)| text).collect()
    }
}

/// Outputs of runs made in the example directory itself, never copied.
const OUTPUTS: [&str; 7] = [
    ".prompts",
    ".rectify",
    "specs",
    "work",
    "out",
    "plan.md",
    "plan.yaml",
];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if OUTPUTS.iter().any(|o| name == *o) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn finished(cmd: &mut assert_cmd::Command) -> Run {
    let out = cmd.output().expect("rectify runs");
    Run {
        code: out.status.code().expect("exited normally"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The step `id` of a run summary.
fn step<'a>(summary: &'a Value, id: &str) -> &'a Value {
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {summary:#}"))
}

fn step_ids(summary: &Value) -> Vec<&str> {
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect()
}

/// `(status, attempts, repair_runs, revisions, validations, verdict)` of a step.
fn counters(summary: &Value, id: &str) -> (String, u64, u64, u64, u64, Option<String>) {
    let s = step(summary, id);
    (
        s["status"].as_str().unwrap().to_owned(),
        s["attempts"].as_u64().unwrap(),
        s["repair_runs"].as_u64().unwrap(),
        s["revisions"].as_u64().unwrap(),
        s["validations"].as_u64().unwrap(),
        s["verdict"].as_str().map(str::to_owned),
    )
}

fn c(
    status: &str,
    attempts: u64,
    repair_runs: u64,
    revisions: u64,
    validations: u64,
    verdict: Option<&str>,
) -> (String, u64, u64, u64, u64, Option<String>) {
    (
        status.to_owned(),
        attempts,
        repair_runs,
        revisions,
        validations,
        verdict.map(str::to_owned),
    )
}

/// `rectify status RUN --output json` prints what `rectify run --output json` printed.
fn assert_status_matches(ex: &Example, run: &Value) {
    let id = run["run_id"].as_str().unwrap();
    let status = ex.status(&[id, "--output", "json"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert_eq!(json(&status), *run);
}

#[test]
fn feature_repairs_the_cross_file_reference_and_stops_for_approval() {
    let ex = Example::new("feature");
    let r = ex.run(
        "workflow.yaml",
        &["--run-id", "feat", "--output", "json"],
        &[],
    );
    assert_eq!(r.code, 3, "waiting for a person: {}", r.stderr);
    let v = json(&r);
    assert_eq!(
        (&v["run_id"], &v["workflow"], &v["status"]),
        (&"feat".into(), &"feature".into(), &"waiting".into())
    );
    let w = &v["waiting"];
    assert_eq!(
        (&w["step"], &w["reason"]),
        (&"approve".into(), &"human".into())
    );
    assert_eq!(
        w["message"],
        "Approve the plan in specs/feat/plan.yaml and specs/feat/tasks.yaml?"
    );
    assert_eq!(
        w["files"],
        serde_json::json!(["specs/feat/plan.yaml", "specs/feat/tasks.yaml"])
    );
    assert_eq!(
        step_ids(&v),
        ["spec", "research", "plan", "approve", "implement"]
    );
    assert_eq!(counters(&v, "implement"), c("pending", 0, 0, 0, 0, None));
    assert_eq!(counters(&v, "spec"), c("done", 1, 0, 0, 0, None));
    assert_eq!(counters(&v, "research"), c("done", 1, 0, 0, 0, None));
    assert_eq!(counters(&v, "plan"), c("done", 1, 1, 0, 0, None));
    assert_eq!(counters(&v, "approve"), c("waiting", 0, 0, 0, 0, None));
    assert_status_matches(&ex, &v);

    // The planner put T3 in `phase-3`; the repairer got the located problem and both files,
    // and moved the task to a phase the plan has.
    let repair = ex.prompts("repairer");
    assert_eq!(repair.len(), 1);
    assert!(
        repair[0].contains("write only these files: specs/feat/tasks.yaml, specs/feat/plan.yaml.")
            && repair[0].contains("- specs/feat/tasks.yaml:12:14: tasks[2].phaseId: \"phase-3\" is not one of the plan's phase ids (phase-1, phase-2)")
            && repair[0].contains("## specs/feat/tasks.yaml")
            && repair[0].contains("## specs/feat/plan.yaml"),
        "{}",
        repair[0]
    );
    let tasks = ex.read("specs/feat/tasks.yaml");
    assert!(
        !tasks.contains("phase-3")
            && tasks.contains("    phaseId: phase-2\n    title: Add the export endpoint"),
        "{tasks}"
    );
    assert!(
        ex.prompts("coder").is_empty(),
        "nothing is implemented before the approval"
    );

    let list = ex.status(&["--output", "json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let runs = json(&list);
    assert_eq!(runs["runs"][0]["id"], "feat");
    assert_eq!(runs["runs"][0]["status"], "waiting");
}

#[test]
fn feature_without_approval_implements_the_tasks_by_their_dependencies() {
    let ex = Example::new("feature");
    let r = ex.run("auto.yaml", &["--run-id", "auto", "--output", "json"], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(
        (&v["workflow"], &v["status"], &v["waiting"]),
        (&"feature-auto".into(), &"completed".into(), &Value::Null)
    );
    assert_eq!(counters(&v, "plan"), c("done", 1, 1, 0, 0, None));
    assert_eq!(counters(&v, "implement"), c("done", 0, 0, 0, 0, None));
    for t in ["T1", "T2", "T4"] {
        let id = format!("implement[{t}]");
        assert_eq!(
            counters(&v, &id),
            c("done", 1, 0, 0, 0, Some("PASS")),
            "{id}"
        );
        assert_eq!(step(&v, &id)["warnings"], serde_json::json!([]), "{id}");
    }
    assert_eq!(
        counters(&v, "implement[T3]"),
        c("done_with_warnings", 1, 0, 0, 0, Some("WARN"))
    );
    assert_eq!(
        step(&v, "implement[T3]")["warnings"],
        serde_json::json!(["validator: no tests were added for this task"])
    );
    assert_status_matches(&ex, &v);

    // T1 first; T2 and T3 (both need T1) next; T4 (needs T2 and T3) last.
    let order: Vec<String> = ex
        .prompts("coder")
        .iter()
        .map(|p| {
            p.lines()
                .find_map(|l| l.strip_prefix("Implement "))
                .unwrap()[..2]
                .to_owned()
        })
        .collect();
    assert_eq!(order.len(), 4, "{order:?}");
    assert_eq!(
        (order[0].as_str(), order[3].as_str()),
        ("T1", "T4"),
        "{order:?}"
    );
    assert_eq!(ex.prompts("validator").len(), 4);
    assert_eq!(
        ex.read("specs/auto/work/T3.md"),
        "# T3\n\nChanged: src/invoices/export.rs\nTests: none yet\n"
    );
}

#[test]
fn architect_revises_once_with_the_problems_and_saves_the_plan() {
    let ex = Example::new("architect");
    let r = ex.run(
        "workflow.yaml",
        &["--run-id", "arch", "--output", "json"],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["status"], "completed");
    assert_eq!(step_ids(&v), ["architect"]);
    assert_eq!(counters(&v, "architect"), c("done", 2, 0, 1, 0, None));
    assert_status_matches(&ex, &v);

    let prompts = ex.prompts("architect");
    assert_eq!(prompts.len(), 2);
    assert!(!prompts[0].contains("PREVIOUS VALIDATION FAILED"));
    let block = "## PREVIOUS VALIDATION FAILED\n\nYour previous output did not pass validation. Fix these problems and keep everything else:\n- the plan needs at least two `### Task N:` sections";
    assert!(prompts[1].contains(block), "{}", prompts[1]);
    assert!(
        prompts[1].contains("section \"## Goal\" is empty")
            && prompts[1].contains("the text is 61 characters long, expected at least 400"),
        "{}",
        prompts[1]
    );
    assert!(
        prompts[1].find(block)
            < prompts[1].find("Write the implementation plan for: Export invoices as CSV"),
        "the feedback comes before the task: {}",
        prompts[1]
    );
    let plan = ex.read("plan.md");
    assert!(
        plan.starts_with("# Implementation plan: CSV export of invoices\n\n## Goal\n\nFinance")
            && plan.contains("### Task 3: Serve and link the export"),
        "{plan}"
    );
}

#[test]
fn architect_that_never_learns_escalates_after_three_revisions() {
    let ex = Example::new("architect");
    let r = ex.run(
        "workflow.yaml",
        &["--run-id", "stubborn", "--output", "json"],
        &[("ARCHITECT_NEVER_LEARNS", "1")],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["status"], "waiting", "exhausted is never completed");
    assert_eq!(counters(&v, "architect"), c("waiting", 4, 0, 3, 0, None));
    let w = &v["waiting"];
    assert_eq!(
        (&w["step"], &w["reason"]),
        (&"architect".into(), &"exhausted".into())
    );
    assert_eq!(
        w["message"],
        "the step `architect` is exhausted: the producer revised 3 of 3 time(s); 3 problems remain"
    );
    let codes: Vec<&str> = w["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "rule.markdown_heading",
            "rule.markdown_section",
            "rule.min_length"
        ]
    );
    assert!(
        w["best"].as_str().unwrap().contains("### Step 1: Export"),
        "{w:#}"
    );
    assert_status_matches(&ex, &v);
    assert_eq!(ex.prompts("architect").len(), 4);
    assert!(
        !ex.file("plan.md").exists(),
        "an unaccepted answer is not saved"
    );
}

#[test]
fn orchestrator_validator_fails_a_task_once_and_the_coder_gets_the_findings() {
    let ex = Example::new("orchestrator");
    let r = ex.run(
        "workflow.yaml",
        &["--run-id", "orch", "--output", "json"],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["status"], "completed");
    assert_eq!(counters(&v, "plan"), c("done", 1, 0, 0, 0, None));
    assert_eq!(counters(&v, "implement"), c("done", 0, 0, 0, 0, None));
    assert_eq!(
        counters(&v, "implement[T2]"),
        c("done", 2, 0, 0, 1, Some("PASS"))
    );
    for t in ["T1", "T3"] {
        let id = format!("implement[{t}]");
        assert_eq!(
            counters(&v, &id),
            c("done", 1, 0, 0, 0, Some("PASS")),
            "{id}"
        );
    }
    assert_eq!(
        counters(&v, "implement[T4]"),
        c("done", 1, 0, 0, 0, None),
        "the docs task is not in meta.validation.run_after"
    );
    assert_status_matches(&ex, &v);

    let t2: Vec<String> = ex
        .prompts("coder")
        .into_iter()
        .filter(|p| p.contains("Implement T2: Write invoices as CSV"))
        .collect();
    assert_eq!(t2.len(), 2);
    assert!(!t2[0].contains("PREVIOUS VALIDATION FAILED"), "{}", t2[0]);
    assert!(
        t2[1].contains("## PREVIOUS VALIDATION FAILED\n\nThe validator `validator` judged your previous work FAIL. Fix these findings:\n- [FAIL] no test for empty input (work/T2.md:5)\n\nImplement T2: Write invoices as CSV"),
        "{}",
        t2[1]
    );
    // T1, T2 (FAIL), T2 again (PASS), T3; never T4.
    let validated = ex.prompts("validator");
    assert_eq!(validated.len(), 4);
    assert!(validated.iter().all(|p| !p.contains("implement[T4]")));
    assert!(
        ex.read("work/T2.md")
            .ends_with("Tests: happy path, empty input\n")
    );
}

#[test]
fn dry_run_checks_everything_and_prints_the_levels() {
    let ex = Example::new("feature");
    let r = ex.run("workflow.yaml", &["--dry-run"], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "workflow `feature` is valid: 5 steps\n1. spec\n2. research\n3. plan\n4. approve\n5. implement\n"
    );
    let r = ex.run("auto.yaml", &["--dry-run", "--output", "json"], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        json(&r),
        serde_json::json!({"workflow": "feature-auto", "valid": true,
            "levels": [["spec"], ["research"], ["plan"], ["implement"]]})
    );
    let orch = Example::new("orchestrator");
    let r = orch.run("workflow.yaml", &["--dry-run"], &[]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            0,
            "workflow `orchestrator` is valid: 2 steps\n1. plan\n2. implement\n"
        )
    );
    for ex in [&ex, &orch] {
        assert!(!ex.file(".prompts").exists(), "no agent ran");
        assert!(!ex.file(".rectify").exists(), "no run was stored");
    }
}

/// `(line, column)` (1-based) of the first `needle` in `text`.
fn position(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

#[test]
fn configuration_mistakes_exit_2_located_before_any_agent_runs() {
    let ex = Example::new("feature");
    let good = ex.read("workflow.yaml");
    let typo = "    on_invalid: {repiar: repairer, max: 3}       # the repairer";
    let with_typo = good.replacen(
        "    on_invalid: {repair: repairer, max: 3}       # the repairer",
        typo,
        1,
    );
    let unknown = "    needs: [spec, reserch]";
    let both = with_typo.replacen("    needs: [spec, research]", unknown, 1);
    assert!(both.contains(typo) && both.contains(unknown));
    let only_needs = good.replacen("    needs: [spec, research]", unknown, 1);
    std::fs::write(ex.file("broken.yaml"), &both).unwrap();
    std::fs::write(ex.file("needs.yaml"), &only_needs).unwrap();

    let (line, _) = position(&both, typo);
    let r = ex.run("broken.yaml", &["--output", "json"], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    let at = format!("broken.yaml:{line}:");
    assert!(
        r.stderr.contains(&at)
            && r.stderr.contains("steps[2].on_invalid.repiar: unknown field `repiar`, expected one of `repair`, `max`, `max_turns`, `revise`"),
        "{}",
        r.stderr
    );

    let (line, column) = position(&only_needs, "reserch]");
    let r = ex.run("needs.yaml", &[], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let at = format!(
        "needs.yaml:{line}:{column}: `needs` names an unknown step `reserch` (expected one of spec, research, plan, approve, implement)"
    );
    assert!(r.stderr.contains(&at), "{at}\n{}", r.stderr);
    let r = ex.run("needs.yaml", &["--dry-run"], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&at), "{}", r.stderr);

    assert!(!ex.file(".prompts").exists(), "no agent ran");
    assert!(!ex.file(".rectify").exists(), "no run was stored");
    assert!(!ex.file("specs").exists(), "nothing was written");
}

/// The one example that runs end to end on the real embedded model (fetched by
/// `scripts/setup.sh`): an answer step and a files step the engine writes, both constrained by
/// their schemas, and a command validator.
#[test]
fn local_runs_end_to_end_on_the_embedded_model() {
    let ex = Example::new("local");
    let r = ex.run(
        "workflow.yaml",
        &["--output", "json", "--run-id", "local"],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["status"], "completed");
    assert_eq!(step(&v, "invoice")["status"], "done");
    assert_eq!(step(&v, "reminder")["verdict"], "PASS");
    for (file, schema) in [
        ("out/invoice.json", "schemas/invoice.schema.json"),
        ("out/reminder.json", "schemas/reminder.schema.json"),
    ] {
        let value: Value = serde_json::from_str(&ex.read(file)).unwrap();
        let schema: Value = serde_json::from_str(&ex.read(schema)).unwrap();
        assert!(jsonschema::is_valid(&schema, &value), "{file}: {value}");
    }
    let calls = ex.status(&["local", "--output", "json"]);
    assert_eq!(json(&calls)["status"], "completed");
}

/// SIGTERM during a run: exit 143, the agent's whole process group is killed, and what was
/// committed stays in the store (the run can be shown and resumed).
#[test]
fn sigterm_stops_the_run_kills_the_agents_and_keeps_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let pidfile = root.join("child.pid");
    std::fs::create_dir_all(root.join("agents")).unwrap();
    std::fs::write(root.join("agents/a.md"), "---\nname: a\n---\nWork.\n").unwrap();
    std::fs::write(
        root.join("hang.sh"),
        format!("sleep 60 & echo $! > '{}'; sleep 60\n", pidfile.display()),
    )
    .unwrap();
    std::fs::write(
        root.join("workflow.yaml"),
        format!(
            "name: hang\nproviders:\n  sh: {{kind: command, command: [sh, \"{}\"]}}\ndefaults: {{provider: sh}}\nagents: {{a: agents/a.md}}\nsteps:\n  - {{id: s, agent: a, prompt: go, outputs: [{{path: x.txt}}]}}\n",
            root.join("hang.sh").display()
        ),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("rectify");
    let child = std::process::Command::new(bin)
        .args(["run", "workflow.yaml", "--run-id", "h"])
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !pidfile.exists() && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let agent_child = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("interrupted: the run `h` stopped"),
        "{stderr}"
    );
    let gone = crate::support::process_gone(&agent_child);
    assert!(
        gone,
        "the agent's background child is killed with its process group"
    );
    let status = rectify()
        .args(["status", "h", "--output", "json"])
        .current_dir(root)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(v["status"], "interrupted", "left resumable: {v}");
    assert_eq!(step(&v, "s")["attempts"], 1);
}
