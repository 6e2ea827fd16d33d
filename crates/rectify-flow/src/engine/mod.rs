//! The engine: runs a loaded [`Workflow`]'s steps as a DAG, each through produce → read →
//! repair → check → route (repair agent, revise, escalate or fail) → validators, with every
//! state change committed to the [`Store`] before the next side effect.

mod call;
pub(crate) mod check;
mod confine;
mod dag;
mod foreach;
mod paths;
mod produce;
mod prompt;
mod providers;
mod repair;
mod resume;
mod router;
mod step;
mod tree;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rectify_loop::ErrorMemory;
use serde_json::{Map, Value, json};

use crate::load::{Problem, Workflow};
use crate::spec::InputType;
use crate::store::{Event, RunRecord, RunStatus, StepRecord, Store, StoreError, now_ms};
use crate::summary::RunSummary;
use crate::template::Templates;

pub use confine::Allowed;
pub use dag::End;
pub use paths::{inside, read_bounded, read_in, remove_in, write_atomic, write_in};
pub use prompt::FAILED_HEADER;
pub use providers::{CallContext, ProviderFactory, SpecFactory};
pub use resume::{Decision, resume};

/// What happened, for progress displays.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The step (or item).
    pub step: String,
    /// `started`, `attempt`, `repair`, `revise`, `validate`, `done`, `waiting`, `failed`, `skipped`.
    pub what: &'static str,
    /// A short detail.
    pub detail: String,
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// How to run a workflow.
#[derive(Clone)]
pub struct RunOptions {
    /// The run id (default: the workflow's name and a unique suffix).
    pub run_id: Option<String>,
    /// `--input KEY=VALUE` pairs.
    pub inputs: Vec<(String, String)>,
    /// Independent steps run at once (default 2).
    pub max_parallel: usize,
    /// The working directory: outputs are relative to it, agents run in it. On resume, the
    /// directory the run goes on in — the one whose `.rectify/rectify.db` holds it — wherever
    /// it started (a moved or copied directory resumes where it is).
    pub workdir: PathBuf,
    /// Makes providers (default: [`SpecFactory`]).
    pub factory: Arc<dyn ProviderFactory>,
    /// Receives progress.
    pub progress: Option<ProgressFn>,
    /// Schedule tests: `(seed, max_ms)` pauses the engine a random time before each change
    /// it applies to the working tree (0 or `None`: never).
    pub jitter: Option<(u64, u64)>,
    /// How agents' views are made (default: [`crate::isolate::Mode::detect`]).
    pub isolation: Option<crate::isolate::Mode>,
    /// Open agents' views in the run's own task rather than on a blocking thread: the run then
    /// waits only for its calls, so a driver that batches the calls it asks (Restate's journal)
    /// sees the same batches every time. Slower when many units start at once.
    pub inline_views: bool,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("run_id", &self.run_id)
            .field("inputs", &self.inputs)
            .field("max_parallel", &self.max_parallel)
            .field("workdir", &self.workdir)
            .finish_non_exhaustive()
    }
}

impl RunOptions {
    /// Defaults for a run in `workdir`.
    pub fn new(workdir: impl Into<PathBuf>) -> RunOptions {
        RunOptions {
            run_id: None,
            inputs: Vec::new(),
            max_parallel: 2,
            workdir: workdir.into(),
            factory: Arc::new(SpecFactory::default()),
            progress: None,
            jitter: None,
            isolation: None,
            inline_views: false,
        }
    }
}

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The inputs or the run id are wrong (exit 2). Its message is the one every front end
    /// prints: the problem (`--input: the input `n` must be a number, got `x``), or several
    /// under a count, one per line.
    #[error("{}", config_message(.0))]
    Config(Vec<Problem>),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The message of [`RunError::Config`]: one problem as it is, several under their count.
fn config_message(problems: &[Problem]) -> String {
    match problems {
        [one] => one.to_string(),
        many => {
            let lines: Vec<String> = many.iter().map(|p| format!("\n  {p}")).collect();
            format!(
                "the run cannot go on ({} problems):{}",
                many.len(),
                lines.concat()
            )
        }
    }
}

