//! `rectify._native`: the Rust half of the `rectify` Python package.
//!
//! Everything here calls the `rectify` crate's public API (the facade and the crates it
//! re-exports); nothing is implemented twice. The Python half (`python/rectify/`) turns pydantic
//! models and dataclasses into JSON Schemas and validators, and the dicts returned here into typed
//! results. Rules of this module:
//!
//! - no panic crosses into Python: errors are Python exceptions of the `rectify.Error`
//!   hierarchy (`rectify._errors`), and a panic inside PyO3 becomes `PanicException`;
//! - the GIL is released while Rust works; the user's callables take it back when called;
//! - an exception raised by the user's code is kept and raised again, unchanged (traceback
//!   included), when the call returns: it is never turned into feedback.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rectify::check::{Checker, CompiledSchema};
use rectify::engine::{FeedbackMode, Outcome, Task};
use rectify::flow::{Decision, RunOptions, RunSummary, Store};
use rectify::parse::Limits;
use rectify::provider::spec::ProviderChoice;
use rectify::provider::{Request, from_fn};
use rectify::repair::RepairOptions;
use rectify::{Client, Diagnostic, Format, ProviderKind};
use serde_json::Value;

mod convert;

use convert::{diagnostic_from_py, diagnostics_to_py, from_py, repairs_to_py, to_py};

pyo3::import_exception!(rectify._errors, ConfigError);
pyo3::import_exception!(rectify._errors, ProviderError);

/// How often a blocked call looks for Ctrl-C (Python's signal handlers run only with the GIL).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The runtime every call runs on (two worker threads for workflows' parallel steps; the
/// calling thread drives the loop itself).
fn runtime() -> PyResult<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("rectify")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the async runtime: {e}")))
}

