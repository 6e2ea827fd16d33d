//! What the caller asks a provider for.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message in the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the whole conversation.
    System,
    /// The caller's turn.
    User,
    /// A previous answer of the model.
    Assistant,
}

impl Role {
    /// The lowercase wire name (`system`, `user`, `assistant`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A request for one completion.
///
/// Every field but `messages` is optional; a backend ignores what it cannot express and says so
/// in its [`Capabilities`](crate::Capabilities).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// A JSON Schema the answer must follow (sent as structured output where supported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// Ask for a JSON answer even without a schema (JSON mode).
    #[serde(default)]
    pub json: bool,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Upper bound on generated tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Time limit for one transport try (overrides the backend's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Duration>,
    /// For agents: the maximum number of turns the agent may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// For agents: the tools the agent may use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// The feedback on the previous answer, when this request is a re-ask (the loop also puts
    /// it in `messages`, placed as the feedback mode says). For providers that take the
    /// problems apart from the prompt, such as a function wrapping the caller's own agent.
    /// Not serialized: it is already in the messages, and recordings stay comparable.
    #[serde(skip)]
    pub feedback: Option<String>,
}

impl Request {
    /// A request made of one user message.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self {
            messages: vec![Message::user(prompt)],
            ..Self::default()
        }
    }

    /// A request with the given messages.
    pub fn from_messages(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// Puts a system message first.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.messages.insert(0, Message::system(system));
        self
    }

    /// Sets the JSON Schema for the answer (implies JSON output).
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self.json = true;
        self
    }

    /// Sets the per-try timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the output token limit.
    pub fn with_max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Whether the answer should be JSON (JSON mode or a schema).
    pub fn wants_json(&self) -> bool {
        self.json || self.schema.is_some()
    }

    /// The system messages joined by blank lines, if any.
    pub fn system_text(&self) -> Option<String> {
        let parts: Vec<&str> = self
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        if parts.is_empty() {
            None
        } else {
            Some(parts.join("\n\n"))
        }
    }

    /// The messages that are not system messages, in order.
    pub fn turns(&self) -> impl Iterator<Item = &Message> {
        self.messages.iter().filter(|m| m.role != Role::System)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_round_trips_through_json() {
        let request = Request::new("hi")
            .with_system("be brief")
            .with_schema(serde_json::json!({"type": "object"}))
            .with_timeout(Duration::from_millis(1500));
        let text = serde_json::to_string(&request).unwrap();
        let back: Request = serde_json::from_str(&text).unwrap();
        assert_eq!(back, request);
        assert!(back.wants_json());
        assert_eq!(back.system_text().as_deref(), Some("be brief"));
        assert_eq!(back.turns().count(), 1);
    }

    #[test]
    fn minimal_json_request_deserializes() {
        let request: Request =
            serde_json::from_str(r#"{"messages":[{"role":"user","content":"x"}]}"#).unwrap();
        assert_eq!(request.messages, vec![Message::user("x")]);
        assert!(!request.wants_json());
    }
}
