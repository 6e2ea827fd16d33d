//! Streaming runs (issue 40): the value as it arrives, answers stopped when doomed, every
//! attempt as it ends, then the result — what instructor's `Partial` and the AI SDK's
//! `streamObject` give, over the same loop as [`Client::extract`](crate::Client::extract).
//!
//! [`Client::extract_stream`](crate::Client::extract_stream) and
//! [`Client::extract_value_stream`](crate::Client::extract_value_stream) return a
//! [`RunStream`] of [`Update`]s; [`run`] streams an [`Engine`] and a [`Task`] and ends with
//! the whole [`Outcome`]. Providers that stream (the OpenAI-compatible and Anthropic ones) are
//! read with [`rectify_loop::Streaming`]; the others (a command agent, the embedded model, a
//! function) give no partial values: their attempts and the result only.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use rectify_core::Diagnostic;
use rectify_loop::{Engine, Event, EventKind, EventSink, Outcome, StreamEvent, Task};
use rectify_provider::{FinishReason, Usage};
pub use rectify_stream::Partial;

/// One step of a streaming run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Update<R> {
    /// The answer of `attempt` read so far: the value, its final paths, the one in progress.
    Partial {
        /// The 1-based attempt the answer belongs to.
        attempt: u32,
        /// The value so far.
        partial: Partial,
    },
    /// The answer of `attempt` was stopped: it could no longer be valid. The attempt ends
    /// next (judged and fed back) and the model is asked again at once.
    Abort {
        /// The attempt stopped.
        attempt: u32,
        /// Why, as the checks say it.
        diagnostics: Vec<Diagnostic>,
        /// Bytes received when it was stopped.
        received: usize,
    },
    /// An attempt ended and its answer was judged.
    Attempt(AttemptEnd),
    /// The run ended: the last update.
    Done(R),
}

/// An attempt as it ended (the whole record is in the outcome's ledger).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AttemptEnd {
    /// 1-based attempt number.
    pub number: u32,
    /// The provider's name.
    pub provider: String,
    /// The model that answered.
    pub model: String,
    /// Why generation stopped ([`rectify_provider::STOPPED`] when rectify stopped it).
    pub finish_reason: FinishReason,
    /// The answer passed every check.
    pub valid: bool,
    /// The answer's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// What the provider or rectify noted about the call.
    pub notices: Vec<String>,
    /// Tokens used.
    pub usage: Usage,
    /// Cost in US dollars, when priced.
    pub cost: Option<f64>,
    /// Provider latency.
    pub latency: Duration,
    /// Transport retries.
    pub transport_retries: u32,
}

/// The updates of one run, in order, ending with [`Update::Done`]. A
/// [`futures_core::Stream`], and [`RunStream::next`] without one. Nothing happens until it
/// is polled; dropping it cancels the run.
#[must_use = "a run stream does nothing until it is polled"]
pub struct RunStream<R> {
    queue: Arc<Queue<R>>,
    run: Option<Pin<Box<dyn Future<Output = R> + Send>>>,
}

impl<R> std::fmt::Debug for RunStream<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.run.is_some())
            .finish_non_exhaustive()
    }
}