/// Runs the future `make` makes to its end without the GIL; Ctrl-C (a pending
/// `KeyboardInterrupt`, or any exception a signal handler raises) or `cancel` (set by an
/// awaiting task that was cancelled: signals reach only the main thread) drops it and raises. The
/// future is made and driven on the calling thread (it need not be `Send`).
fn block_on<M, F, T>(py: Python<'_>, cancel: Option<Py<Cancel>>, make: M) -> PyResult<T>
where
    M: FnOnce() -> F + Send,
    F: Future<Output = T>,
    T: Send,
{
    let rt = runtime()?;
    py.detach(|| {
        let future = make();
        rt.block_on(async {
            let signals = async {
                loop {
                    tokio::time::sleep(SIGNAL_POLL).await;
                    if cancel.as_ref().is_some_and(|c| c.get().is_set()) {
                        return pyo3::exceptions::asyncio::CancelledError::new_err(
                            "the call was cancelled",
                        );
                    }
                    if let Err(e) = Python::attach(check_signals) {
                        return e;
                    }
                }
            };
            tokio::select! {
                out = future => Ok(out),
                e = signals => Err(e),
            }
        })
    })
}

/// Set from Python to stop a call running on a worker thread (the task awaiting it was
/// cancelled): the call's future is dropped at the next poll, which stops a command agent's
/// process and an HTTP request in flight.
#[pyclass(name = "Cancel", module = "rectify._native", frozen)]
#[derive(Default)]
struct Cancel(std::sync::atomic::AtomicBool);

#[pymethods]
impl Cancel {
    #[new]
    fn new() -> Self {
        Cancel::default()
    }

    /// Stops the call.
    fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether `cancel()` was called.
    fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Runs Python's signal handlers (a named function: the method path does not satisfy
/// `attach`'s higher-ranked lifetime).
fn check_signals(py: Python<'_>) -> PyResult<()> {
    py.check_signals()
}

/// The first exception the user's Python code raised during a call.
#[derive(Default)]
struct Raised(Mutex<Option<PyErr>>);

impl Raised {
    fn keep(&self, e: PyErr) {
        if let Ok(mut slot) = self.0.lock()
            && slot.is_none()
        {
            *slot = Some(e);
        }
    }

    fn is_set(&self) -> bool {
        self.0.lock().map_or(true, |s| s.is_some())
    }

    fn take(&self) -> Option<PyErr> {
        self.0.lock().ok().and_then(|mut s| s.take())
    }
}

fn config_error(message: impl std::fmt::Display) -> PyErr {
    ConfigError::new_err(message.to_string())
}

fn feedback_mode(name: &str) -> PyResult<FeedbackMode> {
    match name {
        "append" => Ok(FeedbackMode::Append),
        "prefix" => Ok(FeedbackMode::Prefix),
        "suffix" => Ok(FeedbackMode::Suffix),
        "fresh" => Ok(FeedbackMode::Fresh),
        other => Err(config_error(format!(
            "unknown feedback mode `{other}` (use prefix, append, suffix or fresh)"
        ))),
    }
}

fn format_named(name: &str) -> PyResult<Format> {
    name.parse().map_err(config_error)
}

/// A configuration file the checker reads cannot be used (`rectify::setup`'s words).
fn setup_error(e: rectify::setup::SetupError) -> PyErr {
    config_error(e.message)
}

/// A schema given as a JSON value or a file path, compiled.
fn compile_schema(schema: &Bound<'_, PyAny>) -> PyResult<(Value, CompiledSchema)> {
    if let Ok(path) = schema.extract::<PathBuf>()
        && !schema.is_instance_of::<PyDict>()
    {
        let access = rectify::check::RefAccess::SchemaDir;
        return rectify::setup::schema(&path, &Limits::default(), access).map_err(setup_error);
    }
    let value = from_py(schema)?;
    let compiled = CompiledSchema::compile(&value)
        .map_err(|e| config_error(format!("the schema is not valid: {e}")))?;
    Ok((value, compiled))
}

/// The checker of a schema, a rules file and reference documents (`refs`: name → path), built
/// by `rectify::setup` as the command-line tool builds it.
fn build_checker(
    schema: Option<CompiledSchema>,
    rules: Option<&str>,
    refs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Checker> {
    let mut given = Vec::new();
    for (name, path) in refs.iter().flat_map(|r| r.iter()) {
        given.push((name.extract::<String>()?, path.extract::<PathBuf>()?));
    }
    let limits = Limits::default();
    let rules = rules
        .map(|path| rectify::setup::rules(std::path::Path::new(path), &given, &limits))
        .transpose()
        .map_err(setup_error)?;
    rectify::setup::checker(schema, rules).map_err(setup_error)
}

/// `rectify.repair`: `(valid, json, findings)` — the repaired value as compact JSON text (`None`
/// when none was recovered; Python's `json.loads` turns it into objects faster than building
/// them one by one here), and the repairs and diagnostics kept in Rust until Python reads them
/// ([`Findings`]): most callers only want the value, and converting a repair costs more than
/// making it.
/// `repair_to_json` is exactly `repair(..).to_json()`, without building a `serde_json::Value`
/// where it can.
#[pyfunction]
#[pyo3(signature = (text, schema=None, unsafe_=false, format=None))]
fn repair<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    schema: Option<&Bound<'py, PyAny>>,
    unsafe_: bool,
    format: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut options = RepairOptions::default().with_unsafe(unsafe_);
    if let Some(schema) = schema {
        options = options.with_schema(compile_schema(schema)?.0);
    }
    if let Some(f) = format {
        options = options.with_format(Some(format_named(f)?));
    }
    let repaired = if let Ok(s) = text.cast::<PyString>() {
        let s = s.to_cow()?;
        let s: &str = &s;
        detach_if_long(py, s.len(), || rectify::repair::repair_to_json(s, &options))
    } else if let Ok(b) = text.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        detach_if_long(py, bytes.len(), || {
            rectify::repair::repair_bytes_to_json(
                bytes,
                &options,
                rectify::repair::JsonStyle::Compact,
            )
        })
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "repair() takes the model's text as str or bytes",
        ));
    };
    let valid = repaired.is_valid();
    let findings = Findings {
        repairs: repaired.repairs,
        diagnostics: repaired.diagnostics,
    };
    (valid, repaired.json, findings).into_pyobject(py)
}

