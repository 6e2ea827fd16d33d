//! Properties of parallel units under random schedules: random workflows of independent steps
//! whose script agents sleep random times (and the engine pauses randomly before each change
//! it applies), at `--max-parallel` 2 to 4. In every schedule:
//!
//! - every step reported done has on disk exactly the bytes the store recorded for it last (no
//!   allowed write of one unit is undone or lost);
//! - a write outside a unit's outputs is reported on that unit (and with `strict` never
//!   reaches the tree), and never on another;
//! - the error memory holds only mistakes that were made, by the step that made them.
//!
//! `RECTIFY_SCHEDULES` sets how many (default 200); a failure prints the schedule's seed, and
//! `RECTIFY_SCHEDULE_SEED=N` runs that one alone.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::format_push_string,
    clippy::map_unwrap_or
)]

#[path = "flow/support.rs"]
#[allow(dead_code)]
mod support;

use std::fmt::Write as _;
use std::sync::Arc;

use rectify_flow::{RunOptions, RunStatus, Store, load};
use sha2::{Digest, Sha256};
use support::Fixture;

const SCHEMA: &str =
    r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#;

/// What a unit's producer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Writes a valid output.
    Valid,
    /// A trailing comma: repaired deterministically and written back.
    Trailing,
    /// Fails the schema: the repair agent fixes it.
    Invalid,
    /// Also writes a file outside its outputs.
    Stray,
    /// Also writes garbage over another unit's output.
    Poach,
}

struct Schedule {
    seed: u64,
    kinds: Vec<Kind>,
    strict: bool,
    parallel: usize,
}

impl Schedule {
    fn new(seed: u64) -> Schedule {
        let mut rng = fastrand::Rng::with_seed(seed);
        let n = rng.usize(3..=6);
        let kinds = (0..n)
            .map(|_| match rng.u8(0..10) {
                0..=2 => Kind::Valid,
                3..=4 => Kind::Trailing,
                5..=6 => Kind::Invalid,
                7..=8 => Kind::Stray,
                _ => Kind::Poach,
            })
            .collect();
        Schedule {
            seed,
            kinds,
            strict: rng.bool(),
            parallel: rng.usize(2..=4),
        }
    }

    /// Writes the workflow and the scripts; agent sleeps drawn from the seed.
    fn write(&self, f: &Fixture) {
        let mut rng = fastrand::Rng::with_seed(self.seed ^ 0x5eed);
        let n = self.kinds.len();
        let mut steps = String::new();
        let mut names = vec!["fixer".to_owned()];
        for (i, kind) in self.kinds.iter().enumerate() {
            let ms = rng.u32(0..40);
            let body = match kind {
                Kind::Valid => format!("echo '{{\"n\": {i}}}' > out/{i}.json"),
                Kind::Trailing => format!("echo '{{\"n\": {i},}}' > out/{i}.json"),
                Kind::Invalid => format!("echo '{{\"n\": \"{i}\"}}' > out/{i}.json"),
                Kind::Stray => {
                    format!("echo '{{\"n\": {i}}}' > out/{i}.json; echo x > stray-{i}.txt")
                }
                Kind::Poach => format!(
                    "echo '{{\"n\": {i}}}' > out/{i}.json; echo garbage > out/{}.json",
                    (i + 1) % n
                ),
            };
            let name = format!("p{i}");
            f.script(&name, &format!("sleep 0.{ms:03}; mkdir -p out; {body}"));
            let _ = write!(
                steps,
                "  - id: s{i}\n    agent: {name}\n    prompt: go\n    outputs: [{{path: out/{i}.json, schema: schema.json}}]\n    on_invalid: {{repair: fixer, max: 2}}\n"
            );
            names.push(name);
        }
        let ms = rng.u32(0..40);
        f.script(
            "fixer",
            &format!(
                "sleep 0.{ms:03}; for o in $RECTIFY_OUTPUTS; do echo '{{\"n\": 100}}' > \"$o\"; done"
            ),
        );
        let confine = if self.strict { "strict" } else { "report" };
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        f.file("schema.json", SCHEMA);
        f.workflow(&format!(
            "name: sched\n{}defaults: {{confine: {confine}}}\nsteps:\n{steps}",
            f.agents_yaml(&refs)
        ));
    }
}

fn sha(bytes: &[u8]) -> String {
    rectify_flow::load::hex(&Sha256::digest(bytes))
}

