//! The OpenAI chat-completions wire format.

use serde_json::{Map, Value, json};

use super::{OpenAiConfig, StructuredOutput};
use crate::http::Answer;
use crate::{ErrorKind, FinishReason, Request, Usage};

/// The JSON body for `POST /chat/completions`.
pub(crate) fn request_body(
    config: &OpenAiConfig,
    mode: StructuredOutput,
    request: &Request,
) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(tokens) = request.max_output_tokens {
        body.insert(config.max_tokens_field.clone(), json!(tokens));
    }
    if !request.stop.is_empty() {
        body.insert("stop".into(), json!(request.stop));
    }
    if let Some(format) = response_format(config, mode, request) {
        body.insert("response_format".into(), format);
    }
    Value::Object(body)
}

/// The `response_format` a request in `mode` carries: `Off` when it carries none.
pub(crate) fn sent_format(mode: StructuredOutput, request: &Request) -> StructuredOutput {
    match (mode, &request.schema) {
        (StructuredOutput::Off, _) => StructuredOutput::Off,
        (StructuredOutput::JsonSchema, Some(_)) => StructuredOutput::JsonSchema,
        _ if request.wants_json() => StructuredOutput::JsonObject,
        _ => StructuredOutput::Off,
    }
}

fn response_format(
    config: &OpenAiConfig,
    mode: StructuredOutput,
    request: &Request,
) -> Option<Value> {
    match sent_format(mode, request) {
        StructuredOutput::Off => None,
        StructuredOutput::JsonSchema => Some(json!({
            "type": "json_schema",
            "json_schema": {"name": config.schema_name, "schema": request.schema, "strict": config.strict_schema},
        })),
        StructuredOutput::JsonObject => Some(json!({"type": "json_object"})),
    }
}

/// Reads a completion body.
pub(crate) fn parse_response(body: &str) -> Result<Answer, ErrorKind> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| invalid(format!("body is not JSON: {e}")))?;
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(invalid(format!(
            "error object in a success response: {}",
            error_message(error)
        )));
    }
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("no `choices` array".into()))?
        .first()
        .ok_or_else(|| invalid("empty `choices` array".into()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| invalid("choice without `message`".into()))?;
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    let text = content_text(message.get("content")).or_else(|| refusal.map(str::to_owned));
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    let finish_reason = if refusal.is_some() {
        FinishReason::Refusal
    } else {
        finish_reason(finish)
    };
    let text = match text {
        Some(text) => text,
        None if finish_reason == FinishReason::Stop => {
            return Err(invalid("message without content".into()));
        }
        None => String::new(),
    };
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

/// Content is a string, or (some compatible servers) an array of text parts.
fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<String>(),
        ),
        _ => None,
    }
}

pub(crate) fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("stop" | "eos" | "stop_sequence") => FinishReason::Stop,
        Some("length" | "max_tokens") => FinishReason::Length,
        Some("content_filter" | "refusal") => FinishReason::Refusal,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn usage(usage: Option<&Value>) -> Usage {
    crate::http::usage_from(usage, "prompt_tokens", "completion_tokens")
}

pub(crate) fn error_message(error: &Value) -> String {
    error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned)
}

fn invalid(message: String) -> ErrorKind {
    ErrorKind::InvalidResponse { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_plain_completion() {
        let body = r#"{"model":"m-1","choices":[{"message":{"role":"assistant","content":"hi"},
            "finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;
        let answer = parse_response(body).unwrap();
        assert_eq!(answer.text, "hi");
        assert_eq!(answer.finish_reason, FinishReason::Stop);
        assert_eq!(answer.usage, Usage::new(3, 1));
        assert_eq!(answer.model.as_deref(), Some("m-1"));
    }

    #[test]
    fn length_and_refusal_are_answers() {
        let cut = r#"{"choices":[{"message":{"content":"{\"a\":"},"finish_reason":"length"}]}"#;
        assert_eq!(
            parse_response(cut).unwrap().finish_reason,
            FinishReason::Length
        );
        let refused =
            r#"{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}"#;
        let answer = parse_response(refused).unwrap();
        assert_eq!(
            (answer.text.as_str(), answer.finish_reason),
            ("no", FinishReason::Refusal)
        );
    }

    #[test]
    fn garbage_and_empty_choices_are_invalid() {
        for body in [
            "<html>",
            r#"{"choices":[]}"#,
            "{}",
            r#"{"error":{"message":"x"}}"#,
            "[1]",
        ] {
            assert!(
                matches!(parse_response(body), Err(ErrorKind::InvalidResponse { .. })),
                "{body}"
            );
        }
    }

    #[test]
    fn content_parts_are_joined() {
        let body =
            r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"text":"b"}]}}]}"#;
        assert_eq!(parse_response(body).unwrap().text, "ab");
    }
}