/// Texts shorter than this are repaired holding the GIL: they take a few microseconds, less
/// than releasing and taking back the GIL costs; longer ones let other Python threads run.
const DETACH_BYTES: usize = 16 * 1024;

/// Runs `work` on a text of `len` bytes, without the GIL when the text is long.
fn detach_if_long<T: Send>(py: Python<'_>, len: usize, work: impl FnOnce() -> T + Send) -> T {
    if len < DETACH_BYTES {
        work()
    } else {
        py.detach(work)
    }
}

/// The repairs and diagnostics of one `repair` call, converted to the wire dicts of `rectify
/// repair --output json` when Python asks for them.
#[pyclass(name = "Findings", module = "rectify._native", frozen)]
struct Findings {
    repairs: rectify::repair::Repairs,
    diagnostics: Vec<Diagnostic>,
}

#[pymethods]
impl Findings {
    /// The repairs, as wire dicts.
    fn repairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        repairs_to_py(py, &self.repairs)
    }

    /// The diagnostics, as wire dicts.
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics_to_py(py, &self.diagnostics)
    }

    /// `(repairs, diagnostics)`: how many of each.
    fn counts(&self) -> (usize, usize) {
        (self.repairs.len(), self.diagnostics.len())
    }
}

/// `rectify.check`: the dict of `rectify check --output json` (`valid`, `diagnostics`,
/// `repairs`). `document` is text (read as `format`, sniffed when `None`) or a value.
#[pyfunction]
#[pyo3(signature = (document, schema=None, rules=None, refs=None, format=None))]
fn check<'py>(
    py: Python<'py>,
    document: &Bound<'py, PyAny>,
    schema: Option<&Bound<'py, PyAny>>,
    rules: Option<PathBuf>,
    refs: Option<&Bound<'py, PyDict>>,
    format: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let compiled = schema.map(compile_schema).transpose()?.map(|(_, c)| c);
    let rules = rules.map(|p| p.to_string_lossy().into_owned());
    let checker = build_checker(compiled, rules.as_deref(), refs)?;
    let (valid, diagnostics) = if let Ok(text) = document.cast::<PyString>() {
        let text = text.to_cow()?.into_owned();
        let format = match format {
            Some(f) => format_named(f)?,
            None => Format::sniff(&text),
        };
        py.detach(|| {
            let parsed = rectify::read_str(&text, format);
            let mut diagnostics = parsed.diagnostics;
            if let Some(doc) = &parsed.document {
                diagnostics.extend(checker.check(doc));
            }
            let valid = parsed.document.is_some() && !diagnostics.iter().any(Diagnostic::is_error);
            (valid, diagnostics)
        })
    } else {
        let value = from_py(document)?;
        py.detach(|| {
            let diagnostics = checker.check_value(&value);
            (!diagnostics.iter().any(Diagnostic::is_error), diagnostics)
        })
    };
    let out = PyDict::new(py);
    out.set_item("valid", valid)?;
    out.set_item("diagnostics", diagnostics_to_py(py, &diagnostics)?)?;
    out.set_item("repairs", PyList::empty(py))?;
    Ok(out)
}

/// The settings of one run of the loop, from Python.
struct LoopArgs {
    /// The prompt, system prompt, schema and rules (no validator yet).
    base: Task,
    validate: Option<Py<PyAny>>,
    max_attempts: u32,
    feedback: Option<FeedbackMode>,
    unsafe_repairs: bool,
}

/// Tasks with an empty prompt and a schema, by the schema's JSON text: `validate_with_retry`
/// called again with the same model compiles its schema once. (A `Task` shares its compiled
/// schema between clones; the prompt cannot be changed afterwards, so only the empty prompt
/// of `validate_with_retry` is cached.)
fn cached_schema_task(value: Value) -> PyResult<Task> {
    static TASKS: OnceLock<Mutex<std::collections::HashMap<String, Task>>> = OnceLock::new();
    let tasks = TASKS.get_or_init(Mutex::default);
    let key = value.to_string();
    if let Some(task) = tasks.lock().ok().and_then(|t| t.get(&key).cloned()) {
        return Ok(task);
    }
    let task = Task::new(String::new())
        .schema(value)
        .map_err(|e| config_error(format!("the schema is not valid: {e}")))?;
    if let Ok(mut t) = tasks.lock() {
        if t.len() >= 64 {
            t.clear();
        }
        t.insert(key, task.clone());
    }
    Ok(task)
}

