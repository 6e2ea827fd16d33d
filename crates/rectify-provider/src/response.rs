//! What a provider answers.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Why the model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// The model finished its answer (or hit a stop sequence).
    Stop,
    /// The output token limit cut the answer short (a content failure for the loop).
    Length,
    /// The model refused, or a content filter removed the answer.
    Refusal,
    /// Anything else, with the provider's own name for it.
    Other(String),
}

/// Tokens consumed by one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Usage with the given counts.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
        }
    }

    /// The sum of input and output tokens.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Adds another call's usage to this one.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// One completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The answer text.
    pub text: String,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Tokens used (zero when the backend does not report them).
    pub usage: Usage,
    /// The model that answered, as reported by the provider.
    pub model: String,
    /// Wall time of the call, transport retries and their waits included.
    pub latency: Duration,
    /// Transport retries used before this answer arrived.
    pub transport_retries: u32,
    /// The raw response body (HTTP body or the command's stdout), secrets redacted.
    #[serde(default)]
    pub raw: String,
    /// Things the provider changed about how it is called, worth keeping in the attempt
    /// ledger (for example a structured-output mode the server rejected and the one used
    /// instead). Usually empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

impl Response {
    /// Whether the model ended normally (not cut short, not refused).
    pub fn is_complete(&self) -> bool {
        self.finish_reason == FinishReason::Stop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reason_serializes_in_lowercase() {
        assert_eq!(
            serde_json::to_string(&FinishReason::Length).unwrap(),
            r#""length""#
        );
        let other: FinishReason = serde_json::from_str(r#"{"other":"tool_use"}"#).unwrap();
        assert_eq!(other, FinishReason::Other("tool_use".into()));
    }

    #[test]
    fn usage_adds_and_saturates() {
        let mut usage = Usage::new(3, 4);
        usage.add(Usage::new(1, u64::MAX));
        assert_eq!(usage, Usage::new(4, u64::MAX));
        assert_eq!(usage.total(), u64::MAX);
    }
}
