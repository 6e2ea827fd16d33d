//! Workflow engine overhead on the seed-004 graph (issue 11, "Performance").
//!
//! `cargo bench -p rectify-bench --bench flow -- --warm-up-time 1 --measurement-time 5`
//! (`crates/rectify-bench/scripts/peers_flow.sh` runs it beside LangGraph and prints the table).
//!
//! The graph is seed 004's feature pipeline stretched to 11 producers in a chain, each with its
//! validate/repair pair: every answer is read as JSON, deterministically repaired when needed,
//! checked against a schema, and on failure sent back to its producer (`revise: 3`, seed 004's
//! three attempts). Producers answer at once with a fixed valid document (a zero-latency
//! [`Provider`] behind a [`ProviderFactory`]), so every microsecond measured is rectify's:
//! templates, prompts, the call record, reading, repair and schema check, routing and the
//! store's transactions.
//!
//! - `flow_seed004/in_memory`: one run of the 11 steps with [`Store::in_memory`];
//! - `flow_seed004/durable`: the same with [`Store::open`] on a temporary directory (WAL,
//!   `synchronous=FULL`, one transaction per state change);
//! - `flow_split/*`: where the durable time goes: one `put_step` and one `record_call`
//!   transaction alone, in memory and durable, and an fsync of 4 KiB (`write` + `fdatasync`)
//!   on the same file system — the floor of one durable commit.
//!
//! Divide a run's time by 11 for the per-step overhead. Before measuring, the bench prints
//! `FLOW_* key=value` lines: bytes stored per run ([`Store::run_bytes`]), growth of
//! `.rectify/rectify.db` per run (the store closed, so the WAL is checkpointed into it), and
//! the working directory it leaves for timing `rectify status` (`FLOW_STATUS_DIR`, 10
//! completed runs; set `FLOW_STATUS_DIR` to choose it).
//!
//! A run of this graph is 46 transactions: the run's row and its final status, and per step
//! `started`, `attempt`, the raw answer and `done`.

// A bench whose fixed workflow does not load or run must stop loudly, not measure nothing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group};
use rectify_flow::engine::CallContext;
use rectify_flow::store::{CallRecord, StepRecord, StepStatus, StepStatusField};
use rectify_flow::{ProviderFactory, RunOptions, RunStatus, Store, Workflow, load};
use rectify_provider::spec::ProviderSpec;
use rectify_provider::{
    Capabilities, CompletionFuture, FinishReason, Provider, ProviderError, Request, Response, Usage,
};

/// Seed 004's producers (spec analysis, requirements, research, plan, tasks, implementation)
/// and the reviews and documents a feature pipeline adds, 11 in all.
const STEPS: [&str; 11] = [
    "analyze",
    "requirements",
    "research",
    "plan",
    "tasks",
    "implement",
    "review",
    "test",
    "docs",
    "changelog",
    "release",
];

/// The fixed, valid answer of every producer (the LangGraph script's producers return the
/// same text).
const ANSWER: &str = r#"{"name": "feature", "summary": "A producer that answers at once.", "items": ["spec", "plan", "tasks"]}"#;

const SCHEMA: &str = r#"{
  "type": "object",
  "required": ["name", "summary", "items"],
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "summary": {"type": "string", "minLength": 1},
    "items": {"type": "array", "minItems": 1, "items": {"type": "string"}}
  }
}"#;

/// A provider that answers every request at once with [`ANSWER`].
struct Instant;

impl Provider for Instant {
    fn complete<'a>(&'a self, _request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(async {
            Ok(Response {
                text: ANSWER.to_owned(),
                finish_reason: FinishReason::Stop,
                usage: Usage::default(),
                model: "instant".to_owned(),
                latency: Duration::ZERO,
                transport_retries: 0,
                raw: String::new(),
                notices: Vec::new(),
            })
        })
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    fn name(&self) -> &'static str {
        "instant"
    }
}

/// Hands out the one [`Instant`] provider for every agent.
struct InstantFactory(Arc<dyn Provider>);