/// One run in progress.
pub(crate) struct Runner {
    wf: Workflow,
    store: Arc<Store>,
    run_id: String,
    workdir: PathBuf,
    factory: Arc<dyn ProviderFactory>,
    progress: Option<ProgressFn>,
    templates: Templates,
    inputs: Value,
    memory: Mutex<ErrorMemory>,
    /// Accepted outputs by step id, for `steps.<id>.output`.
    outputs: Mutex<BTreeMap<String, Value>>,
    /// Validators run one at a time across the whole run.
    validators: tokio::sync::Mutex<()>,
    /// Validation settings of `foreach` items taken from their document.
    item_validation: Mutex<BTreeMap<String, crate::spec::ValidateSpec>>,
    /// Answers recorded by an earlier process of this run, by (unit, role, seq): replayed
    /// instead of calling again.
    recorded: Mutex<std::collections::HashMap<(String, String, u32), crate::store::CallRecord>>,
    /// Units that start from a stored record (counters kept) and with feedback (a person's).
    starts: Mutex<BTreeMap<String, (StepRecord, Option<String>)>>,
    /// Units finished by an earlier process (not run again).
    finished: std::collections::BTreeSet<String>,
    /// Units whose wait no decision resolved (they stay waiting).
    waiting: std::collections::BTreeSet<String>,
    /// Schemas compiled once per run.
    schemas: Arc<check::SchemaCache>,
    /// The shared working tree: every change reaches it through here, under one lock,
    /// logged with the unit that made it (agents work in their own views).
    tree: tree::Tree,
    /// The first store write that failed: the run stops.
    store_error: Mutex<Option<StoreError>>,
}

/// Starts a new run of `wf` and runs it until it completes, fails or waits for a person.
pub async fn run(
    wf: Workflow,
    store: Arc<Store>,
    options: RunOptions,
) -> Result<RunSummary, RunError> {
    let run_id = match &options.run_id {
        Some(id) => id.clone(),
        None => new_run_id(&wf.spec.name),
    };
    if store.run(&run_id)?.is_some() {
        return Err(RunError::Config(vec![Problem::new(
            Path::new("--run-id"),
            format!("a run `{run_id}` exists already (use `rectify resume {run_id}`)"),
        )]));
    }
    let workdir = options.workdir.canonicalize().map_err(|e| {
        RunError::Config(vec![Problem::new(
            &options.workdir,
            format!("the working directory cannot be used: {e}"),
        )])
    })?;
    let inputs = resolve_inputs(&wf, &options.inputs, &run_id)?;
    let memory = ErrorMemory::new(wf.spec.memory.history, wf.spec.memory.cross_step);
    let ids: Vec<&str> = wf.spec.steps.iter().map(|s| s.id.as_str()).collect();
    let record = RunRecord {
        id: run_id.clone(),
        workflow: wf.spec.name.clone(),
        // Absolute, so a resume finds it from any directory (and, when it lies in the working
        // directory, at the same place in a moved or copied one).
        workflow_path: wf
            .path
            .canonicalize()
            .unwrap_or_else(|_| wf.path.clone())
            .display()
            .to_string(),
        workflow_hash: wf.hash.clone(),
        workflow_source: wf.source.clone(),
        workdir: workdir.display().to_string(),
        inputs: inputs.clone(),
        status: RunStatus::Running,
        memory: serde_json::to_string(&memory).ok(),
        created_ms: now_ms(),
        updated_ms: now_ms(),
    };
    store.create_run(&record, &ids)?;
    let runner = Arc::new(Runner::new(
        wf, store, run_id, workdir, &options, inputs, memory,
    ));
    runner.execute(options.max_parallel, &[]).await
}

impl Runner {
    fn new(
        wf: Workflow,
        store: Arc<Store>,
        run_id: String,
        workdir: PathBuf,
        options: &RunOptions,
        inputs: Value,
        memory: ErrorMemory,
    ) -> Runner {
        let schemas = Arc::clone(&wf.schemas);
        crate::isolate::sweep_stale();
        let (seed, max_ms) = options.jitter.unwrap_or_default();
        let mode = options
            .isolation
            .unwrap_or_else(crate::isolate::Mode::detect);
        let tree = tree::Tree::new(workdir.clone(), mode)
            .with_jitter(seed, max_ms)
            .with_inline_views(options.inline_views);
        Runner {
            wf,
            store,
            run_id,
            workdir,
            factory: Arc::clone(&options.factory),
            progress: options.progress.clone(),
            templates: Templates::default(),
            inputs,
            memory: Mutex::new(memory),
            outputs: Mutex::new(BTreeMap::new()),
            validators: tokio::sync::Mutex::new(()),
            item_validation: Mutex::new(BTreeMap::new()),
            recorded: Mutex::new(std::collections::HashMap::new()),
            starts: Mutex::new(BTreeMap::new()),
            finished: std::collections::BTreeSet::new(),
            waiting: std::collections::BTreeSet::new(),
            tree,
            schemas,
            store_error: Mutex::new(None),
        }
    }

