//! The prompt for an instruction-tuned model: its own turns (rendered with the model's chat
//! template by the engine), not a few-shot transcript.
//!
//! The system turn says what to do and shows the schema (without the bounds the grammar
//! enforces anyway); the user turns are the request (and
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

/// Keywords the grammar enforces that tell the model nothing it needs to write the value.
const ENFORCED: [&str; 6] = [
    "maxLength",
    "minLength",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
];

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: [&str; 4] = ["properties", "$defs", "definitions", "patternProperties"];

/// Keywords whose value is a schema or a list of schemas.
const SCHEMA_VALUES: [&str; 11] = [
    "items",
    "prefixItems",
    "additionalProperties",
    "contains",
    "not",
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
];

/// Removes from `schema` (and the schemas inside it) what the grammar enforces anyway: length,
/// count and range bounds, `additionalProperties: false`, and a `required` list that names
/// every property. What is left (names, types, enums, descriptions, formats, patterns) is
/// what the model reads; measured on the tuning parts (tune2, tune3; Qwen2.5-Coder 0.5B, T=0)
/// the same fields right with a quarter fewer prompt tokens (docs/BENCHMARKS.md).
fn compact(schema: &mut Value) {
    let Value::Object(obj) = schema else {
        return;
    };
    for key in ENFORCED {
        obj.remove(key);
    }
    if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
        obj.remove("additionalProperties");
    }
    let all_required = match (obj.get("required"), obj.get("properties")) {
        (Some(Value::Array(required)), Some(Value::Object(properties))) => {
            required.len() == properties.len()
                && required
                    .iter()
                    .all(|r| r.as_str().is_some_and(|r| properties.contains_key(r)))
        }
        _ => false,
    };
    if all_required {
        obj.remove("required");
    }
    for (key, value) in obj.iter_mut() {
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(schemas) = value {
                schemas.values_mut().for_each(compact);
            }
        } else if SCHEMA_VALUES.contains(&key.as_str()) {
            match value {
                Value::Array(schemas) => schemas.iter_mut().for_each(compact),
                other => compact(other),
            }
        }
    }
}

/// The schema as shown to the model: without the engine's own keywords, and without what
/// the grammar enforces ([`compact`]).
fn shown(schema: &Value) -> Value {
    let mut shown = schema.clone();
    if let Some(obj) = shown.as_object_mut() {
        obj.remove("x-guidance");
        obj.remove("$schema");
        obj.remove(grounding::OPT_OUT);
    }
    compact(&mut shown);
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
    fn the_schema_is_shown_without_what_the_grammar_enforces() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 40, "description": "who signs"},
                "minimum": {"type": "integer", "minimum": 0},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 3},
                "kind": {"enum": ["a", "b"]}
            },
            "required": ["name", "minimum", "tags", "kind"],
            "additionalProperties": false
        });
        assert_eq!(
            shown(&schema),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "who signs"},
                    "minimum": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "kind": {"enum": ["a", "b"]}
                }
            })
        );
        // A `required` list that leaves a property out is information: kept.
        let partial =
            json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]});
        assert_eq!(shown(&partial), partial);
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
