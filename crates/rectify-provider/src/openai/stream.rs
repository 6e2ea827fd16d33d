//! The streamed chat completion: `data:` chunks with `choices[0].delta` (`content`, a
//! `refusal`, or `tool_calls[].function.arguments` JSON pieces), `finish_reason`, a last chunk
//! with `usage` (asked for with `stream_options.include_usage`), then `data: [DONE]`. An
//! `error` object mid-stream is a cut stream.

use serde_json::Value;

use super::wire::{error_message, finish_reason};
use crate::http::Answer;
use crate::http::{SseEvent, StreamWire, stopped_answer};
use crate::{ErrorKind, FinishReason, Usage};

/// What the chunks said so far.
#[derive(Debug, Default)]
pub(crate) struct OpenAiStream {
    text: String,
    refusal: String,
    finish: Option<String>,
    usage: Usage,
    model: Option<String>,
    /// Text events received (a stopped answer's output tokens are at least these).
    deltas: u64,
}

impl StreamWire for OpenAiStream {
    fn event(&mut self, event: &SseEvent) -> Result<(String, bool), ErrorKind> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok((String::new(), true));
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| ErrorKind::InvalidResponse {
            message: format!("a stream chunk is not JSON: {e}"),
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(ErrorKind::Truncated {
                message: format!(
                    "the server sent an error mid-stream: {}",
                    error_message(error)
                ),
            });
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = crate::http::usage_from(Some(usage), "prompt_tokens", "completion_tokens");
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok((String::new(), false));
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(reason.to_owned());
        }
        let delta = delta_text(choice.get("delta"));
        if let Some(refusal) = choice.pointer("/delta/refusal").and_then(Value::as_str) {
            self.refusal.push_str(refusal);
        }
        if !delta.is_empty() {
            self.deltas += 1;
        }
        self.text.push_str(&delta);
        Ok((delta, false))
    }

    fn finish(&mut self, done: bool) -> Result<Answer, ErrorKind> {
        if !done && self.finish.is_none() {
            return Err(ErrorKind::Truncated {
                message: "the event stream ended before `[DONE]`".into(),
            });
        }
        let refused = !self.refusal.is_empty();
        Ok(Answer {
            text: if refused && self.text.is_empty() {
                std::mem::take(&mut self.refusal)
            } else {
                std::mem::take(&mut self.text)
            },
            finish_reason: if refused {
                FinishReason::Refusal
            } else {
                finish_reason(self.finish.as_deref())
            },
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

/// The text a delta adds: its content, or the argument pieces of its tool calls.
fn delta_text(delta: Option<&Value>) -> String {
    let Some(delta) = delta else {
        return String::new();
    };
    let mut out = delta
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for call in delta
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
            out.push_str(args);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> SseEvent {
        SseEvent {
            event: String::new(),
            data: data.to_owned(),
        }
    }

    #[test]
    fn content_tool_arguments_usage_and_done_are_read() {
        let mut wire = OpenAiStream::default();
        let chunks = [
            r#"{"model":"m","choices":[{"delta":{"role":"assistant","content":"{\"a\""}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2}}"#,
        ];
        let mut text = String::new();
        for chunk in chunks {
            text.push_str(&wire.event(&event(chunk)).unwrap().0);
        }
        assert_eq!(text, "{\"a\":1}");
        assert!(wire.event(&event("[DONE]")).unwrap().1);
        let answer = wire.finish(true).unwrap();
        assert_eq!(answer.text, "{\"a\":1}");
        assert_eq!(answer.usage, Usage::new(4, 2));
        assert_eq!(answer.model.as_deref(), Some("m"));
    }

    #[test]
    fn errors_garbage_and_a_missing_end_are_errors() {
        let mut wire = OpenAiStream::default();
        assert!(matches!(
            wire.event(&event(r#"{"error":{"message":"overloaded"}}"#)),
            Err(ErrorKind::Truncated { message }) if message.contains("overloaded")
        ));
        assert!(matches!(
            wire.event(&event("not json")),
            Err(ErrorKind::InvalidResponse { .. })
        ));
        assert!(matches!(
            wire.finish(false),
            Err(ErrorKind::Truncated { .. })
        ));
    }
}