/// Runs one schedule and returns every property it breaks.
fn check(schedule: &Schedule, rt: &tokio::runtime::Runtime) -> Vec<String> {
    let f = Fixture::new();
    schedule.write(&f);
    let store = Arc::new(Store::open(&f.work).unwrap());
    let wf = load(&f.root.join("workflow.yaml")).unwrap();
    let mut options = RunOptions::new(&f.work);
    options.max_parallel = schedule.parallel;
    options.jitter = Some((schedule.seed, 5));
    // Every fourth schedule in copy views (the others as the machine allows: overlay as root).
    if schedule.seed.is_multiple_of(4) {
        options.isolation = Some(rectify_flow::isolate::Mode::Copy);
    }
    let s = rt
        .block_on(rectify_flow::run(wf, Arc::clone(&store), options))
        .unwrap();
    let mut broken = Vec::new();
    if s.status == RunStatus::Failed {
        broken.push(format!("the run failed: {s:#?}"));
    }
    let links = store.links(&s.run_id).unwrap();
    for (i, kind) in schedule.kinds.iter().enumerate() {
        let id = format!("s{i}");
        let step = s.steps.iter().find(|x| x.id == id).unwrap();
        let done = step.status.starts_with("done");
        let out = format!("out/{i}.json");
        let last = links.iter().rfind(|l| l.step == id && l.path == out);
        let disk = std::fs::read(f.work.join(&out)).ok();
        if done {
            match (last, &disk) {
                (Some(l), Some(bytes)) if l.hash == sha(bytes) => {}
                _ => broken.push(format!(
                    "{id} is done but `{out}` on disk ({:?}) is not what the store recorded",
                    disk.as_deref().map(String::from_utf8_lossy)
                )),
            }
        }
        let stray = f.work.join(format!("stray-{i}.txt"));
        let said = |needle: &str| {
            step.warnings.iter().any(|w| w.contains(needle))
                || step.diagnostics.iter().any(|d| d.message.contains(needle))
                || s.waits.iter().any(|w| {
                    w.step == id && w.diagnostics.iter().any(|d| d.message.contains(needle))
                })
        };
        if *kind == Kind::Stray {
            if schedule.strict && stray.exists() {
                broken.push(format!("{id}'s write outside its outputs reached the tree"));
            }
            if !said(&format!("stray-{i}.txt")) {
                broken.push(format!("{id}'s write outside its outputs was not reported"));
            }
        }
        for (j, other) in schedule.kinds.iter().enumerate() {
            if j != i && *other == Kind::Stray && said(&format!("stray-{j}.txt")) {
                broken.push(format!("{id} was blamed for s{j}'s write"));
            }
        }
    }
    let memory = store
        .run(&s.run_id)
        .unwrap()
        .unwrap()
        .memory
        .unwrap_or_default();
    let memory: serde_json::Value = serde_json::from_str(&memory).unwrap_or_default();
    for entry in memory["entries"].as_array().into_iter().flatten() {
        let step = entry["step"].as_str().unwrap_or_default();
        let code = entry["code"].as_str().unwrap_or_default();
        let i: usize = step.trim_start_matches('s').parse().unwrap_or(usize::MAX);
        let text = entry["text"].as_str().unwrap_or_default();
        let n = schedule.kinds.len();
        let made = match schedule.kinds.get(i) {
            Some(Kind::Invalid) => code.starts_with("schema"),
            Some(Kind::Stray) => code == "flow.confinement" && text.contains(&format!("stray-{i}")),
            // Writing another step's output before that step claimed it is a breach it made.
            Some(Kind::Poach) => {
                code == "flow.confinement" && text.contains(&format!("out/{}.json", (i + 1) % n))
            }
            _ => false,
        };
        if !made {
            broken.push(format!(
                "the memory holds a mistake {step} did not make: {code} {text}"
            ));
        }
    }
    broken
}

#[test]
fn parallel_units_keep_every_property_under_random_schedules() {
    let count: u64 = std::env::var("RECTIFY_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let base: u64 = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5c4e_d01e);
    let seeds: Vec<u64> = match std::env::var("RECTIFY_SCHEDULE_SEED") {
        Ok(one) => vec![one.parse().unwrap()],
        Err(_) => (0..count).map(|k| base.wrapping_add(k)).collect(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut failures = Vec::new();
    for seed in seeds {
        let schedule = Schedule::new(seed);
        let broken = check(&schedule, &rt);
        if !broken.is_empty() {
            failures.push(format!(
                "schedule seed {seed} (RECTIFY_SCHEDULE_SEED={seed}; {:?}, strict {}, parallel {}):\n  {}",
                schedule.kinds,
                schedule.strict,
                schedule.parallel,
                broken.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