impl ProviderFactory for InstantFactory {
    fn provider(
        &self,
        _spec: &ProviderSpec,
        _context: &CallContext,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        Ok(Arc::clone(&self.0))
    }
}

/// The workflow file: 11 answer steps in a chain, each checked against the schema and
/// revised on failure.
fn workflow_yaml() -> String {
    use std::fmt::Write as _;
    let mut yaml = String::from(
        "name: seed004\nproviders:\n  instant: {kind: openai, model: instant}\nagents:\n  producer: agents/producer.md\nsteps:\n",
    );
    for (i, id) in STEPS.iter().enumerate() {
        let _ = writeln!(yaml, "  - id: {id}");
        if i > 0 {
            let _ = writeln!(yaml, "    needs: [{}]", STEPS[i - 1]);
        }
        let _ = write!(
            yaml,
            "    agent: producer\n    prompt: Write the {id} document of the feature.\n    answer: {{format: json, schema: doc.schema.json}}\n    on_invalid: {{revise: 3}}\n"
        );
    }
    yaml
}

/// Writes the workflow, its agent and schema under `dir` and loads it.
fn workflow(dir: &Path) -> Workflow {
    std::fs::create_dir_all(dir.join("agents")).unwrap();
    std::fs::write(dir.join("doc.schema.json"), SCHEMA).unwrap();
    std::fs::write(
        dir.join("agents/producer.md"),
        "---\nname: producer\nprovider: instant\n---\nYou write one document of a feature as JSON.\n",
    )
    .unwrap();
    let path = dir.join("workflow.yaml");
    std::fs::write(&path, workflow_yaml()).unwrap();
    match load(&path) {
        Ok(wf) => wf,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

/// Runs the workflow, checking that it completed; returns its run id.
struct Bench {
    wf: Workflow,
    runtime: tokio::runtime::Runtime,
    factory: Arc<dyn ProviderFactory>,
    next: AtomicU64,
}

impl Bench {
    fn new(wf: Workflow) -> Bench {
        // The runtime `rectify run` builds.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        Bench {
            wf,
            runtime,
            factory: Arc::new(InstantFactory(Arc::new(Instant))),
            next: AtomicU64::new(0),
        }
    }

    /// What one run needs, built outside the timed part (the caller owns the workflow).
    fn setup(&self, workdir: &Path) -> (Workflow, RunOptions) {
        let mut options = RunOptions::new(workdir);
        options.factory = Arc::clone(&self.factory);
        options.run_id = Some(format!("run-{}", self.next.fetch_add(1, Ordering::Relaxed)));
        (self.wf.clone(), options)
    }

    fn run(&self, store: &Arc<Store>, (wf, options): (Workflow, RunOptions)) -> String {
        let id = options.run_id.clone().unwrap();
        let summary = self
            .runtime
            .block_on(rectify_flow::run(wf, Arc::clone(store), options))
            .unwrap();
        assert_eq!(summary.status, RunStatus::Completed, "{summary:#?}");
        assert_eq!(summary.steps.len(), STEPS.len());
        id
    }
}

/// A temporary directory with the workflow's files and a working directory.
struct Dirs {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    Dirs {
        _tmp: tmp,
        root,
        work,
    }
}

fn db_size(work: &Path) -> u64 {
    std::fs::metadata(work.join(".rectify/rectify.db")).map_or(0, |m| m.len())
}

/// Prints the bytes a run stores and leaves a working directory for `rectify status`.
fn report_bytes() {
    const RUNS: u64 = 200;
    let d = dirs();
    let bench = Bench::new(workflow(&d.root));
    let in_memory = Arc::new(Store::in_memory().unwrap());
    let id = bench.run(&in_memory, bench.setup(&d.work));
    println!(
        "FLOW_RUN_BYTES in_memory={}",
        in_memory.run_bytes(&id).unwrap()
    );
    // Growth of the database file: one run first (schema, first pages), then RUNS more; the
    // store is closed each time, so the WAL is checkpointed into the file and removed.
    let store = Arc::new(Store::open(&d.work).unwrap());
    let id = bench.run(&store, bench.setup(&d.work));
    let run_bytes = store.run_bytes(&id).unwrap();
    drop(store);
    let before = db_size(&d.work);
    let store = Arc::new(Store::open(&d.work).unwrap());
    for _ in 0..RUNS {
        bench.run(&store, bench.setup(&d.work));
    }
    drop(store);
    let after = db_size(&d.work);
    println!(
        "FLOW_RUN_BYTES durable={run_bytes} db_growth_per_run={} runs={RUNS}",
        (after - before) / RUNS
    );
    println!("FLOW_DB_AFTER_RUNS runs={} bytes={after}", RUNS + 1);
    status_dir(&bench);
}

/// A working directory with 10 completed runs, for timing `rectify status`.
fn status_dir(bench: &Bench) {
    let dir = std::env::var_os("FLOW_STATUS_DIR").map_or_else(
        || {
            let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
                || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
                PathBuf::from,
            );
            target.join("peers-flow/status-work")
        },
        PathBuf::from,
    );
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = Arc::new(Store::open(&dir).unwrap());
    let mut last = String::new();
    for _ in 0..10 {
        last = bench.run(&store, bench.setup(&dir));
    }
    let dir = dir.canonicalize().unwrap();
    println!("FLOW_STATUS_DIR dir={} last_run={last}", dir.display());
}

