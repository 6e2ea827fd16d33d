//! Response bodies in the OpenAI and Anthropic wire formats.

use std::fmt::Write as _;

use serde_json::{Value, json};

/// An OpenAI chat completion body.
pub fn openai_completion(
    text: &str,
    finish_reason: &str,
    prompt_tokens: u64,
    completion_tokens: u64,
) -> Value {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": null},
            "finish_reason": finish_reason,
        }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    })
}

/// An OpenAI chat completion event stream (server-sent events): `text` in pieces of at most
/// `piece` bytes (cut at character boundaries), then the finish reason `stop`, the usage
/// (`prompt_tokens` 10, one completion token per piece) and `[DONE]`.
pub fn openai_stream(text: &str, piece: usize) -> String {
    let mut out = String::new();
    let mut pieces = 0u64;
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = piece.max(1).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let chunk = json!({"model": "fake-model", "choices": [{"index": 0, "delta": {"content": &rest[..end]}}]});
        let _ = write!(out, "data: {chunk}\n\n");
        rest = &rest[end..];
        pieces += 1;
    }
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let usage = json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": pieces}});
    let _ = write!(out, "data: {end}\n\ndata: {usage}\n\ndata: [DONE]\n\n");
    out
}

/// An OpenAI error body.
pub fn openai_error(message: &str) -> Value {
    json!({"error": {"message": message, "type": "fake_error", "code": null}})
}

/// What llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`) answers,
/// with status 500, to a `response_format` of type `json_schema`: its route error handler
/// wraps the FastAPI validation error as an internal server error.
pub fn llama_cpp_python_response_format_error() -> Value {
    json!({"error": {
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), \
                    'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', \
                    'ctx': {'expected': \"'text' or 'json_object'\"}}]",
        "type": "internal_server_error",
        "param": null,
        "code": null,
    }})
}

/// An Anthropic Messages API response body.
pub fn anthropic_message(
    text: &str,
    stop_reason: &str,
    input_tokens: u64,
    output_tokens: u64,
) -> Value {
    json!({
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "fake-claude",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    })
}

/// An Anthropic error body (e.g. `overloaded_error` with status 529).
pub fn anthropic_error(error_type: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": error_type, "message": message}})
}
