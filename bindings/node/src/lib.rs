//! The native half of the `rectify` npm package (`native/rectify.*.node`, loaded by the
//! generated `native/index.js`).
//!
//! Everything here calls the `rectify` crate's public API (the facade and the crates it
//! re-exports); nothing is implemented twice. The TypeScript half (`ts/`) turns Zod schemas into
//! JSON Schemas and validators, and the JSON texts returned here into typed results and errors.
//! Rules of this module:
//!
//! - no panic crosses into JavaScript: failures are rejected promises or thrown errors, with
//!   `code: "InvalidArg"` for a configuration error (the TypeScript layer's `ConfigError`);
//! - every call that waits (the loop, a provider, a workflow) runs on napi's tokio runtime and
//!   returns a promise: the event loop stays free, and the caller's `execute` and validators are
//!   called back on it through threadsafe functions;
//! - results cross as one JSON text each (see [`wire`]).

// napi's macros register the exports only outside `cfg(test)`: the test build of this crate
// sees them as unused.
#![cfg_attr(test, allow(dead_code))]

use napi::bindgen_prelude::{Buffer, Either};
use napi_derive::napi;
use rectify::Format;
use rectify::repair::{JsonStyle, RepairOptions};
use std::sync::OnceLock;

use tokio::sync::watch;

mod config;
mod engine;
mod flow;
mod wire;

use config::{build_checker, compile_schema, format_named, parse_json};

/// A cancellation handle: the TypeScript layer makes one per call that takes an `AbortSignal`
/// and cancels it when the signal aborts; the call's future is dropped at once.
#[napi]
pub struct Cancel {
    tx: watch::Sender<bool>,
}

#[napi]
impl Cancel {
    /// A handle not yet cancelled.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Cancel {
        Cancel {
            tx: watch::Sender::new(false),
        }
    }

    /// Cancels the call this handle was given to (a second call does nothing).
    #[napi]
    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }
}

impl Cancel {
    fn receiver(&self) -> watch::Receiver<bool> {
        self.tx.subscribe()
    }
}

/// The runtime the calls run on (two worker threads for workflows' parallel steps).
fn runtime() -> napi::Result<&'static tokio::runtime::Runtime> {
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
        .map_err(|e| config::failure(format!("cannot start the async runtime: {e}")))
}

/// Runs the future `make` makes on a thread of its own (the loop's futures are not `Send`:
/// they are made and driven there, as `block_on` on [`runtime`] drives them), and returns a
/// future of its result that napi can await. Dropped with its result when `cancel` is
/// cancelled first: the promise rejects with `code: "Cancelled"`.
fn off_thread<M, F, T>(
    make: M,
    cancel: Option<watch::Receiver<bool>>,
) -> napi::Result<impl Future<Output = napi::Result<T>> + Send + 'static>
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = napi::Result<T>>,
    T: Send + 'static,
{
    off_thread_or(make, cancel, || ())
}

/// [`off_thread`], with `on_cancel` called on the call's thread once the cancelled future is
/// dropped (its agents killed) and before the promise rejects: a workflow records its run as
/// interrupted there, so whoever the rejection wakes can resume it at once.
fn off_thread_or<M, F, T, C>(
    make: M,
    cancel: Option<watch::Receiver<bool>>,
    on_cancel: C,
) -> napi::Result<impl Future<Output = napi::Result<T>> + Send + 'static>
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = napi::Result<T>>,
    T: Send + 'static,
    C: FnOnce() + Send + 'static,
{
    let rt = runtime()?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("rectify-call".into())
        .spawn(move || {
            // The select ends inside `block_on`: the future is dropped before `on_cancel` runs.
            let out = rt.block_on(async {
                tokio::select! {
                    out = make() => Some(out),
                    () = cancelled(cancel) => None,
                }
            });
            let out = out.unwrap_or_else(|| {
                on_cancel();
                Err(napi::Error::new(
                    napi::Status::Cancelled,
                    "the call was cancelled",
                ))
            });
            let _ = tx.send(out);
        })
        .map_err(|e| config::failure(format!("cannot start a thread: {e}")))?;
    Ok(async move {
        rx.await
            .map_err(|_| config::failure("the call ended without a result"))?
    })
}