impl LoopArgs {
    #[allow(clippy::too_many_arguments)]
    fn new(
        prompt: String,
        system: Option<String>,
        schema: Option<&Bound<'_, PyAny>>,
        rules: Option<PathBuf>,
        refs: Option<&Bound<'_, PyDict>>,
        validate: Option<Py<PyAny>>,
        max_attempts: u32,
        feedback: Option<&str>,
        unsafe_repairs: bool,
    ) -> PyResult<LoopArgs> {
        if max_attempts == 0 {
            return Err(config_error("max_attempts must be at least 1"));
        }
        let mut base = match schema {
            Some(schema) if prompt.is_empty() && schema.is_instance_of::<PyDict>() => {
                cached_schema_task(from_py(schema)?)?
            }
            Some(schema) => {
                let (value, compiled) = compile_schema(schema)?;
                Task::new(prompt).compiled_schema(value, compiled)
            }
            None => Task::new(prompt),
        };
        if let Some(system) = system {
            base = base.system(system);
        }
        if rules.is_some() || refs.is_some() {
            let rules = rules.map(|p| p.to_string_lossy().into_owned());
            base = base.checker(Arc::new(build_checker(None, rules.as_deref(), refs)?));
        }
        Ok(LoopArgs {
            base,
            validate,
            max_attempts,
            feedback: feedback.map(feedback_mode).transpose()?,
            unsafe_repairs,
        })
    }

    /// The task: the base, and the Python validator, which runs only on values that pass the
    /// schema and the rules (it gets a value of the right shape, and its problems do not repeat
    /// the schema's). The gate is a clone of the base task: it shares the compiled schema.
    fn task(&mut self, raised: &Arc<Raised>) -> Task {
        let mut task = self.base.clone();
        if let Some(validate) = self.validate.take() {
            let gate = self.base.clone();
            let raised = Arc::clone(raised);
            task = task.validator("python", move |value: &Value| {
                if raised.is_set() || gate.check_value(value).iter().any(Diagnostic::is_error) {
                    return Vec::new();
                }
                Python::attach(|py| {
                    let result = to_py(py, value)
                        .and_then(|v| validate.call1(py, (v,)))
                        .and_then(|problems| {
                            problems
                                .bind(py)
                                .try_iter()?
                                .map(|p| diagnostic_from_py(&p?))
                                .collect::<PyResult<Vec<_>>>()
                        });
                    result.unwrap_or_else(|e| {
                        raised.keep(e);
                        vec![Diagnostic::error(
                            "validator.raised",
                            rectify::Location::root(),
                            "the validator raised an exception",
                        )]
                    })
                })
            });
        }
        task
    }

    fn configure(&self, mut client: Client) -> Client {
        client = client
            .max_attempts(self.max_attempts)
            .allow_unsafe_repairs(self.unsafe_repairs);
        if let Some(mode) = self.feedback {
            client = client.feedback(mode);
        }
        client
    }
}

