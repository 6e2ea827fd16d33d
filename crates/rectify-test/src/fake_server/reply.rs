//! What the fake server answers to one request.

use std::time::Duration;

use serde_json::Value;

use super::wire;

/// A fault injected into a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Send the headers and half the body, then reset the connection (TCP RST).
    ResetMidBody,
    /// Announce the full `content-length`, send half the body, then close cleanly.
    TruncateBody,
    /// Send the body with chunked encoding and close before the final chunk (a stream cut short).
    CutChunkedStream,
    /// Close the connection without sending anything.
    CloseWithoutResponse,
    /// Never answer (until the client gives up or the server is dropped).
    Hang,
    /// Send the headers at once, then the body one byte every 100 ms (a slow body that
    /// keeps the connection alive past any timeout).
    Trickle,
}

/// A scripted reply: status, headers, body, an optional delay before it and an optional fault.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// Extra headers (`content-type` is among them unless removed).
    pub headers: Vec<(String, String)>,
    /// The body bytes. `{{header:NAME}}` is replaced by the request's header `NAME` when
    /// [`Reply::echo_headers`] is set.
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// A fault to inject.
    pub fault: Option<Fault>,
    /// Substitute `{{header:NAME}}` placeholders in the body.
    pub echo_headers: bool,
}

impl Reply {
    /// A reply with `status`, a raw body and a content type.
    pub fn raw(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
            delay: Duration::ZERO,
            fault: None,
            echo_headers: false,
        }
    }

    /// A JSON reply.
    pub fn json(status: u16, body: &Value) -> Self {
        Self::raw(status, "application/json", body.to_string())
    }

    /// An OpenAI chat completion with `text`, finish reason `stop` and small usage numbers.
    pub fn openai_text(text: &str) -> Self {
        Self::json(200, &wire::openai_completion(text, "stop", 10, 5))
    }

    /// An OpenAI chat completion streamed as server-sent events, `text` in pieces of
    /// `piece` bytes ([`wire::openai_stream`]).
    pub fn openai_stream(text: &str, piece: usize) -> Self {
        Self::raw(200, "text/event-stream", wire::openai_stream(text, piece))
    }

    /// An Anthropic message with `text`, stop reason `end_turn` and small usage numbers.
    pub fn anthropic_text(text: &str) -> Self {
        Self::json(200, &wire::anthropic_message(text, "end_turn", 10, 5))
    }

    /// An error status with an OpenAI-style error body.
    pub fn error(status: u16) -> Self {
        Self::json(status, &wire::openai_error(&format!("fake error {status}")))
    }

    /// llama-cpp-python's server rejecting `response_format: json_schema`: a 500 whose body
    /// names `response_format` ([`wire::llama_cpp_python_response_format_error`]).
    pub fn llama_cpp_python_rejects_json_schema() -> Self {
        Self::json(500, &wire::llama_cpp_python_response_format_error())
    }

    /// `429 Too Many Requests` with a `Retry-After` header (seconds or an HTTP date).
    pub fn rate_limited(retry_after: &str) -> Self {
        Self::error(429).with_header("retry-after", retry_after)
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    /// Removes every header called `name`.
    pub fn without_header(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Waits `delay` before answering.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Injects a fault.
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = Some(fault);
        self
    }

    /// Replaces `{{header:NAME}}` in the body with the request's header values.
    pub fn echoing_headers(mut self) -> Self {
        self.echo_headers = true;
        self
    }
}
