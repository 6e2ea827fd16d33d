//! The [`Engine`]: providers (a fallback ladder), settings, prices and event sinks; runs
//! [`Task`]s.

mod run;

use std::fmt;
use std::sync::Arc;

use rectify_provider::{Pricing, Provider};
use rectify_stream::PrefixChecker;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::{Budget, FeedbackLimits, FeedbackMode, LoopConfig};
use crate::evaluate::{AsType, AsValue};
use crate::events::EventSink;
use crate::memory::ErrorMemory;
use crate::outcome::Outcome;
use crate::stream::{StreamEvents, Streaming};
use crate::task::Task;

/// One provider of the fallback ladder, with its own attempt count if set.
#[derive(Clone)]
pub struct Rung {
    provider: Arc<dyn Provider>,
    max_attempts: Option<u32>,
}

impl Rung {
    /// The provider.
    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.provider
    }

    /// Attempts on this rung (the engine's `max_attempts` unless set).
    pub fn max_attempts(&self) -> Option<u32> {
        self.max_attempts
    }
}

/// The validate → repair → feedback → retry engine.
///
/// Holds an ordered list of providers: when one uses up its attempts, the next continues
/// with the feedback gathered so far; when one fails after its transport retries, the next
/// takes over. Cheap to share; one engine runs any number of tasks (concurrently too).
#[derive(Clone)]
pub struct Engine {
    rungs: Vec<Rung>,
    config: LoopConfig,
    pricing: Pricing,
    sinks: Vec<Arc<dyn EventSink>>,
    /// The prefix judge of [`Engine::streaming`], which also says why a stopped answer was
    /// stopped.
    prefix: Option<Arc<PrefixChecker>>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.rungs.iter().map(|r| r.provider.name()).collect();
        f.debug_struct("Engine")
            .field("providers", &names)
            .field("config", &self.config)
            .field("sinks", &self.sinks.len())
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine asking `provider`, with the default settings and the built-in price table.
    pub fn new(provider: impl Provider + 'static) -> Engine {
        Engine::from_arc(Arc::new(provider))
    }

    /// An engine asking a shared provider.
    pub fn from_arc(provider: Arc<dyn Provider>) -> Engine {
        Engine {
            rungs: vec![Rung {
                provider,
                max_attempts: None,
            }],
            config: LoopConfig::default(),
            pricing: Pricing::builtin(),
            sinks: Vec::new(),
            prefix: None,
        }
    }

    /// Adds a fallback provider, asked after the ones before it.
    pub fn fallback(self, provider: impl Provider + 'static) -> Engine {
        self.push_rung(Arc::new(provider), None)
    }

    /// Adds a fallback provider with its own number of attempts.
    pub fn fallback_with_attempts(
        self,
        provider: impl Provider + 'static,
        attempts: u32,
    ) -> Engine {
        self.push_rung(Arc::new(provider), Some(attempts))
    }

    fn push_rung(mut self, provider: Arc<dyn Provider>, max_attempts: Option<u32>) -> Engine {
        self.rungs.push(Rung {
            provider,
            max_attempts,
        });
        self
    }

    /// Replaces every setting.
    pub fn with_config(mut self, config: LoopConfig) -> Engine {
        self.config = config;
        self
    }

    /// Model calls per rung, the first included (default 3).
    pub fn max_attempts(mut self, attempts: u32) -> Engine {
        self.config.max_attempts = attempts;
        self
    }

    /// How feedback reaches the model (default `append`).
    pub fn feedback(mut self, mode: FeedbackMode) -> Engine {
        self.config.feedback = mode;
        self
    }

    /// Caps on the feedback list (default 20 problems, 2,000 characters).
    pub fn feedback_limits(mut self, limits: FeedbackLimits) -> Engine {
        self.config.limits = limits;
        self
    }

    /// Token, cost and time limits of a run.
    pub fn budget(mut self, budget: Budget) -> Engine {
        self.config.budget = budget;
        self
    }

    /// Sets the lowest sampling temperature of re-asks (`None`: keep the task's); see
    /// [`LoopConfig::retry_temperature`].
    pub fn retry_temperature(mut self, temperature: Option<f64>) -> Engine {
        self.config.retry_temperature = temperature;
        self
    }

    /// Allows repairs that may change meaning.
    pub fn allow_unsafe_repairs(mut self, allow: bool) -> Engine {
        self.config.allow_unsafe_repairs = allow;
        self
    }

    /// Replaces the price table used for costs and the cost budget.
    pub fn pricing(mut self, pricing: Pricing) -> Engine {
        self.pricing = pricing;
        self
    }

    /// Adds an event sink (a [`JsonLinesSink`](crate::JsonLinesSink), a closure, ...).
    pub fn sink(mut self, sink: Arc<dyn EventSink>) -> Engine {
        self.sinks.push(sink);
        self
    }

    /// The settings.
    pub fn config(&self) -> &LoopConfig {
        &self.config
    }

    /// The provider rungs, in order.
    pub fn rungs(&self) -> &[Rung] {
        &self.rungs
    }

    /// This engine with every rung whose provider streams ([`Provider::streams`]) wrapped in
    /// [`Streaming`]: its answers are judged by `checker` as they arrive, stopped when
    /// doomed, and reported to `events`. Rungs that do not stream are kept as they are.
    pub fn streaming(&self, checker: &Arc<PrefixChecker>, events: Option<&StreamEvents>) -> Engine {
        let mut engine = self.clone();
        engine.prefix = Some(Arc::clone(checker));
        for rung in &mut engine.rungs {
            if !rung.provider.streams() {
                continue;
            }
            let mut streaming = Streaming::new(Arc::clone(&rung.provider), Arc::clone(checker));
            if let Some(events) = events {
                streaming = streaming.with_events(Arc::clone(events));
            }
            rung.provider = Arc::new(streaming);
        }
        engine
    }

    /// Runs `task` until an answer passes every check or a limit is reached.
    pub async fn run(&self, task: &Task) -> Outcome<Value> {
        run::Run::new(self, task, &AsValue, None).go().await
    }

    /// [`Engine::run`] as a step of a workflow: mistakes of earlier steps in `memory` are
    /// shown to the model, this step's mistakes are added, and forgotten if it succeeds.
    pub async fn run_with_memory(&self, task: &Task, memory: &mut ErrorMemory) -> Outcome<Value> {
        run::Run::new(self, task, &AsValue, Some(memory)).go().await
    }

    /// Runs `task` and deserializes the answer into `T`. When the task has no schema, the
    /// schema of `T` is used; a deserialization failure is fed back like any other problem.
    pub async fn run_typed<T>(&self, task: &Task) -> Outcome<T>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        let task = typed_task::<T>(task);
        run::Run::new(self, &task, &AsType, None).go().await
    }

    /// [`Engine::run_typed`] with the cross-step error memory.
    pub async fn run_typed_with_memory<T>(
        &self,
        task: &Task,
        memory: &mut ErrorMemory,
    ) -> Outcome<T>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        let task = typed_task::<T>(task);
        run::Run::new(self, &task, &AsType, Some(memory)).go().await
    }
}

fn typed_task<T: JsonSchema + 'static>(task: &Task) -> Task {
    if task.schema.is_some() {
        return task.clone();
    }
    // A type whose generated schema does not compile is still checked by deserializing.
    task.clone()
        .schema_of::<T>()
        .unwrap_or_else(|_| task.clone())
}