/// An outcome as a dict: `status` (`valid`, `exhausted`, `refused`, `provider_failed`),
/// `value`, `best` (`attempt`, `value`, `raw`, `diagnostics`), `diagnostics`, `repairs`,
/// `message`, `attempts` (`number`, `provider`, `model`, `raw`, `value`, `diagnostics`,
/// `repairs`, `feedback`, `latency_ms`), `elapsed_ms`.
fn outcome_to_py<'py>(py: Python<'py>, outcome: &Outcome<Value>) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("status", outcome.status())?;
    out.set_item("value", py.None())?;
    out.set_item("best", py.None())?;
    out.set_item("diagnostics", PyList::empty(py))?;
    out.set_item("repairs", PyList::empty(py))?;
    // Classified and worded once, as the command line and the TypeScript package do.
    if let Some((class, message)) = rectify::failure_of(outcome) {
        out.set_item("class", class.as_str())?;
        out.set_item("message", message)?;
    } else {
        out.set_item("class", py.None())?;
        out.set_item("message", py.None())?;
    }
    let ledger = outcome.ledger();
    match outcome {
        Outcome::Valid { value, repairs, .. } => {
            out.set_item("value", to_py(py, value)?)?;
            out.set_item("repairs", repairs_to_py(py, repairs)?)?;
        }
        Outcome::Exhausted {
            best, diagnostics, ..
        } => {
            if let Some(best) = best {
                let b = PyDict::new(py);
                b.set_item("attempt", best.attempt)?;
                b.set_item(
                    "value",
                    match &best.value {
                        Some(v) => to_py(py, v)?,
                        None => py.None().into_bound(py),
                    },
                )?;
                b.set_item("raw", &best.raw)?;
                b.set_item("diagnostics", diagnostics_to_py(py, &best.diagnostics)?)?;
                out.set_item("best", b)?;
            }
            out.set_item("diagnostics", diagnostics_to_py(py, diagnostics)?)?;
        }
        _ => {}
    }
    let attempts = PyList::empty(py);
    for a in &ledger.attempts {
        let d = PyDict::new(py);
        d.set_item("number", a.number)?;
        d.set_item("provider", &a.provider)?;
        d.set_item("model", &a.model)?;
        d.set_item("raw", &a.raw)?;
        d.set_item(
            "value",
            match &a.report.value {
                Some(v) => to_py(py, v)?,
                None => py.None().into_bound(py),
            },
        )?;
        d.set_item("diagnostics", diagnostics_to_py(py, &a.report.diagnostics)?)?;
        d.set_item("repairs", repairs_to_py(py, &a.report.repairs)?)?;
        d.set_item("feedback", a.feedback.as_deref())?;
        d.set_item("latency_ms", a.latency.as_secs_f64() * 1000.0)?;
        attempts.append(d)?;
    }
    out.set_item("attempts", attempts)?;
    out.set_item("elapsed_ms", ledger.totals.elapsed.as_secs_f64() * 1000.0)?;
    Ok(out)
}

/// Runs `task` on `client`, raising the first exception the user's code raised.
fn run_task<'py>(
    py: Python<'py>,
    client: &Client,
    task: &Task,
    raised: &Raised,
    cancel: Option<Py<Cancel>>,
) -> PyResult<Bound<'py, PyDict>> {
    let outcome = block_on(py, cancel, || client.run(task));
    if let Some(e) = raised.take() {
        return Err(e);
    }
    outcome_to_py(py, &outcome?)
}

/// `rectify.validate_with_retry`'s engine: `execute(feedback)` is the model; returns the
/// outcome dict ([`outcome_to_py`]).
#[pyfunction]
#[pyo3(signature = (execute, schema=None, *, max_attempts=3, feedback="prefix", rules=None, refs=None, validate=None, unsafe_=false, prompt=String::new(), cancel=None))]
#[allow(clippy::too_many_arguments)]
fn validate_with_retry<'py>(
    py: Python<'py>,
    execute: Py<PyAny>,
    schema: Option<&Bound<'py, PyAny>>,
    max_attempts: u32,
    feedback: &str,
    rules: Option<PathBuf>,
    refs: Option<&Bound<'py, PyDict>>,
    validate: Option<Py<PyAny>>,
    unsafe_: bool,
    prompt: String,
    cancel: Option<Py<Cancel>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut args = LoopArgs::new(
        prompt,
        None,
        schema,
        rules,
        refs,
        validate,
        max_attempts,
        Some(feedback),
        unsafe_,
    )?;
    let raised = Arc::new(Raised::default());
    let model = {
        let raised = Arc::clone(&raised);
        from_fn("python", move |request: Request| {
            let result = if raised.is_set() {
                Err("stopped: the Python code raised an exception".to_owned())
            } else {
                Python::attach(|py| {
                    execute
                        .call1(py, (request.feedback.as_deref(),))
                        .and_then(|text| text.extract::<String>(py))
                })
                .map_err(|e| {
                    let message = e.to_string();
                    raised.keep(e);
                    message
                })
            };
            std::future::ready(result)
        })
    };
    let client = args.configure(Client::new(model));
    let task = args.task(&raised);
    run_task(py, &client, &task, &raised, cancel)
}

