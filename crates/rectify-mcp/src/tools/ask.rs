//! `ask`: the retry loop of `rectify ask` over the server's configured provider.

use std::sync::Arc;

use rectify::engine::{Engine, Event, EventKind, FeedbackMode, Task};
use rectify::parse::Limits;
use rectify::provider::spec::ProviderChoice;
use tokio_util::sync::CancellationToken;

use super::schemas::AskParams;
use super::{Reporter, ToolError, ToolResult, to_value};
use crate::{Root, Server, config};

/// At most this many model calls per `ask`, whatever the client asks.
const MAX_ATTEMPTS: u32 = 10;

/// Runs `ask`: progress per attempt; cancelling drops the call in flight (a command agent's
/// process group is killed).
pub async fn ask(
    server: &Server,
    p: AskParams,
    reporter: Reporter,
    ct: CancellationToken,
) -> ToolResult {
    let root = Arc::clone(&server.root);
    let agent = server.agent.clone();
    let say = reporter
        .callback()
        .map(|f| Arc::new(f) as Arc<dyn Fn(String) + Send + Sync>);
    // The loop's task is not `Sync` (its checks may hold anything): it runs on a thread of its
    // own, as `rectify ask` runs it on its own runtime.
    let result = tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ToolError::new(format!("cannot start the async runtime: {e}")))?;
        runtime.block_on(ask_here(&root, &agent, &p, say, &ct))
    })
    .await
    .unwrap_or_else(|e| Err(ToolError::new(format!("the tool stopped: {e}"))));
    reporter.finish().await;
    result
}

async fn ask_here(
    root: &Root,
    agent: &[String],
    p: &AskParams,
    say: Option<Arc<dyn Fn(String) + Send + Sync>>,
    ct: &CancellationToken,
) -> ToolResult {
    let task = task(root, p)?;
    let mut choice = ProviderChoice::default();
    choice.command = agent.to_vec();
    let spec = choice
        .resolve()
        .map_err(|e| ToolError::new(format!("no provider: {e}")))?;
    let provider = rectify::provider_from_spec_with(&spec, rectify::LocalOptions::default())
        .map_err(|e| ToolError::new(format!("the provider cannot be used: {e}")))?;
    let mut engine = Engine::from_arc(provider)
        .max_attempts(p.max_attempts.unwrap_or(3).clamp(1, MAX_ATTEMPTS))
        .feedback(FeedbackMode::default_for(spec.kind));
    if let Some(say) = say {
        engine = engine.sink(Arc::new(move |event: &Event| {
            if let Some(text) = describe(event) {
                say(text);
            }
        }));
    }
    let outcome = tokio::select! {
        outcome = engine.run(&task) => outcome,
        () = ct.cancelled() => return Err(ToolError::new("cancelled: no answer")),
    };
    to_value(&rectify::wire::AskWire::new(&outcome))
}

/// The prompt, the schema and the rules, read beneath the root.
fn task(root: &Root, p: &AskParams) -> Result<Task, ToolError> {
    if p.prompt.trim().is_empty() {
        return Err(ToolError::new("the prompt is empty"));
    }
    let limits = Limits::default();
    let (schema, compiled) = config::schema(root, &p.schema, &limits)?;
    let mut task = Task::new(p.prompt.clone()).compiled_schema(schema, compiled);
    if let Some(system) = &p.system {
        task = task.system(system.clone());
    }
    if let Some(rules) = &p.rules {
        let judge = config::judge(root, &[], Some(rules), &p.refs, &limits)?;
        if let Some(checker) = judge.checker() {
            task = task.checker(Arc::clone(checker));
        }
    }
    Ok(task)
}

/// A progress message for the events a person follows.
fn describe(event: &Event) -> Option<String> {
    match &event.kind {
        EventKind::AttemptStart {
            attempt, provider, ..
        } => Some(format!("attempt {attempt}: asking {provider}")),
        EventKind::AttemptEnd { .. } => Some("answer judged".to_owned()),
        EventKind::ProviderError { error, .. } => Some(format!("provider failed: {error}")),
        _ => None,
    }
}
