//! Streaming attempts (issue 40): a provider wrapper that reads each answer as it arrives,
//! judges every prefix with a [`PrefixChecker`], and stops an answer that can no longer be
//! valid. The loop itself is unchanged: the stopped answer comes back as the attempt's
//! response — the text received (raw, cut by us), `finish_reason`
//! [`STOPPED`](rectify_provider::STOPPED), and a notice saying why — so it is judged,
//! recorded in the ledger and fed back like any other answer, and the next attempt is asked
//! at once.

use std::sync::Arc;

use rectify_core::Diagnostic;
use rectify_provider::{
    Capabilities, CompletionFuture, Provider, ProviderError, Request, Response, StreamSink,
};
use rectify_stream::{Partial, PrefixChecker, StreamJudge, Verdict};
use std::ops::ControlFlow;

/// What a streaming attempt reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The value read so far grew.
    Partial(Partial),
    /// The answer was stopped: it can no longer be valid.
    Abort {
        /// Why, as the checks say it.
        diagnostics: Vec<Diagnostic>,
        /// How many bytes had arrived.
        received: usize,
    },
}

/// A receiver of [`StreamEvent`]s.
pub type StreamEvents = Arc<dyn Fn(&StreamEvent) + Send + Sync>;

/// A provider whose answers are streamed, judged as they arrive and stopped when doomed.
pub struct Streaming<P> {
    inner: P,
    checker: Arc<PrefixChecker>,
    events: Option<StreamEvents>,
    name: String,
}

impl<P: Provider> Streaming<P> {
    /// Wraps `inner`; `checker` is the task's schema compiled for prefixes.
    pub fn new(inner: P, checker: Arc<PrefixChecker>) -> Self {
        let name = inner.name().to_owned();
        Self {
            inner,
            checker,
            events: None,
            name,
        }
    }

    /// Reports partial values and aborts to `events`.
    pub fn with_events(mut self, events: StreamEvents) -> Self {
        self.events = Some(events);
        self
    }

    async fn call(&self, request: &Request) -> Result<Response, ProviderError> {
        let mut watch = Watch {
            judge: StreamJudge::new(Arc::clone(&self.checker)),
            events: self.events.clone(),
            doomed: None,
            shown_at: 0,
            shown_settled: 0,
        };
        let mut response = match self.inner.complete_streaming(request, &mut watch).await {
            Ok(response) => response,
            // What arrived before the stream broke, if the provider did not keep it.
            Err(error) if error.received.is_none() => {
                return Err(error.with_received(watch.judge.reader().text().to_owned()));
            }
            Err(error) => return Err(error),
        };
        if let Some(diagnostics) = watch.doomed {
            let lines: Vec<String> = diagnostics.iter().map(crate::issue_line).collect();
            response.notices.push(format!(
                "stopped by rectify after {} bytes: the answer could no longer be valid ({})",
                response.text.len(),
                lines.join("; ")
            ));
        }
        Ok(response)
    }
}

/// The errors of an answer stopped by [`Streaming`] become why it was stopped. Judged
/// whole, the cut text also fails for what had not arrived yet (a required member still to
/// come, a string cut mid-way), which is not a mistake to feed back; the prefix judge that
/// stopped it, run again over the same text, says what was wrong. Warnings are kept;
/// nothing changes when the prefix judge finds nothing (the stop was not ours).
pub(crate) fn keep_why_stopped(
    report: &mut rectify_core::Report,
    checker: &Arc<PrefixChecker>,
    text: &str,
) {
    let Some(mut why) = why_stopped(checker, text) else {
        return;
    };
    // Named as the full check names its schema (`schema:PATH` for a schema file).
    if let Some(source) = report
        .diagnostics
        .iter()
        .map(|d| d.source.as_str())
        .find(|s| s.starts_with("schema:"))
    {
        for d in &mut why {
            if d.source == "schema" {
                source.clone_into(&mut d.source);
            }
        }
    }
    report.diagnostics.retain(|d| !d.is_error());
    report.extend(why);
}

/// Why an answer [`Streaming`] stopped can no longer be valid: `checker` (the one that
/// stopped it) run again over its text; `None` when it finds nothing (the stop was not
/// ours). These are the errors to feed back for a stopped answer: judged whole, the cut text
/// also fails for what had not arrived yet.
pub fn why_stopped(checker: &Arc<PrefixChecker>, text: &str) -> Option<Vec<Diagnostic>> {
    match StreamJudge::new(Arc::clone(checker)).push(text) {
        Ok(Verdict::Doomed(why)) => Some(why),
        _ => None,
    }
}

impl<P> std::fmt::Debug for Streaming<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Streaming({})", self.name)
    }
}

impl<P: Provider> Provider for Streaming<P> {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(self.call(request))
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// The sink: feeds the judge, reports partials now and then, stops a doomed answer.
struct Watch {
    judge: StreamJudge,
    events: Option<StreamEvents>,
    doomed: Option<Vec<Diagnostic>>,
    shown_at: usize,
    shown_settled: usize,
}

impl StreamSink for Watch {
    fn text(&mut self, delta: &str) -> ControlFlow<()> {
        match self.judge.push(delta) {
            Ok(Verdict::Doomed(diagnostics)) => {
                let received = self.judge.reader().text().len();
                self.emit(&StreamEvent::Abort {
                    diagnostics: diagnostics.clone(),
                    received,
                });
                self.doomed = Some(diagnostics);
                ControlFlow::Break(())
            }
            // Past the reader's limit the answer is still taken whole; only the early
            // verdicts stop.
            Ok(Verdict::Open) | Err(_) => {
                self.show_partial();
                ControlFlow::Continue(())
            }
        }
    }
}

impl Watch {
    fn emit(&self, event: &StreamEvent) {
        if let Some(events) = &self.events {
            events(event);
        }
    }

    /// A partial when a value settled and the text grew by a quarter since the last one
    /// (so the snapshots of a long answer cost linear time in all).
    fn show_partial(&mut self) {
        if self.events.is_none() {
            return;
        }
        let reader = self.judge.reader();
        let len = reader.text().len();
        if reader.settled() == self.shown_settled || len < self.shown_at + self.shown_at / 4 {
            return;
        }
        if let Some(partial) = reader.partial() {
            self.shown_at = len;
            self.shown_settled = reader.settled();
            self.emit(&StreamEvent::Partial(partial));
        }
    }
}
