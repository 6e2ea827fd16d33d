//! The loop from JavaScript: the caller's own `execute` function as the model
//! ([`validate_with_retry`]), or a provider chosen as `rectify ask` chooses it ([`NativeClient`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use napi::bindgen_prelude::{Promise, PromiseRaw};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Error, Status};
use napi_derive::napi;
use rectify::engine::{FeedbackMode, Task};
use rectify::provider::spec::ProviderChoice;
use rectify::provider::{Request, from_fn};
use rectify::{Client, Diagnostic, Location, ProviderKind};
use serde_json::Value;

use crate::config::{build_checker, compile_schema, config_error};
use crate::{Cancel, off_thread, wire};

/// The caller's model: called with the feedback (`null` first), resolves to the model's text.
pub type Execute =
    ThreadsafeFunction<Option<String>, Promise<String>, Option<String>, Status, false>;

/// The caller's validator: called with a value (JSON text) that passed the schema and the
/// rules, resolves to the JSON text of a list of problems (`message`, `pointer`, `code`, ...).
/// A promise, so Zod's async refinements (`safeParseAsync`) and async validators can run.
pub type Validate = ThreadsafeFunction<String, Promise<String>, String, Status, false>;

/// Options of one run of the loop.
#[napi(object)]
pub struct NativeLoopOptions {
    /// A JSON Schema as JSON text.
    pub schema: Option<String>,
    /// A JSON Schema file (JSON or YAML).
    pub schema_path: Option<String>,
    /// A rules file.
    pub rules: Option<String>,
    /// Reference documents the rules name: name → file.
    pub refs: Option<HashMap<String, String>>,
    /// Calls of the model at most (default 3).
    pub max_attempts: Option<u32>,
    /// `prefix`, `append`, `suffix` or `fresh`: how a provider's messages carry the feedback.
    pub feedback: Option<String>,
    /// Also apply unsafe repairs.
    pub r#unsafe: Option<bool>,
    /// The prompt (empty for `validateWithRetry`, whose `execute` makes its own).
    pub prompt: Option<String>,
    /// The system prompt.
    pub system: Option<String>,
}

fn feedback_mode(name: &str) -> napi::Result<FeedbackMode> {
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

/// Tasks with an empty prompt and a schema, by the schema's JSON text: `validateWithRetry`
/// called again with the same schema compiles it once (a `Task` shares its compiled schema
/// between clones).
fn cached_schema_task(text: &str) -> napi::Result<Task> {
    static TASKS: OnceLock<Mutex<HashMap<String, Task>>> = OnceLock::new();
    let tasks = TASKS.get_or_init(Mutex::default);
    if let Some(task) = tasks.lock().ok().and_then(|t| t.get(text).cloned()) {
        return Ok(task);
    }
    let value = crate::config::parse_json(text, "schema")?;
    let task = Task::new(String::new())
        .schema(value)
        .map_err(|e| config_error(format!("the schema is not valid: {e}")))?;
    if let Ok(mut t) = tasks.lock() {
        if t.len() >= 64 {
            t.clear();
        }
        t.insert(text.to_owned(), task.clone());
    }
    Ok(task)
}

/// The task of `options`, with the JavaScript validator (run only on values that pass the
/// schema and the rules: it gets a value of the right shape, and its problems do not repeat
/// the schema's).
fn build_task(options: &NativeLoopOptions, validate: Option<Validate>) -> napi::Result<Task> {
    let prompt = options.prompt.clone().unwrap_or_default();
    let mut task = match (&options.schema, &options.schema_path) {
        (Some(text), None) if prompt.is_empty() => cached_schema_task(text)?,
        (schema, path) => match compile_schema(schema.as_deref(), path.as_deref())? {
            Some((value, compiled)) => Task::new(prompt).compiled_schema(value, compiled),
            None => Task::new(prompt),
        },
    };
    if let Some(system) = &options.system {
        task = task.system(system.clone());
    }
    if options.rules.is_some() || options.refs.is_some() {
        let checker = build_checker(None, options.rules.as_deref(), options.refs.as_ref())?;
        task = task.checker(Arc::new(checker));
    }
    if let Some(validate) = validate {
        let gate = task.clone();
        let validate = Arc::new(validate);
        task = task.validator("javascript", move |value: &Value| {
            if wire::has_error(&gate.check_value(value)) {
                return Vec::new();
            }
            call_validator(&validate, value)
        });
    }
    Ok(task)
}

/// Calls the JavaScript validator on the event loop and waits for the promise it returns to
/// settle (on the call's own thread, never on the JavaScript thread).
fn call_validator(validate: &Validate, value: &Value) -> Vec<Diagnostic> {
    let (tx, rx) = std::sync::mpsc::channel();
    let status = validate.call_with_return_value(
        value.to_string(),
        ThreadsafeFunctionCallMode::Blocking,
        move |answer, _env| {
            let _ = tx.send(answer);
            Ok(())
        },
    );
    // The loop runs on a thread of its own (`off_thread`): blocking it blocks no other call.
    let answer = if status == Status::Ok {
        rx.recv().map(|called| called.and_then(wait))
    } else {
        Err(std::sync::mpsc::RecvError)
    };
    let problem = |message: String| {
        vec![Diagnostic::error(
            "validator.failed",
            Location::root(),
            message,
        )]
    };
    match answer {
        Ok(Ok(text)) => match serde_json::from_str::<Vec<Value>>(&text) {
            Ok(problems) => problems.iter().map(wire::diagnostic_from_js).collect(),
            Err(e) => problem(format!(
                "the validator's answer is not a list of problems: {e}"
            )),
        },
        Ok(Err(e)) => problem(format!("the validator failed: {}", e.reason)),
        Err(_) => problem("the validator could not be called".to_owned()),
    }
}

/// Blocks this thread until `future` is ready: a promise of the event loop, settled there
/// (its waker unparks this thread). For the loop's validator, which is synchronous.
fn wait<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// `client` with the options' limits.
fn configure(mut client: Client, options: &NativeLoopOptions) -> napi::Result<Client> {
    let attempts = options.max_attempts.unwrap_or(3);
    if attempts == 0 {
        return Err(config_error("maxAttempts must be at least 1"));
    }
    client = client
        .max_attempts(attempts)
        .allow_unsafe_repairs(options.r#unsafe.unwrap_or(false));
    if let Some(mode) = options.feedback.as_deref() {
        client = client.feedback(feedback_mode(mode)?);
    }
    Ok(client)
}

/// Runs the loop on the runtime: a promise of the outcome's JSON text (`rectify ask --output json`),
/// rejected with `code: "Cancelled"` when `cancel` is cancelled first.
fn start<'env>(
    env: &'env Env,
    client: Client,
    options: &NativeLoopOptions,
    validate: Option<Validate>,
    cancel: Option<&Cancel>,
) -> napi::Result<PromiseRaw<'env, String>> {
    let client = configure(client, options)?;
    let task = build_task(options, validate)?;
    let done = off_thread(
        move || async move { wire::outcome(&client.run(&task).await) },
        cancel.map(Cancel::receiver),
    )?;
    env.spawn_future(done)
}

