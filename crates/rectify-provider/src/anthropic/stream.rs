//! The streamed Messages answer: `message_start` (model, input tokens), `content_block_delta`
//! with `text_delta` or `input_json_delta` pieces, `message_delta` (stop reason, output
//! tokens), `message_stop`; `ping` is ignored and an `error` event is a cut stream.

use serde_json::Value;

use super::wire::stop_reason;
use crate::http::{Answer, SseEvent, StreamWire, stopped_answer};
use crate::{ErrorKind, Usage};

/// What the events said so far.
#[derive(Debug, Default)]
pub(crate) struct AnthropicStream {
    text: String,
    stop: Option<String>,
    usage: Usage,
    model: Option<String>,
    /// Text events received (a stopped answer's output tokens are at least these).
    deltas: u64,
}

impl StreamWire for AnthropicStream {
    fn event(&mut self, event: &SseEvent) -> Result<(String, bool), ErrorKind> {
        let data: Value =
            serde_json::from_str(&event.data).map_err(|e| ErrorKind::InvalidResponse {
                message: format!("a stream event is not JSON: {e}"),
            })?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&event.event);
        match kind {
            "message_start" => self.start(&data),
            "content_block_delta" => {
                let delta = block_delta(data.get("delta"));
                if !delta.is_empty() {
                    self.deltas += 1;
                }
                self.text.push_str(&delta);
                return Ok((delta, false));
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(reason.to_owned());
                }
                if let Some(out) = data.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.usage.output_tokens = out;
                }
            }
            "message_stop" => return Ok((String::new(), true)),
            "error" => {
                let message = data
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Err(ErrorKind::Truncated {
                    message: format!("the server sent an error mid-stream: {message}"),
                });
            }
            _ => {}
        }
        Ok((String::new(), false))
    }

    fn finish(&mut self, done: bool) -> Result<Answer, ErrorKind> {
        if !done {
            return Err(ErrorKind::Truncated {
                message: "the event stream ended before `message_stop`".into(),
            });
        }
        Ok(Answer {
            text: std::mem::take(&mut self.text),
            finish_reason: stop_reason(self.stop.as_deref()),
            usage: self.usage,
            model: self.model.take(),
        })
    }

    fn stopped(&mut self) -> Answer {
        stopped_answer(
            std::mem::take(&mut self.text),
            self.usage,
            self.model.take(),
            self.deltas,
        )
    }
}

impl AnthropicStream {
    fn start(&mut self, data: &Value) {
        if let Some(model) = data.pointer("/message/model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        let usage = data.pointer("/message/usage");
        self.usage = crate::http::usage_from(usage, "input_tokens", "output_tokens");
    }
}

/// The text a block delta adds: a `text_delta`'s text or an `input_json_delta`'s piece.
fn block_delta(delta: Option<&Value>) -> String {
    let Some(delta) = delta else {
        return String::new();
    };
    let field = match delta.get("type").and_then(Value::as_str) {
        Some("input_json_delta") => "partial_json",
        _ => "text",
    };
    delta
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.to_owned(),
            data: data.to_owned(),
        }
    }

    #[test]
    fn text_and_json_deltas_usage_and_stop_are_read() {
        let mut wire = AnthropicStream::default();
        let events = [
            event(
                "message_start",
                r#"{"type":"message_start","message":{"model":"c","usage":{"input_tokens":9,"output_tokens":1}}}"#,
            ),
            event("ping", r#"{"type":"ping"}"#),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"{\"a\""}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":":1}"}}"#,
            ),
            event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":7}}"#,
            ),
        ];
        let mut text = String::new();
        for e in &events {
            text.push_str(&wire.event(e).unwrap().0);
        }
        assert_eq!(text, "{\"a\":1}");
        assert!(
            wire.event(&event("message_stop", r#"{"type":"message_stop"}"#))
                .unwrap()
                .1
        );
        let answer = wire.finish(true).unwrap();
        assert_eq!(answer.usage, Usage::new(9, 7));
        assert_eq!(answer.finish_reason, crate::FinishReason::Length);
        assert_eq!(answer.model.as_deref(), Some("c"));
    }

    #[test]
    fn an_error_event_and_a_missing_stop_are_errors() {
        let mut wire = AnthropicStream::default();
        let overloaded =
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert!(matches!(
            wire.event(&event("error", overloaded)),
            Err(ErrorKind::Truncated { message }) if message.contains("Overloaded")
        ));
        assert!(matches!(
            wire.finish(false),
            Err(ErrorKind::Truncated { .. })
        ));
    }
}