impl<R: Send + 'static> RunStream<R> {
    /// A stream over `engine`'s run of `task`, its result made by `finish` from the
    /// outcome.
    pub(crate) fn start<O, F>(engine: &Engine, task: &Task, run: F) -> RunStream<R>
    where
        F: FnOnce(Engine, Task) -> O,
        O: Future<Output = R> + Send + 'static,
    {
        let queue = Arc::new(Queue::default());
        let checker = Arc::new(task.prefix_checker(engine.config().allow_unsafe_repairs));
        let events: rectify_loop::StreamEvents = {
            let queue = Arc::clone(&queue);
            Arc::new(move |event: &StreamEvent| queue.stream_event(event))
        };
        let engine = engine
            .streaming(&checker, Some(&events))
            .sink(Arc::clone(&queue) as Arc<dyn EventSink>);
        RunStream {
            queue,
            run: Some(Box::pin(run(engine, task.clone()))),
        }
    }

    /// A stream that ends at once with `result` (a call that could not start).
    pub(crate) fn ready(result: R) -> RunStream<R> {
        let queue = Arc::new(Queue::default());
        queue.push(Update::Done(result));
        RunStream { queue, run: None }
    }

    /// The next update; `None` after [`Update::Done`].
    pub async fn next(&mut self) -> Option<Update<R>> {
        std::future::poll_fn(|cx| self.poll_update(cx)).await
    }

    /// Runs to the end and returns the result, dropping the updates.
    pub async fn result(mut self) -> Option<R> {
        while let Some(update) = self.next().await {
            if let Update::Done(result) = update {
                return Some(result);
            }
        }
        None
    }

    fn poll_update(&mut self, cx: &mut Context<'_>) -> Poll<Option<Update<R>>> {
        if let Some(update) = self.queue.pop() {
            return Poll::Ready(Some(update));
        }
        let Some(run) = self.run.as_mut() else {
            return Poll::Ready(None);
        };
        if let Poll::Ready(result) = run.as_mut().poll(cx) {
            self.run = None;
            self.queue.push(Update::Done(result));
        }
        match self.queue.pop() {
            Some(update) => Poll::Ready(Some(update)),
            None => Poll::Pending,
        }
    }
}

impl<R> Unpin for RunStream<R> {}

impl<R: Send + 'static> futures_core::Stream for RunStream<R> {
    type Item = Update<R>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Update<R>>> {
        self.get_mut().poll_update(cx)
    }
}

/// Streams `engine`'s run of `task`: partial values, aborts and attempts, then the whole
/// [`Outcome`] (what `rectify ask --stream` prints).
pub fn run(engine: &Engine, task: &Task) -> RunStream<Outcome> {
    RunStream::start(engine, task, |engine, task| async move {
        engine.run(&task).await
    })
}

/// The updates waiting to be taken, and what the attempt in flight has said so far.
struct Queue<R> {
    state: Mutex<QueueState<R>>,
}

struct QueueState<R> {
    updates: VecDeque<Update<R>>,
    attempt: u32,
    diagnostics: Vec<Diagnostic>,
    notices: Vec<String>,
}

impl<R> Default for Queue<R> {
    fn default() -> Self {
        Queue {
            state: Mutex::new(QueueState {
                updates: VecDeque::new(),
                attempt: 0,
                diagnostics: Vec::new(),
                notices: Vec::new(),
            }),
        }
    }
}

impl<R> Queue<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, update: Update<R>) {
        self.lock().updates.push_back(update);
    }

    fn pop(&self) -> Option<Update<R>> {
        self.lock().updates.pop_front()
    }

    fn stream_event(&self, event: &StreamEvent) {
        let mut state = self.lock();
        let attempt = state.attempt;
        let update = match event {
            StreamEvent::Partial(partial) => Update::Partial {
                attempt,
                partial: partial.clone(),
            },
            StreamEvent::Abort {
                diagnostics,
                received,
            } => Update::Abort {
                attempt,
                diagnostics: diagnostics.clone(),
                received: *received,
            },
        };
        state.updates.push_back(update);
    }
}

impl<R: Send> EventSink for Queue<R> {
    fn emit(&self, event: &Event) {
        let mut state = self.lock();
        match &event.kind {
            EventKind::AttemptStart { attempt, .. } => {
                state.attempt = *attempt;
                state.diagnostics.clear();
                state.notices.clear();
            }
            EventKind::Diagnostics { diagnostics, .. } => {
                state.diagnostics.clone_from(diagnostics);
            }
            EventKind::ProviderNotice { message, .. } => state.notices.push(message.clone()),
            EventKind::AttemptEnd {
                attempt,
                provider,
                model,
                finish_reason,
                valid,
                usage,
                cost,
                latency,
                transport_retries,
                ..
            } => {
                let end = AttemptEnd {
                    number: *attempt,
                    provider: provider.clone(),
                    model: model.clone(),
                    finish_reason: finish_reason.clone(),
                    valid: *valid,
                    diagnostics: std::mem::take(&mut state.diagnostics),
                    notices: std::mem::take(&mut state.notices),
                    usage: *usage,
                    cost: *cost,
                    latency: *latency,
                    transport_retries: *transport_retries,
                };
                state.updates.push_back(Update::Attempt(end));
            }
            _ => {}
        }
    }
}
