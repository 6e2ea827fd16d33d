//! The few-shot prompt for a base model ([`chat`] has the prompt of an instruction-tuned one).
//!
//! Gemma 3 270M is a base model: asked zero-shot it does not answer in JSON. The prompt is a
//! transcript of blocks, each a schema, an example of its shape built from it
//! ([`example_for`]), a request and an answer. One worked block (a built-in demonstration with
//! real content, `demos`) comes first, so the model learns that the shape comes from the
//! schema and the values from the request; then the caller's block ends with an open `Answer:`
//! line. Prior assistant turns (a re-ask after feedback) become earlier answers in the same
//! transcript.
//!
//! The demonstration resembles the request: an extraction request
//! ([`crate::grounding::is_extraction`]) gets one whose values are all copied from its request,
//! other requests one answered from knowledge. Extraction blocks show no schema-built example:
//! its placeholders ("example name", 3) are what the model copied instead of reading the
//! request, and the grammar enforces the shape anyway.
//!
//! Measured on Gemma 3 270M over the tuning part of the grounding benchmark (issue 16), fields
//! right at T=0 / 0.7, all answers schema-valid: schema-built example and general demo 22% /
//! 26%; plus the grounding grammar 52% / 49%; plus the extraction demo 60% / 51%; without the
//! example 80% / 74%. The extraction demo without the grounding grammar fell to 14% / 16%.

pub mod chat;
mod demos;
mod example;

use rectify_provider::{Request, Role};
use serde_json::Value;

pub use chat::{Turn, chat_turns};
pub use demos::{DEMO_REQUEST, Demo};
pub use example::example_for;

use crate::grounding;

/// The marker before every request in the transcript.
pub const REQUEST_MARKER: &str = "Request:";
/// The marker before every answer; the prompt ends with it and a newline.
pub const ANSWER_MARKER: &str = "Answer:";

/// A prompt ready for the model, with the stop sequences its format implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The text to tokenize.
    pub text: String,
    /// Stop sequences: the caller's, plus the starts of the next transcript block.
    pub stop: Vec<String>,
}

/// Builds the prompt for `request` (see the module docs).
pub fn build_prompt(request: &Request) -> Prompt {
    let mut text = String::new();
    if let Some(system) = request.system_text() {
        text.push_str(system.trim());
        text.push_str("\n\n");
    }
    if let Some(schema) = &request.schema {
        let extraction = grounding::is_extraction(&grounding::request_text(request));
        push_demo(&mut text, &demo_for(request), !extraction);
        push_schema(&mut text, schema, !extraction);
    } else if request.json {
        text.push_str("Every answer is one JSON value.\n\n");
    }
    for message in request.turns() {
        let marker = match message.role {
            Role::Assistant => ANSWER_MARKER,
            Role::User | Role::System => REQUEST_MARKER,
        };
        push_turn(&mut text, marker, &message.content);
    }
    text.push_str(ANSWER_MARKER);
    text.push('\n');
    let mut stop = request.stop.clone();
    stop.extend(["\nRequest:", "\nSchema:", "\nExample:"].map(String::from));
    if request.wants_json() {
        // Answers are one line of compact JSON; a blank line means the model moved on.
        stop.push("\n\n".to_owned());
    }
    Prompt { text, stop }
}

/// The built-in demonstration shown before `request`: one whose values are copied from its
/// request for an extraction request ([`crate::grounding::is_extraction`]), else one answered
/// from knowledge.
pub fn demo_for(request: &Request) -> Demo {
    if grounding::is_extraction(&grounding::request_text(request)) {
        demos::extraction()
    } else {
        demos::general()
    }
}

/// The demonstration block: a small schema, its shape, a request and a real answer.
fn push_demo(text: &mut String, demo: &Demo, example: bool) {
    push_schema(text, &demo.schema, example);
    push_turn(text, REQUEST_MARKER, demo.request);
    push_turn(text, ANSWER_MARKER, &demo.answer.to_string());
}

fn push_schema(text: &mut String, schema: &Value, example: bool) {
    let mut shown = schema.clone();
    if let Some(obj) = shown.as_object_mut() {
        obj.remove("x-guidance");
        obj.remove("$schema");
        obj.remove(grounding::OPT_OUT);
    }
    text.push_str("Schema:\n");
    text.push_str(&shown.to_string());
    text.push('\n');
    if example {
        text.push_str("Example:\n");
        text.push_str(&example_for(schema).to_string());
        text.push('\n');
    }
}

fn push_turn(text: &mut String, marker: &str, content: &str) {
    text.push_str(marker);
    text.push('\n');
    text.push_str(content.trim());
    text.push_str("\n\n");
}