    /// Runs every step not ended yet (`prior[i]`: how step `i` ended in an earlier process —
    /// done, or failed, which it stays), then records the run's status by the rules of
    /// [`RunStatus`].
    async fn execute(
        self: &Arc<Self>,
        max_parallel: usize,
        prior: &[Option<End>],
    ) -> Result<RunSummary, RunError> {
        let deps = self.wf.deps.clone();
        let finished: Vec<bool> = prior.iter().map(|e| *e == Some(End::Done)).collect();
        let failed: Vec<bool> = prior.iter().map(|e| *e == Some(End::Failed)).collect();
        let heartbeat = self.heartbeat();
        let me = Arc::clone(self);
        let ends = dag::run(&deps, max_parallel, &finished, move |i| {
            let me = Arc::clone(&me);
            let failed_before = failed.get(i).copied().unwrap_or(false);
            async move {
                if failed_before {
                    End::Failed
                } else {
                    me.run_step(i).await
                }
            }
        })
        .await;
        heartbeat.abort();
        let failed_store = self
            .store_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(e) = failed_store {
            return Err(RunError::Store(e));
        }
        self.persist_skipped(&ends)?;
        let status = run_status(&ends);
        self.store.set_run_status(&self.run_id, status)?;
        // The failure class is read from the stored steps (`Failure::of`), as `status` reads it.
        Ok(RunSummary::load(&self.store, &self.run_id)?)
    }

    /// Records the steps skipped behind a failure (once: a step already recorded skipped by
    /// an earlier process is not written again).
    fn persist_skipped(&self, ends: &[End]) -> Result<(), RunError> {
        if !ends.contains(&End::Skipped) {
            return Ok(());
        }
        let stored = self.store.steps(&self.run_id)?;
        for (i, end) in ends.iter().enumerate() {
            let id = &self.wf.spec.steps[i].id;
            let before = stored.iter().find(|s| &s.id == id).map(|s| s.status.0);
            if *end == End::Skipped && before != Some(crate::store::StepStatus::Skipped) {
                self.persist(
                    &StepRecord {
                        id: id.clone(),
                        status: crate::store::StepStatusField(crate::store::StepStatus::Skipped),
                        ..StepRecord::default()
                    },
                    Event::Skipped,
                );
                self.report(id, "skipped", String::new());
            }
        }
        Ok(())
    }

    /// Renews the run's lease every 5 s while the run goes on (a heartbeat other machines
    /// read to tell a live writer from a dead one).
    fn heartbeat(&self) -> tokio::task::JoinHandle<()> {
        let store = Arc::clone(&self.store);
        let run = self.run_id.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
            tick.tick().await;
            loop {
                tick.tick().await;
                let store = Arc::clone(&store);
                let run = run.clone();
                let beat = tokio::task::spawn_blocking(move || store.heartbeat(&run)).await;
                if !matches!(beat, Ok(Ok(true))) {
                    tracing::warn!("the run's lease could not be renewed");
                }
            }
        })
    }

    /// Writes a step record (see [`Runner::stored`] for failures).
    fn persist(&self, record: &StepRecord, event: Event) {
        self.stored(&record.id, self.store.put_step(&self.run_id, record, event));
    }

    /// The value of a store write; when it failed, the run stops: no unit starts another
    /// attempt or step (a side effect the store could not record would be lost), the units
    /// in flight finish their current call, and the run ends with the first store error
    /// (what was committed stays, so `rectify resume` continues once the store works).
    pub(crate) fn stored<T>(&self, unit: &str, result: Result<T, StoreError>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(step = unit, error = %e, "the run store cannot be written; the run stops");
                self.store_error
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert(e);
                None
            }
        }
    }

    /// Whether a store write failed (no new work starts).
    pub(crate) fn stopped(&self) -> bool {
        self.store_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_some()
    }

    fn report(&self, step: &str, what: &'static str, detail: String) {
        if let Some(p) = &self.progress {
            p(&Progress {
                step: step.to_owned(),
                what,
                detail,
            });
        }
    }

    /// The template context of a step (and item).
    fn context(&self, item: Option<&Value>) -> Value {
        let outputs = self
            .outputs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let steps: Map<String, Value> = outputs
            .iter()
            .map(|(k, v)| (k.clone(), json!({"output": v})))
            .collect();
        let mut ctx = json!({"inputs": self.inputs, "run": {"id": self.run_id}, "steps": steps});
        if let Some(item) = item {
            ctx["item"] = item.clone();
        }
        ctx
    }

    fn render(&self, source: &str, item: Option<&Value>) -> Result<String, String> {
        if !source.contains("{{") && !source.contains("{%") {
            return Ok(source.to_owned());
        }
        self.templates.render(source, &self.context(item))
    }

    /// What a call of `unit` runs with. Its timeout is the step's `timeout_secs`, else the
    /// provider's (`spec`), else the defaults', else 600 s.
    fn call_context(
        &self,
        unit: &produce::Unit,
        env: Vec<(String, String)>,
        spec: Option<&rectify_provider::spec::ProviderSpec>,
    ) -> CallContext {
        let step = self.step_spec(unit);
        let secs = step
            .timeout_secs
            .or_else(|| spec.and_then(|s| s.timeout).map(|d| d.as_secs_f64()))
            .or(self.wf.spec.defaults.timeout_secs)
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(600.0);
        let mut env = env;
        env.push(("RECTIFY_RUN_ID".to_owned(), self.run_id.clone()));
        env.push(("RECTIFY_STEP".to_owned(), step.id.clone()));
        CallContext {
            unit: unit.key.clone(),
            cwd: self.workdir.clone(),
            env,
            timeout: Duration::from_secs_f64(secs),
        }
    }

    fn save_memory(&self) {
        let text = {
            let memory = self
                .memory
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            serde_json::to_string(&*memory).unwrap_or_default()
        };
        self.stored("", self.store.set_memory(&self.run_id, &text));
    }
}