/// Resolves when `cancel` is cancelled; never when there is none (or its handle is gone).
async fn cancelled(cancel: Option<watch::Receiver<bool>>) {
    if let Some(mut rx) = cancel
        && rx.wait_for(|c| *c).await.is_ok()
    {
        return;
    }
    std::future::pending::<()>().await;
}

/// Options of [`repair`].
#[napi(object)]
pub struct NativeRepairOptions {
    /// A JSON Schema (JSON text) that guides the repair (types, required keys).
    pub schema: Option<String>,
    /// Also apply unsafe repairs (they may change the meaning).
    pub r#unsafe: Option<bool>,
    /// `json`, `yaml` or `markdown` (sniffed when absent).
    pub format: Option<String>,
}

/// Repairs a model's text: the JSON text of `rectify repair --output json` (`{valid, value,
/// diagnostics, repairs}`; `value` is `null` when nothing could be recovered).
#[napi]
pub fn repair(
    text: Either<String, Buffer>,
    options: Option<NativeRepairOptions>,
) -> napi::Result<String> {
    let mut opts = RepairOptions::default();
    if let Some(o) = options {
        opts = opts.with_unsafe(o.r#unsafe.unwrap_or(false));
        if let Some((value, _)) = compile_schema(o.schema.as_deref(), None)? {
            opts = opts.with_schema(value);
        }
        if let Some(f) = o.format.as_deref() {
            opts = opts.with_format(Some(format_named(f)?));
        }
    }
    let repaired = match &text {
        Either::A(s) => rectify::repair::repair_to_json(s, &opts),
        Either::B(b) => rectify::repair::repair_bytes_to_json(b, &opts, JsonStyle::Compact),
    };
    wire::repair(
        repaired.is_valid(),
        repaired.json.as_deref(),
        &repaired.diagnostics,
        &repaired.repairs,
    )
}

/// Options of [`check_text`] and [`check_value`].
#[napi(object)]
pub struct NativeCheckOptions {
    /// A JSON Schema as JSON text.
    pub schema: Option<String>,
    /// A JSON Schema file (JSON or YAML).
    pub schema_path: Option<String>,
    /// A rules file.
    pub rules: Option<String>,
    /// Reference documents the rules name: name → file.
    pub refs: Option<std::collections::HashMap<String, String>>,
    /// The format of the text (`json`, `yaml`, `markdown`; sniffed when absent).
    pub format: Option<String>,
}

fn checker_of(options: &NativeCheckOptions) -> napi::Result<rectify::check::Checker> {
    let schema = compile_schema(options.schema.as_deref(), options.schema_path.as_deref())?;
    build_checker(
        schema.map(|(_, c)| c),
        options.rules.as_deref(),
        options.refs.as_ref(),
    )
}

/// Checks a document given as text (with line and column in its diagnostics): the JSON text of
/// `rectify check --output json` (`{valid, diagnostics, repairs}`).
#[napi]
pub fn check_text(text: String, options: NativeCheckOptions) -> napi::Result<String> {
    let checker = checker_of(&options)?;
    let format = match options.format.as_deref() {
        Some(f) => format_named(f)?,
        None => Format::sniff(&text),
    };
    let parsed = rectify::read_str(&text, format);
    let mut diagnostics = parsed.diagnostics;
    if let Some(doc) = &parsed.document {
        diagnostics.extend(checker.check(doc));
    }
    let valid = parsed.document.is_some() && !wire::has_error(&diagnostics);
    wire::check(valid, &diagnostics)
}

/// Checks a value (given as JSON text): the JSON text of `rectify check --output json`.
#[napi]
pub fn check_value(json: String, options: NativeCheckOptions) -> napi::Result<String> {
    let checker = checker_of(&options)?;
    let value = parse_json(&json, "value")?;
    let diagnostics = checker.check_value(&value);
    wire::check(!wire::has_error(&diagnostics), &diagnostics)
}

/// Whether this build has the embedded model (the `local` feature).
#[napi]
pub fn has_local_model() -> bool {
    cfg!(feature = "local")
}
