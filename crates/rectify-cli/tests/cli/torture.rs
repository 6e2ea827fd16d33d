//! The kill -9 torture test (issue 14): a 41-step workflow (answers, files, a `foreach` with a
//! command validator, repairs and revisions) driven by script agents that log every call.
//! Each trial kills `rectify` with SIGKILL at pseudo-random moments (a fixed seed list), resumes
//! until the run completes, and asserts that
//! - the outputs are byte-identical to an uninterrupted run,
//! - every call the uninterrupted run made was made, with the same prompt, and nothing else,
//! - no call appears twice except at most one per kill (the call in flight when it died),
//! - the step counters are those of the uninterrupted run.
//!
//! `RECTIFY_TORTURE_TRIALS=N` runs N trials instead of the CI's 20 (BENCHMARKS records 200).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The stand-in agent: logs `STEP cksum-of-prompt`, sleeps a little (so kills land inside
/// calls), and answers from the `TASK=kind:name` line of its prompt. Its first answer to a
/// `broken` task is wrong; it answers right when the prompt carries the problems.
const AGENT: &str = r#"set -eu
prompt=$(cat)
# rectify was killed before it sent the prompt: nothing was asked.
[ -n "$prompt" ] || exit 3
sum=$(printf '%s' "$prompt" | cksum | cut -d' ' -f1)
printf '%s %s\n' "$RECTIFY_STEP" "$sum" >> calls.log
sleep 0.005
line=$(printf '%s\n' "$prompt" | grep -o 'TASK=[a-z]*:[A-Za-z0-9_-]*' | head -n1)
kind=${line#TASK=}; kind=${kind%%:*}
name=${line#*:}
fixed=no
if printf '%s' "$prompt" | grep -q -e '^## PREVIOUS VALIDATION FAILED' -e '^## Problems'; then fixed=yes; fi
broken=no
if printf '%s' "$prompt" | grep -q 'BROKEN'; then broken=yes; fi
case "$kind" in
  answer)
    if [ "$broken" = yes ] && [ "$fixed" = no ]; then
      printf '{"id": "%s"}' "$name"
    else
      printf 'Here it is:\n```json\n{"id": "%s", "n": %s,}\n```\n' "$name" "${#name}"
    fi ;;
  file)
    if [ "$broken" = yes ] && [ "$fixed" = no ]; then
      printf '{"id": "%s"}\n' "$name" > "out/$name.json"
    else
      printf '{"id": "%s", "n": %s}\n' "$name" "${#name}" > "out/$name.json"
    fi
    echo wrote ;;
  plan)
    cat > plan.json <<'EOF'
{"tasks": [
  {"id": "t1", "title": "one", "dependsOn": []},
  {"id": "t2", "title": "two", "dependsOn": ["t1"]},
  {"id": "t3", "title": "three", "dependsOn": ["t1"]},
  {"id": "t4", "title": "four", "dependsOn": ["t2", "t3"]},
  {"id": "t5", "title": "five", "dependsOn": []},
  {"id": "t6", "title": "six", "dependsOn": ["t5"]}
]}
EOF
    echo planned ;;
  code)
    if [ "$name" = t3 ] && [ "$fixed" = no ]; then
      printf 'work on %s\n' "$name" > "work/$name.md"
    else
      printf 'work on %s\nTests: ok\n' "$name" > "work/$name.md"
    fi
    echo coded ;;
  *) echo "no task in the prompt" >&2; exit 2 ;;
esac
"#;