fn bench_flow(c: &mut Criterion) {
    let d = dirs();
    let bench = Bench::new(workflow(&d.root));
    let mut group = c.benchmark_group("flow_seed004");
    let in_memory = Arc::new(Store::in_memory().unwrap());
    group.bench_function("in_memory", |b| {
        b.iter_batched(
            || bench.setup(&d.work),
            |run| black_box(bench.run(&in_memory, run)),
            BatchSize::SmallInput,
        );
    });
    let durable = Arc::new(Store::open(&d.work).unwrap());
    group.bench_function("durable", |b| {
        b.iter_batched(
            || bench.setup(&d.work),
            |run| black_box(bench.run(&durable, run)),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

/// One store transaction alone, and the fsync floor under it.
fn bench_split(c: &mut Criterion) {
    let d = dirs();
    let bench = Bench::new(workflow(&d.root));
    let mut group = c.benchmark_group("flow_split");
    let stores = [
        ("in_memory", Arc::new(Store::in_memory().unwrap())),
        ("durable", Arc::new(Store::open(&d.work).unwrap())),
    ];
    for (name, store) in &stores {
        let run = bench.run(store, bench.setup(&d.work));
        let mut record = StepRecord {
            id: "analyze".to_owned(),
            status: StepStatusField(StepStatus::Running),
            attempts: 1,
            ..StepRecord::default()
        };
        group.bench_function(format!("put_step/{name}"), |b| {
            b.iter(|| {
                record.attempts += 1;
                store
                    .put_step(&run, &record, rectify_flow::store::Event::Attempt)
                    .unwrap();
            });
        });
        let call = CallRecord {
            step: "analyze".to_owned(),
            role: "producer".to_owned(),
            seq: 1,
            prompt_hash: "0123456789abcdef".to_owned(),
            raw: ANSWER.to_owned(),
            input_tokens: 0,
            output_tokens: 0,
            outcome: rectify_flow::store::CallOutcome::default(),
            at_ms: 0,
        };
        group.bench_function(format!("record_call/{name}"), |b| {
            b.iter(|| black_box(store.record_call(&run, &call, &[]).unwrap()));
        });
    }
    let path = d.work.join("fsync.bin");
    let mut file = std::fs::File::create(&path).unwrap();
    let page = vec![7u8; 4096];
    group.bench_function("fsync_4k", |b| {
        use std::io::{Seek, SeekFrom, Write};
        b.iter(|| {
            file.seek(SeekFrom::Start(0)).unwrap();
            file.write_all(&page).unwrap();
            file.sync_data().unwrap();
        });
    });
    group.finish();
}

criterion_group!(benches, bench_flow, bench_split);

fn main() {
    // `cargo bench` passes `--bench`; the bytes report runs once, before the timings.
    report_bytes();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