/// The status of a run whose steps ended as `ends` (the rules documented on [`RunStatus`]):
/// completed when every step is done; waiting while any step waits for a person (even if an
/// independent branch failed: that branch stays failed, the waiting one can still go on);
/// failed when nothing waits and a step failed.
fn run_status(ends: &[End]) -> RunStatus {
    if ends.iter().all(|e| *e == End::Done) {
        RunStatus::Completed
    } else if ends.contains(&End::Waiting) {
        RunStatus::Waiting
    } else if ends
        .iter()
        .any(|e| matches!(e, End::Failed | End::ProviderFailed | End::ConfigFailed))
    {
        RunStatus::Failed
    } else {
        RunStatus::Waiting
    }
}

/// A new run id: the workflow's name, the time and a random suffix.
pub fn new_run_id(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(24)
        .collect();
    format!("{slug}-{:x}{:04x}", now_ms(), fastrand::u16(..))
}

/// Inputs from `--input`, defaults and types; every problem at once.
// Long (66 lines): every input problem is collected at once (unknown, missing, default not
// rendering, wrong type), each with its own message.
#[allow(clippy::too_many_lines)]
fn resolve_inputs(
    wf: &Workflow,
    given: &[(String, String)],
    run_id: &str,
) -> Result<Value, RunError> {
    let mut problems = Vec::new();
    let mut values = Map::new();
    for (key, _) in given {
        if !wf.spec.inputs.contains_key(key) {
            problems.push(Problem::new(
                Path::new("--input"),
                format!(
                    "unknown input `{key}` (the workflow declares: {})",
                    wf.spec
                        .inputs
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    let templates = Templates::default();
    for (name, spec) in &wf.spec.inputs {
        let raw = given
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone());
        let raw = match (raw, &spec.default) {
            (Some(v), _) => v,
            (None, Some(default)) => {
                let ctx = json!({"inputs": values, "run": {"id": run_id}});
                match templates.render(default, &ctx) {
                    Ok(v) => v,
                    Err(e) => {
                        problems.push(Problem::new(
                            Path::new("--input"),
                            format!("the default of `{name}` cannot be rendered: {e}"),
                        ));
                        continue;
                    }
                }
            }
            (None, None) => {
                problems.push(
                    Problem::new(
                        Path::new("--input"),
                        format!("the input `{name}` is required"),
                    )
                    .expected(format!("--input {name}=VALUE")),
                );
                continue;
            }
        };
        match typed(&raw, spec.kind) {
            Some(v) => {
                values.insert(name.clone(), v);
            }
            None => problems.push(Problem::new(
                Path::new("--input"),
                format!("the input `{name}` must be a {:?}, got `{raw}`", spec.kind).to_lowercase(),
            )),
        }
    }
    if problems.is_empty() {
        Ok(Value::Object(values))
    } else {
        Err(RunError::Config(problems))
    }
}

fn typed(raw: &str, kind: InputType) -> Option<Value> {
    match kind {
        InputType::String => Some(Value::String(raw.to_owned())),
        InputType::Integer => raw.trim().parse::<i64>().ok().map(Value::from),
        InputType::Number => raw
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from),
        InputType::Boolean => match raw.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
    }
}
