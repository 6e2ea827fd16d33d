//! The Anthropic Messages API wire format.

use serde_json::{Map, Value, json};

use super::AnthropicConfig;
use crate::http::Answer;
use crate::{ErrorKind, FinishReason, Request, Usage};

/// The JSON body for `POST /v1/messages`: system as a top-level field, the other turns as
/// messages.
pub(crate) fn request_body(config: &AnthropicConfig, request: &Request) -> Value {
    let messages: Vec<Value> = request
        .turns()
        .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    let max_tokens = request
        .max_output_tokens
        .unwrap_or(config.default_max_tokens);
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(system) = request.system_text() {
        body.insert("system".into(), json!(system));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if !request.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(request.stop));
    }
    Value::Object(body)
}

/// Reads a Messages API response body.
pub(crate) fn parse_response(body: &str) -> Result<Answer, ErrorKind> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| invalid(format!("body is not JSON: {e}")))?;
    if value.get("type").and_then(Value::as_str) == Some("error") {
        let message = value
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("unknown error");
        return Err(invalid(format!(
            "error object in a success response: {message}"
        )));
    }
    let blocks = value
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("no `content` array".into()))?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let finish_reason = stop_reason(value.get("stop_reason").and_then(Value::as_str));
    if blocks.is_empty() && finish_reason == FinishReason::Stop {
        return Err(invalid("empty `content` array".into()));
    }
    Ok(Answer {
        text,
        finish_reason,
        usage: usage(value.get("usage")),
        model: value
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

pub(crate) fn stop_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::Refusal,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn usage(usage: Option<&Value>) -> Usage {
    crate::http::usage_from(usage, "input_tokens", "output_tokens")
}

fn invalid(message: String) -> ErrorKind {
    ErrorKind::InvalidResponse { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_goes_top_level() {
        let config = AnthropicConfig::new("claude-x");
        let request = Request::new("hi").with_system("rules");
        let body = request_body(&config, &request);
        assert_eq!(body["system"], "rules");
        assert_eq!(body["messages"], json!([{"role": "user", "content": "hi"}]));
        assert_eq!(body["max_tokens"], 4096);
    }

    #[test]
    fn parses_text_blocks_usage_and_stop_reasons() {
        let body = r#"{"type":"message","model":"c","content":[{"type":"text","text":"a"},
            {"type":"text","text":"b"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":7}}"#;
        let answer = parse_response(body).unwrap();
        assert_eq!(answer.text, "ab");
        assert_eq!(answer.finish_reason, FinishReason::Length);
        assert_eq!(answer.usage, Usage::new(5, 7));
        let refused = r#"{"content":[],"stop_reason":"refusal"}"#;
        assert_eq!(
            parse_response(refused).unwrap().finish_reason,
            FinishReason::Refusal
        );
    }

    #[test]
    fn garbage_is_invalid() {
        for body in [
            "nope",
            "{}",
            r#"{"content":[]}"#,
            r#"{"type":"error","error":{"message":"x"}}"#,
        ] {
            assert!(
                matches!(parse_response(body), Err(ErrorKind::InvalidResponse { .. })),
                "{body}"
            );
        }
    }
}
