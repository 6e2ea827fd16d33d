//! One streaming POST: opened with transport retries, then its server-sent events read as
//! they arrive and handed, through the backend's wire format, to the caller's sink.

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use tokio::time::Instant;

use super::sse::{SseEvent, SseParser};
use super::{Answer, ERROR_BODY_KEEP, HttpTransport, body, classify};
use crate::{ErrorKind, FinishReason, ProviderError, Response, StreamSink};

/// A backend's streaming wire format.
pub(crate) trait StreamWire: Send {
    /// Reads one event: the text it adds (possibly empty), and whether the stream is done.
    fn event(&mut self, event: &SseEvent) -> Result<(String, bool), ErrorKind>;
    /// The answer once the stream ended (`done` as the last event said).
    fn finish(&mut self, done: bool) -> Result<Answer, ErrorKind>;
    /// What is known when the caller stopped the stream.
    fn stopped(&mut self) -> Answer;
}

/// What the open request answered.
enum Opened {
    /// An event stream.
    Events(reqwest::Response),
    /// A server that ignored `stream: true` and sent the whole JSON answer.
    Whole(String),
}

/// A streaming call's fixed parts.
pub(crate) struct StreamCall<'a> {
    pub(crate) provider: &'a str,
    pub(crate) url: &'a str,
    pub(crate) headers: &'a HeaderMap,
    pub(crate) body: &'a Value,
    pub(crate) timeout: Option<Duration>,
    pub(crate) default_model: &'a str,
    /// Reads a whole (non-streamed) JSON answer.
    pub(crate) parse: fn(&str) -> Result<Answer, ErrorKind>,
}

impl HttpTransport {
    /// POSTs a streaming request and reads its events into `wire`, text into `sink`.
    pub(crate) async fn post_stream(
        &self,
        call: &StreamCall<'_>,
        wire: &mut dyn StreamWire,
        sink: &mut dyn StreamSink,
    ) -> Result<Response, ProviderError> {
        let limit = call.timeout.unwrap_or(self.options.timeout);
        let started = Instant::now();
        let deadline = Instant::now() + limit;
        let opened = self
            .retrier
            .run(call.provider, |_| async move {
                match tokio::time::timeout_at(deadline, self.open(call)).await {
                    Ok(result) => result,
                    Err(_) => Err(timeout(limit)),
                }
            })
            .await?;
        let (retries, elapsed) = (opened.retries, opened.elapsed);
        let fail = |kind| ProviderError {
            kind,
            provider: call.provider.to_owned(),
            retries,
            elapsed,
            received: None,
        };
        let (answer, raw) = match opened.value {
            Opened::Whole(text) => {
                let answer = (call.parse)(&text).map_err(fail)?;
                let _ = sink.text(&answer.text);
                (answer, text)
            }
            Opened::Events(response) => {
                let read = self
                    .read_events(response, (deadline, limit), &mut *wire, sink)
                    .await;
                // What arrived before a break is the text the wire kept so far.
                read.map_err(|kind| fail(kind).with_received(wire.stopped().text))?
            }
        };
        Ok(Response {
            text: answer.text,
            finish_reason: answer.finish_reason,
            usage: answer.usage,
            model: answer
                .model
                .unwrap_or_else(|| call.default_model.to_owned()),
            latency: started.elapsed(),
            transport_retries: retries,
            raw: self.redact(&raw),
            notices: Vec::new(),
        })
    }

    async fn open(&self, call: &StreamCall<'_>) -> Result<Opened, ErrorKind> {
        let request = self
            .client
            .post(call.url)
            .headers(call.headers.clone())
            .json(call.body);
        let response = request
            .send()
            .await
            .map_err(|e| classify(&e, self.options.connect_timeout))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        if !response.status().is_success() {
            let raw = body::read_lossy(response, ERROR_BODY_KEEP).await;
            return Err(self.status_error(status, &headers, &raw));
        }
        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.contains("event-stream") {
            return Ok(Opened::Events(response));
        }
        if content_type.contains("json") {
            let bytes = body::read_bounded(response, self.options.max_body_bytes).await?;
            let text = String::from_utf8(bytes).map_err(|_| ErrorKind::InvalidResponse {
                message: "response body is not UTF-8".into(),
            })?;
            return Ok(Opened::Whole(text));
        }
        Err(ErrorKind::InvalidResponse {
            message: format!("expected an event stream, got content type `{content_type}`"),
        })
    }

    /// Reads events until the stream is done, ends, breaks, or the caller stops it.
    async fn read_events(
        &self,
        mut response: reqwest::Response,
        (deadline, limit): (Instant, Duration),
        wire: &mut dyn StreamWire,
        sink: &mut dyn StreamSink,
    ) -> Result<(Answer, String), ErrorKind> {
        let max = self.options.max_body_bytes;
        let mut parser = SseParser::new(max);
        let mut raw = Vec::new();
        let mut events = Vec::new();
        loop {
            let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
                Err(_) => return Err(timeout(limit)),
                Ok(Err(e)) => {
                    return Err(ErrorKind::Truncated {
                        message: format!("the event stream broke: {}", super::error_chain(&e)),
                    });
                }
                Ok(Ok(None)) => return Ok((wire.finish(false)?, lossy(&raw))),
                Ok(Ok(Some(chunk))) => chunk,
            };
            if raw.len() + chunk.len() > max {
                return Err(ErrorKind::TooLarge { limit: max });
            }
            raw.extend_from_slice(&chunk);
            parser.feed(&chunk, &mut events)?;
            for event in events.drain(..) {
                let (text, done) = wire.event(&event)?;
                if !text.is_empty() && sink.text(&text).is_break() {
                    return Ok((wire.stopped(), lossy(&raw)));
                }
                if done {
                    return Ok((wire.finish(true)?, lossy(&raw)));
                }
            }
        }
    }
}

fn lossy(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}

fn timeout(after: Duration) -> ErrorKind {
    ErrorKind::Timeout {
        after,
        stderr_tail: None,
    }
}

/// The answer of a stream the caller stopped: what arrived, marked [`crate::STOPPED`].
///
/// Servers report usage only at a stream's end, so a stopped answer's output tokens are
/// counted as at least its `deltas` (the text events received): one token each from OpenAI's
/// API, vLLM and llama.cpp's server, a few each from Anthropic's (a lower bound there).
pub(crate) fn stopped_answer(
    text: String,
    mut usage: crate::Usage,
    model: Option<String>,
    deltas: u64,
) -> Answer {
    usage.output_tokens = usage.output_tokens.max(deltas);
    Answer {
        text,
        finish_reason: FinishReason::Other(crate::STOPPED.to_owned()),
        usage,
        model,
    }
}