/// The command validator: logs its call and passes when every work file has a `Tests:` line.
const JUDGE: &str = r#"set -eu
printf 'judge %s\n' "$(cat work/*.md | cksum | cut -d' ' -f1)" >> calls.log
sleep 0.005
for f in work/*.md; do
  grep -q '^Tests:' "$f" || { echo "$f has no Tests: line"; exit 1; }
done
"#;

const SCHEMA: &str = r#"{"type": "object", "required": ["id", "n"],
  "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}}"#;

/// The workflow: 22 answers, 16 files, a plan, a foreach of 6 tasks with a validator, a
/// summary — 41 steps. Every 5th answer and every 4th file is wrong at first (revised).
fn workflow() -> String {
    let mut text = String::from(
        "name: torture\nproviders:\n  sh: {kind: command, command: [sh, agent.sh]}\ndefaults: {provider: sh, feedback: prefix}\nagents:\n  worker: worker.md\nsteps:\n",
    );
    let mut previous: Option<String> = None;
    for i in 1..=22 {
        let id = format!("a{i:02}");
        let broken = if i % 5 == 0 { " BROKEN" } else { "" };
        let needs = previous
            .as_ref()
            .map_or(String::new(), |p| format!("    needs: [{p}]\n"));
        let _ = write!(
            text,
            "  - id: {id}\n{needs}    agent: worker\n    prompt: \"TASK=answer:{id}{broken}\"\n    answer: {{format: json, schema: item.schema.json, save: answers/{id}.json}}\n    on_invalid: {{revise: 2}}\n"
        );
        previous = Some(id);
    }
    for i in 1..=16 {
        let id = format!("f{i:02}");
        let broken = if i % 4 == 0 { " BROKEN" } else { "" };
        let needs = format!("a{:02}", (i % 22) + 1);
        let _ = write!(
            text,
            "  - id: {id}\n    needs: [{needs}]\n    agent: worker\n    prompt: \"TASK=file:{id}{broken}\"\n    outputs:\n      - {{path: out/{id}.json, schema: item.schema.json}}\n    on_invalid: {{revise: 2}}\n"
        );
    }
    text.push_str(
        "  - id: plan\n    needs: [f16]\n    agent: worker\n    prompt: \"TASK=plan:all\"\n    outputs:\n      - {path: plan.json}\n  - id: build\n    needs: [plan]\n    foreach: {document: plan.json, items: \"$.tasks[*]\", key: \"$.id\", needs: \"$.dependsOn\"}\n    parallel: 1\n    agent: worker\n    prompt: \"TASK=code:{{ item.id }}\"\n    outputs:\n      - {path: \"work/{{ item.id }}.md\"}\n    validate:\n      validators: [{command: [sh, judge.sh]}]\n      max_validation_attempts: 2\n  - id: summary\n    needs: [build, a22]\n    agent: worker\n    prompt: \"TASK=answer:summary\"\n    answer: {format: json, schema: item.schema.json, save: answers/summary.json}\n",
    );
    text
}

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rectify")
}

/// A fresh working directory holding the workflow and its scripts.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("workflow.yaml"), workflow()).unwrap();
    std::fs::write(p.join("agent.sh"), AGENT).unwrap();
    std::fs::write(p.join("judge.sh"), JUDGE).unwrap();
    std::fs::write(p.join("item.schema.json"), SCHEMA).unwrap();
    std::fs::write(
        p.join("worker.md"),
        "---\nname: worker\ndescription: does the task\n---\nYou are the worker.\n",
    )
    .unwrap();
    for d in ["out", "work", "answers"] {
        std::fs::create_dir(p.join(d)).unwrap();
    }
    dir
}

fn command(dir: &Path, resume: bool) -> Command {
    let mut cmd = Command::new(binary());
    if resume {
        cmd.args(["resume", "torture"]);
    } else {
        cmd.args(["run", "workflow.yaml", "--run-id", "torture"]);
    }
    cmd.args(["--max-parallel", "1", "--workdir"])
        .arg(dir)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Whether the store knows the run (a kill may land before the run is recorded).
fn started(dir: &Path) -> bool {
    let out = Command::new(binary())
        .args(["status", "torture", "--workdir"])
        .arg(dir)
        .output()
        .unwrap();
    out.status.success()
}

/// Runs (or resumes) once; kills it after `kill_after` when given. Returns the exit code
/// (`None` when killed).
fn attempt(dir: &Path, kill_after: Option<Duration>) -> Option<i32> {
    let resume = started(dir);
    let mut child = command(dir, resume).spawn().unwrap();
    if let Some(after) = kill_after {
        let deadline = Instant::now() + after;
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            child.wait().unwrap();
            // The killed process's agent (its own process group) may still be finishing.
            std::thread::sleep(Duration::from_millis(120));
            return None;
        }
    }
    let out = child.wait_with_output().unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code == 0,
        "rectify exited {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(code)
}

/// Every file the run wrote (outputs, saved answers), by relative path.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for sub in ["out", "work", "answers"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let entry = entry.unwrap();
            files.insert(
                format!("{sub}/{}", entry.file_name().to_string_lossy()),
                std::fs::read(entry.path()).unwrap(),
            );
        }
    }
    files.insert(
        "plan.json".into(),
        std::fs::read(dir.join("plan.json")).unwrap(),
    );
    files
}

fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("calls.log"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Each step's counters and status, from `rectify status --output json`.
fn counters(dir: &Path) -> Vec<Value> {
    let out = Command::new(binary())
        .args(["status", "torture", "--output", "json", "--workdir"])
        .arg(dir)
        .output()
        .unwrap();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["status"], "completed", "{summary:#}");
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            serde_json::json!([
                s["id"],
                s["status"],
                s["attempts"],
                s["repairs"],
                s["revisions"],
                s["validations"],
                s["verdict"]
            ])
        })
        .collect()
}

/// A small deterministic generator (xorshift), so the trials are the same on every machine.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

struct Baseline {
    outputs: BTreeMap<String, Vec<u8>>,
    calls: Vec<String>,
    counters: Vec<Value>,
    millis: u64,
}

fn baseline() -> Baseline {
    let dir = workdir();
    let start = Instant::now();
    attempt(dir.path(), None);
    let millis = u64::try_from(start.elapsed().as_millis()).unwrap();
    let calls = calls(dir.path());
    let mut unique = calls.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        calls.len(),
        "an uninterrupted run repeats no call"
    );
    Baseline {
        outputs: outputs(dir.path()),
        calls,
        counters: counters(dir.path()),
        millis,
    }
}

/// One trial: up to three kills at pseudo-random moments, then resume to completion.
fn trial(seed: u64, base: &Baseline) -> usize {
    let mut rng = Seeded(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let dir = workdir();
    let kills = 1 + rng.below(3);
    let mut killed = 0;
    for _ in 0..kills {
        let after = Duration::from_millis(rng.below(base.millis * 4 / 5));
        if attempt(dir.path(), Some(after)).is_none() {
            killed += 1;
        } else {
            break;
        }
    }
    if !completed(dir.path()) {
        attempt(dir.path(), None);
    }
    assert_eq!(
        outputs(dir.path()),
        base.outputs,
        "seed {seed}: outputs differ"
    );
    let got = calls(dir.path());
    let mut distinct = got.clone();
    distinct.sort();
    distinct.dedup();
    let mut expected = base.calls.clone();
    expected.sort();
    assert_eq!(distinct, expected, "seed {seed}: the calls made differ");
    let repeated = got.len() - distinct.len();
    assert!(
        repeated <= killed,
        "seed {seed}: {repeated} repeated calls after {killed} kills: {got:#?}"
    );
    let steps = counters(dir.path());
    let differ: Vec<String> = steps
        .iter()
        .zip(&base.counters)
        .filter(|(g, b)| g != b)
        .map(|(g, b)| format!("got {g}, uninterrupted {b}"))
        .collect();
    assert!(
        differ.is_empty() && steps.len() == base.counters.len(),
        "seed {seed}: counters differ after {killed} kills: {differ:#?}\ncalls: {:#?}",
        calls(dir.path())
    );
    killed
}

fn completed(dir: &Path) -> bool {
    let out = Command::new(binary())
        .args(["status", "torture", "--output", "json", "--workdir"])
        .arg(dir)
        .output()
        .unwrap();
    out.status.success()
        && serde_json::from_slice::<Value>(&out.stdout).is_ok_and(|s| s["status"] == "completed")
}

#[test]
fn kill_9_at_random_moments_then_resume_is_exact() {
    let base = baseline();
    let trials: u64 = std::env::var("RECTIFY_TORTURE_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(20);
    // Two trials at a time (each run itself is sequential: `--max-parallel 1`).
    let kills: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let base = &base;
                scope.spawn(move || {
                    (1..=trials)
                        .filter(|seed| seed % 2 == w)
                        .map(|seed| trial(seed, base))
                        .sum::<usize>()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    eprintln!(
        "torture: {trials} trials, {kills} kills, uninterrupted run {} ms",
        base.millis
    );
    assert!(
        2 * kills >= usize::try_from(trials).unwrap(),
        "most trials kill at least once ({kills} kills in {trials} trials)"
    );
}
