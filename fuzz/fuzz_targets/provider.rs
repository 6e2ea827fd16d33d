//! Fuzz target for what a provider reads and builds (issue 15): the OpenAI-compatible and
//! Anthropic response readers, and the command agent's argument template.
//!
//! Properties: no panic on any body; a body the reader rejects is an error, never an empty
//! answer taken as success; round trips — a text written into a well-formed body by
//! serde_json is read back exactly (OpenAI `choices[0].message.content`, Anthropic text
//! blocks); the template expands in one pass (a prompt holding `{system}` or shell syntax stays
//! one argument, unchanged) and keeps the number of arguments.
//!
//! `cargo fuzz run provider` (from `fuzz/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_provider::fuzzing::{command_args, read_anthropic, read_openai};
use rectify_provider::{FinishReason, Request};
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Any body: no panic; an answer that ends normally has its text.
    if let Ok((answer, FinishReason::Stop)) = read_openai(text) {
        let _ = answer.len();
    }
    let _ = read_anthropic(text);
    // Round trips through well-formed bodies.
    let openai = json!({"choices": [{"message": {"content": text}, "finish_reason": "stop"}]});
    let (answer, finish) = read_openai(&openai.to_string()).expect("a well-formed body reads");
    assert_eq!(answer, text);
    assert_eq!(finish, FinishReason::Stop);
    let anthropic = json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"});
    let (answer, _) = read_anthropic(&anthropic.to_string()).expect("a well-formed body reads");
    assert_eq!(answer, text);
    // The template: the prompt is one argument, unchanged (but never a flag), whatever it holds.
    let args: Vec<String> = ["-p", "{prompt}", "--model={model}"]
        .map(str::to_owned)
        .to_vec();
    let expanded = command_args(&args, &Request::new(text), "m{prompt}");
    assert_eq!(expanded.len(), args.len());
    // A prompt never reads as a flag: one that starts with `-` gets a space before it.
    if text.starts_with('-') {
        assert_eq!(expanded[1], format!(" {text}"));
    } else {
        assert_eq!(expanded[1], text);
    }
    assert_eq!(expanded[2], "--model=m{prompt}");
});
