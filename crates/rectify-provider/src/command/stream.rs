//! A command agent's answer streamed: stdout handed to the caller's sink as it is read, its
//! characters joined and its secrets redacted first, and the program stopped when the sink
//! says so.

use std::ops::ControlFlow;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use super::capture::Stdout;
use super::{CommandProvider, process};
use crate::{
    ErrorKind, FinishReason, ProviderError, Redactor, Request, Response, StreamSink, Utf8Joiner,
};

/// The caller's sink, shared by the tries of one call (one at a time).
type SharedSink<'s> = Mutex<&'s mut dyn StreamSink>;

/// How one streamed run ended, once text had reached the sink (before that, a failure is an
/// `Err` the retrier may try again).
enum Streamed {
    /// The program finished: all of stdout.
    Done(String),
    /// The sink stopped it: what the sink was handed.
    Stopped(String),
    /// It failed after text had been handed over: why, and all of the stdout it wrote.
    Failed(ErrorKind, String),
}

impl CommandProvider {
    /// [`Provider::complete_streaming`](crate::Provider::complete_streaming) for an agent whose
    /// stdout is the answer. Transport retries (transient exit codes) happen only while no text
    /// has reached the sink; a failure after that is an error carrying what was received.
    pub(super) async fn call_streaming(
        &self,
        request: &Request,
        sink: &mut dyn StreamSink,
    ) -> Result<Response, ProviderError> {
        let started = Instant::now();
        let sink: SharedSink<'_> = Mutex::new(sink);
        let retried = self
            .retrier
            .run(&self.name, |_| self.stream_once(request, &sink))
            .await?;
        let retries = retried.retries;
        match retried.value {
            Streamed::Done(text) => Ok(self.response(text.clone(), text, started, retries)),
            Streamed::Stopped(text) => {
                let mut response = self.response(text.clone(), text, started, retries);
                response.finish_reason = FinishReason::Other(crate::STOPPED.to_owned());
                Ok(response)
            }
            Streamed::Failed(kind, received) => Err(ProviderError {
                kind,
                provider: self.name.clone(),
                retries,
                elapsed: retried.elapsed,
                received: None,
            }
            .with_received(received)),
        }
    }

    async fn stream_once(
        &self,
        request: &Request,
        sink: &SharedSink<'_>,
    ) -> Result<Streamed, ErrorKind> {
        let (command, input) = self.command(request);
        let mut out = ToSink::new(sink);
        let ran = process::run(command, input, self.limits(request), &mut out).await;
        let failure = match ran {
            Ok(process::Ran::Exited {
                status,
                stderr_tail,
            }) => process::exit_error(
                status,
                &self.config.transient_exit_codes,
                &crate::redact_secrets(&stderr_tail),
            ),
            Ok(process::Ran::Stopped) => None,
            Err(kind) => Some(kind),
        };
        out.end(failure)
    }
}

/// stdout on its way to the sink: bytes joined into characters ([`Utf8Joiner`]), keys
/// redacted ([`Redactor`]: a key split between two reads is held, never handed over in part),
/// then handed over.
struct ToSink<'a, 's> {
    sink: &'a SharedSink<'s>,
    utf8: Utf8Joiner,
    redactor: Redactor,
    /// The text handed to the sink so far.
    text: String,
    stopped: bool,
}

impl<'a, 's> ToSink<'a, 's> {
    fn new(sink: &'a SharedSink<'s>) -> Self {
        Self {
            sink,
            utf8: Utf8Joiner::default(),
            redactor: Redactor::from_env(),
            text: String::new(),
            stopped: false,
        }
    }

    fn hand(&mut self, text: &str) -> ControlFlow<()> {
        if self.stopped {
            return ControlFlow::Break(());
        }
        if text.is_empty() {
            return ControlFlow::Continue(());
        }
        self.text.push_str(text);
        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        if sink.text(text).is_break() {
            self.stopped = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// What is held (a character cut short, the start of what may be a key), now that no
    /// more comes.
    fn rest(&mut self) -> String {
        let end = self.utf8.finish();
        let mut rest = self.redactor.push(&end);
        rest.push_str(&self.redactor.finish());
        rest
    }

    /// The run's end, given how the program ended: stopped when the sink said so; else a
    /// failure before any text reached the sink is an `Err` (to be retried when transient);
    /// else the rest of stdout ends the answer, handed over on success.
    fn end(mut self, failure: Option<ErrorKind>) -> Result<Streamed, ErrorKind> {
        if self.stopped {
            return Ok(Streamed::Stopped(self.text));
        }
        match failure {
            Some(kind) if self.text.is_empty() => Err(kind),
            Some(kind) => {
                let mut received = std::mem::take(&mut self.text);
                received.push_str(&self.rest());
                Ok(Streamed::Failed(kind, received))
            }
            None => {
                let rest = self.rest();
                if self.hand(&rest).is_break() {
                    return Ok(Streamed::Stopped(self.text));
                }
                Ok(Streamed::Done(self.text))
            }
        }
    }
}

impl Stdout for ToSink<'_, '_> {
    fn bytes(&mut self, bytes: &[u8]) -> ControlFlow<()> {
        let text = self.redactor.push(&self.utf8.push(bytes));
        self.hand(&text)
    }
}
