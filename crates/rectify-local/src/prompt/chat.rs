//! The prompt for an instruction-tuned model: its own turns (rendered with the model's chat
//! template by the engine), not a few-shot transcript.
//!
//! The system turn says what to do and shows the schema; the user turns are the request (and
//! on a re-ask the loop's feedback), the assistant turns the earlier answers. The grammar
//! enforces the shape, so no example of it is shown; an extraction request is told to copy its
//! values as they are written.

use rectify_provider::{Request, Role};
use serde_json::Value;

use crate::grounding;

/// What an instruction-tuned model is told before every request with a schema.
pub const JSON_INSTRUCTION: &str = "Answer with one JSON value that satisfies this JSON Schema:";

/// What an extraction request adds: values come from the text.
pub const EXTRACTION_INSTRUCTION: &str = "Take every value from the user's text, written as \
     it is written there; give each field the value that the text says is that field's.";

/// One turn of a chat prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    /// What the turn says.
    pub content: String,
}

/// The turns for `request` (see the module docs).
pub fn chat_turns(request: &Request) -> Vec<Turn> {
    let mut system = request
        .system_text()
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    if let Some(schema) = &request.schema {
        push_paragraph(&mut system, JSON_INSTRUCTION);
        system.push('\n');
        system.push_str(&shown(schema).to_string());
        if grounding::is_extraction(&grounding::request_text(request)) {
            push_paragraph(&mut system, EXTRACTION_INSTRUCTION);
        }
    } else if request.json {
        push_paragraph(&mut system, "Answer with one JSON value.");
    }
    let mut turns = Vec::new();
    if !system.is_empty() {
        turns.push(Turn {
            role: "system",
            content: system,
        });
    }
    for message in request.turns() {
        let role = match message.role {
            Role::Assistant => "assistant",
            Role::User | Role::System => "user",
        };
        turns.push(Turn {
            role,
            content: message.content.trim().to_owned(),
        });
    }
    turns
}

fn push_paragraph(text: &mut String, paragraph: &str) {
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(paragraph);
}

/// The schema as shown to the model: without the engine's own keywords.
fn shown(schema: &Value) -> Value {
    let mut shown = schema.clone();
    if let Some(obj) = shown.as_object_mut() {
        obj.remove("x-guidance");
        obj.remove("$schema");
        obj.remove(grounding::OPT_OUT);
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use rectify_provider::Message;
    use serde_json::json;

    #[test]
    fn an_extraction_request_gets_the_schema_and_the_copy_instruction() {
        let request = Request::new("Extract the invoice: ACME owes 12 EUR")
            .with_schema(json!({"type": "object", "x-guidance": {"lenient": true}}));
        let turns = chat_turns(&request);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].role, "system");
        assert!(
            turns[0].content.contains(r#"{"type":"object"}"#),
            "{}",
            turns[0].content
        );
        assert!(turns[0].content.contains(EXTRACTION_INSTRUCTION));
        assert_eq!(turns[1].role, "user");
        assert_eq!(turns[1].content, "Extract the invoice: ACME owes 12 EUR");
    }

    #[test]
    fn a_reask_keeps_the_answers_as_assistant_turns() {
        let mut request = Request::new("Name a colour").with_schema(json!({"type": "string"}));
        request.messages.push(Message::assistant("\"blue\""));
        request.messages.push(Message::user("Another one"));
        let roles: Vec<_> = chat_turns(&request).iter().map(|t| t.role).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert!(
            !chat_turns(&request)[0]
                .content
                .contains(EXTRACTION_INSTRUCTION)
        );
    }
}