/// The loop with the caller's `execute` as the model: a promise of the outcome's JSON text.
#[napi(ts_return_type = "Promise<string>")]
pub fn validate_with_retry<'env>(
    env: &'env Env,
    #[napi(ts_arg_type = "(feedback: string | null) => Promise<string>")] execute: Execute,
    options: NativeLoopOptions,
    #[napi(ts_arg_type = "((value: string) => Promise<string>) | undefined | null")]
    validate: Option<Validate>,
    cancel: Option<&Cancel>,
) -> napi::Result<PromiseRaw<'env, String>> {
    let execute = Arc::new(execute);
    let model = from_fn("javascript", move |request: Request| {
        let execute = Arc::clone(&execute);
        async move {
            let promise = execute
                .call_async(request.feedback)
                .await
                .map_err(|e| e.reason.clone())?;
            promise.await.map_err(|e| e.reason.clone())
        }
    });
    start(env, Client::new(model), &options, validate, cancel)
}

/// Options of [`NativeClient`]: the provider and its settings (the environment's otherwise).
#[napi(object)]
pub struct NativeClientOptions {
    /// `openai`, `anthropic`, `command` or `local` (the environment's choice when absent).
    pub provider: Option<String>,
    /// The model name.
    pub model: Option<String>,
    /// The base URL of an OpenAI-compatible server.
    pub base_url: Option<String>,
    /// The command line of a command agent (the prompt on its standard input).
    pub command: Option<Vec<String>>,
}

/// A client over a provider chosen as `rectify ask` chooses it.
#[napi]
pub struct NativeClient {
    client: Client,
    kind: String,
}

#[napi]
impl NativeClient {
    /// The provider the environment names, with the options' changes.
    #[napi(constructor)]
    pub fn new(options: Option<NativeClientOptions>) -> napi::Result<NativeClient> {
        let mut choice = ProviderChoice::from_env().map_err(config_error)?;
        if let Some(o) = options {
            if let Some(p) = o.provider {
                choice.kind = Some(p.parse::<ProviderKind>().map_err(config_error)?);
            }
            if o.model.is_some() {
                choice.model = o.model;
            }
            if o.base_url.is_some() {
                choice.base_url = o.base_url;
            }
            if let Some(c) = o.command {
                choice.command = c;
            }
        }
        let spec = choice.resolve().map_err(config_error)?;
        let kind = format!("{:?}", spec.kind).to_lowercase();
        let client = Client::from_spec(&spec).map_err(|e| match e {
            rectify::Error::Provider { error, .. } => {
                Error::new(Status::GenericFailure, error.to_string())
            }
            other => config_error(other),
        })?;
        Ok(NativeClient { client, kind })
    }

    /// The provider's kind (`openai`, `anthropic`, `command`, `local`).
    #[napi(getter)]
    pub fn provider(&self) -> String {
        self.kind.clone()
    }

    /// One run of the loop: a promise of the outcome's JSON text.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        options: NativeLoopOptions,
        #[napi(ts_arg_type = "((value: string) => Promise<string>) | undefined | null")]
        validate: Option<Validate>,
        cancel: Option<&Cancel>,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        start(env, self.client.clone(), &options, validate, cancel)
    }
}