/// A client over a provider chosen as `rectify ask` chooses it.
#[pyclass(name = "NativeClient", module = "rectify._native", frozen)]
struct NativeClient {
    client: Client,
    /// The provider's kind, for `repr`.
    kind: String,
}

#[pymethods]
impl NativeClient {
    /// The provider the environment names (`provider=None`), or the one given: `openai`,
    /// `anthropic`, `command` (with `command`), `local` (only in a build with the embedded
    /// model).
    #[new]
    #[pyo3(signature = (provider=None, *, model=None, base_url=None, command=None))]
    fn new(
        provider: Option<&str>,
        model: Option<String>,
        base_url: Option<String>,
        command: Option<Vec<String>>,
    ) -> PyResult<NativeClient> {
        let mut choice = ProviderChoice::from_env().map_err(config_error)?;
        if let Some(p) = provider {
            choice.kind = Some(p.parse::<ProviderKind>().map_err(config_error)?);
        }
        if model.is_some() {
            choice.model = model;
        }
        if base_url.is_some() {
            choice.base_url = base_url;
        }
        if let Some(c) = command {
            choice.command = c;
        }
        let spec = choice.resolve().map_err(config_error)?;
        let kind = format!("{:?}", spec.kind).to_lowercase();
        let client = Client::from_spec(&spec).map_err(|e| match e {
            rectify::Error::Provider { error, .. } => ProviderError::new_err(error.to_string()),
            other => config_error(other),
        })?;
        Ok(NativeClient { client, kind })
    }

    /// One run of the loop: the outcome dict.
    #[pyo3(signature = (prompt, schema=None, *, system=None, max_attempts=3, feedback=None, rules=None, refs=None, validate=None, unsafe_=false, cancel=None))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        prompt: String,
        schema: Option<&Bound<'py, PyAny>>,
        system: Option<String>,
        max_attempts: u32,
        feedback: Option<&str>,
        rules: Option<PathBuf>,
        refs: Option<&Bound<'py, PyDict>>,
        validate: Option<Py<PyAny>>,
        unsafe_: bool,
        cancel: Option<Py<Cancel>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut args = LoopArgs::new(
            prompt,
            system,
            schema,
            rules,
            refs,
            validate,
            max_attempts,
            feedback,
            unsafe_,
        )?;
        let raised = Arc::new(Raised::default());
        let client = args.configure(self.client.clone());
        let task = args.task(&raised);
        run_task(py, &client, &task, &raised, cancel)
    }

    fn __repr__(&self) -> String {
        format!("Client(provider={:?})", self.kind)
    }
}

fn summary_to_py<'py>(py: Python<'py>, summary: &RunSummary) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(summary)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot convert the run summary: {e}")))?;
    to_py(py, &value)
}

fn run_error(e: rectify::flow::RunError) -> PyErr {
    match e {
        rectify::flow::RunError::Config(_) => config_error(e),
        other @ rectify::flow::RunError::Store(_) => PyRuntimeError::new_err(other.to_string()),
    }
}

/// After Ctrl-C stopped a run (its work already dropped): records it as `interrupted` and
/// gives up its lease, as `rectify run` does, so `status` tells it is not running and `resume`
/// continues it at once, even from this process. Returns the interruption.
fn interrupted(store: &Store, run_id: &str, error: PyErr) -> PyErr {
    // A failure to record it leaves the run to the stale-lease check: not worth hiding the
    // interruption behind.
    let _ = store.release(run_id, rectify::flow::RunStatus::Interrupted);
    error
}

