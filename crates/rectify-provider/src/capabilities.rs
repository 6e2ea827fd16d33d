//! What a backend can do.

use serde::{Deserialize, Serialize};

/// Declared abilities of a provider; the loop adapts its prompts to them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Capabilities {
    /// The backend can force syntactically valid JSON output (JSON mode).
    pub json_mode: bool,
    /// The backend can constrain output to a JSON Schema.
    pub json_schema: bool,
    /// System messages are passed as real system prompts (not folded into the text).
    pub system_prompt: bool,
    /// Prior assistant turns are kept as separate turns (not flattened into one prompt).
    pub multi_turn: bool,
    /// Agent options (`max_turns`, `allowed_tools`) are honoured.
    pub agent: bool,
    /// Maximum context size in tokens, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_context_tokens: Option<u64>,
}
