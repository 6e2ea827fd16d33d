//! The few-shot prompt for a base model.
//!
//! Gemma 3 270M is a base model: asked zero-shot it does not answer in JSON. The prompt is a
//! transcript of blocks, each a schema, an example of its shape built from it
//! ([`example_for`]), a request and an answer. One worked block (a fixed demonstration with
//! real content) comes first, so the model learns that the shape comes from the schema and the
//! values from the request; then the caller's block ends with an open `Answer:` line. Prior
//! assistant turns (a re-ask after feedback) become earlier answers in the same transcript.
//!
//! Measured on Gemma 3 270M: with only the schema-built example the model copies its
//! placeholder values ("example name", 3); the demonstration block makes it fill in values
//! from the request instead.

mod example;

use rectify_provider::{Request, Role};
use serde_json::{Value, json};

pub use example::example_for;

/// The marker before every request in the transcript.
pub const REQUEST_MARKER: &str = "Request:";
/// The marker before every answer; the prompt ends with it and a newline.
pub const ANSWER_MARKER: &str = "Answer:";
/// The request of the demonstration block.
pub const DEMO_REQUEST: &str = "Who was Ada Lovelace?";

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
        push_demo(&mut text);
        push_schema(&mut text, schema);
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

/// The demonstration block: a small schema, its shape, a request and a real answer.
fn push_demo(text: &mut String) {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "born": {"type": "integer"},
            "fields": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["name", "born", "fields"]
    });
    let answer =
        json!({"name": "Ada Lovelace", "born": 1815, "fields": ["mathematics", "computing"]});
    push_schema(text, &schema);
    push_turn(text, REQUEST_MARKER, DEMO_REQUEST);
    push_turn(text, ANSWER_MARKER, &answer.to_string());
}

fn push_schema(text: &mut String, schema: &Value) {
    let mut shown = schema.clone();
    if let Some(obj) = shown.as_object_mut() {
        obj.remove("x-guidance");
        obj.remove("$schema");
    }
    text.push_str("Schema:\n");
    text.push_str(&shown.to_string());
    text.push_str("\nExample:\n");
    text.push_str(&example_for(schema).to_string());
    text.push('\n');
}

fn push_turn(text: &mut String, marker: &str, content: &str) {
    text.push_str(marker);
    text.push('\n');
    text.push_str(content.trim());
    text.push_str("\n\n");
}