fn open_store(workdir: &std::path::Path) -> PyResult<Arc<Store>> {
    Store::open(workdir)
        .map(Arc::new)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot open the run store: {e}")))
}

/// `rectify.run`: loads and runs a workflow; the run summary as a dict.
#[pyfunction]
#[pyo3(signature = (workflow, inputs, workdir, run_id=None, max_parallel=2))]
fn run_workflow(
    py: Python<'_>,
    workflow: PathBuf,
    inputs: Vec<(String, String)>,
    workdir: PathBuf,
    run_id: Option<String>,
    max_parallel: usize,
) -> PyResult<Bound<'_, PyAny>> {
    let wf = rectify::flow::load(&workflow).map_err(config_error)?;
    let store = open_store(&workdir)?;
    let mut options = RunOptions::new(&workdir);
    options.inputs = inputs;
    options.max_parallel = max_parallel;
    // Named here, so an interrupted run can be recorded as such (the engine names it the same
    // way when it is not given).
    let run_id = run_id.unwrap_or_else(|| rectify::flow::engine::new_run_id(&wf.spec.name));
    options.run_id = Some(run_id.clone());
    let running = Arc::clone(&store);
    let summary = block_on(py, None, move || rectify::flow::run(wf, running, options))
        .map_err(|e| interrupted(&store, &run_id, e))?
        .map_err(run_error)?;
    summary_to_py(py, &summary)
}

/// `rectify.resume`: continues a run with a decision (`continue`, `approve`, `reject` with
/// `feedback`, `edit` with `edits`: output path → file holding the new content).
#[pyfunction]
#[pyo3(signature = (run_id, workdir, decision, step=None, feedback=None, edits=None, max_parallel=2))]
#[allow(clippy::too_many_arguments)]
fn resume_workflow<'py>(
    py: Python<'py>,
    run_id: &str,
    workdir: PathBuf,
    decision: &str,
    step: Option<String>,
    feedback: Option<String>,
    edits: Option<Vec<(String, PathBuf)>>,
    max_parallel: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let decision = match decision {
        "continue" => Decision::Continue,
        "approve" => Decision::Approve { step },
        "reject" => Decision::Reject {
            step,
            feedback: feedback.unwrap_or_default(),
        },
        "edit" => Decision::Edit {
            step,
            edits: edits.unwrap_or_default(),
        },
        other => return Err(config_error(format!("unknown decision `{other}`"))),
    };
    if Store::open_existing(&workdir)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot open the run store: {e}")))?
        .is_none()
    {
        return Err(config_error(format!(
            "no run `{run_id}`: `{}` has no run store (.rectify/rectify.db)",
            workdir.display()
        )));
    }
    let store = open_store(&workdir)?;
    let mut options = RunOptions::new(&workdir);
    options.max_parallel = max_parallel;
    let running = Arc::clone(&store);
    let summary = block_on(py, None, move || {
        rectify::flow::resume(running, run_id, decision, options)
    })
    .map_err(|e| interrupted(&store, run_id, e))?
    .map_err(run_error)?;
    summary_to_py(py, &summary)
}

/// `rectify.status`: the summary of a run, `None` when the store has no such run.
#[pyfunction]
fn run_status<'py>(
    py: Python<'py>,
    run_id: &str,
    workdir: PathBuf,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(store) = Store::open_existing(&workdir)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot open the run store: {e}")))?
    else {
        return Ok(None);
    };
    let summary = RunSummary::find(&store, run_id)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot read the run store: {e}")))?;
    summary.map(|s| summary_to_py(py, &s)).transpose()
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(validate_with_retry, m)?)?;
    m.add_function(wrap_pyfunction!(run_workflow, m)?)?;
    m.add_function(wrap_pyfunction!(resume_workflow, m)?)?;
    m.add_function(wrap_pyfunction!(run_status, m)?)?;
    m.add_class::<NativeClient>()?;
    m.add_class::<Findings>()?;
    m.add_class::<Cancel>()?;
    m.add("LOCAL_MODEL", cfg!(feature = "local"))?;
    Ok(())
}
