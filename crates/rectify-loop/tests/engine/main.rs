//! The engine driven by scripted providers: every path of the loop, no network.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod budget;
mod fallback;
mod feedback;
mod memory;
mod paths;
mod sampling;
mod trace;
mod transport;

use std::sync::Arc;

use rectify_loop::{Outcome, Task};
use rectify_provider::{Message, Role};
use rectify_test::scripted::ScriptedProvider;
use serde_json::{Value, json};

/// Runs a future to completion on a fresh single-threaded runtime.
pub fn block<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// `{"name": string, "tags": [string, ...] (at least 1)}`.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "required": ["name", "tags"],
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "minItems": 1, "items": {"type": "string"}}
        }
    })
}

/// The standard task: a prompt, a system prompt and the schema above.
pub fn task() -> Task {
    Task::new("Describe the project as JSON.")
        .system("You answer with JSON.")
        .schema(schema())
        .unwrap()
}

/// A shared scripted provider answering `texts` in order.
pub fn scripted(name: &str, texts: &[&str]) -> Arc<ScriptedProvider> {
    let mut provider = ScriptedProvider::new(name);
    for text in texts {
        provider = provider.text(*text);
    }
    Arc::new(provider)
}

/// A valid answer.
pub const VALID: &str = r#"{"name": "rectify", "tags": ["rust"]}"#;
/// Two errors: `name` has the wrong type and `tags` is missing.
pub const TWO_ERRORS: &str = r#"{"name": ["a", "b"]}"#;
/// One error: `tags` is empty.
pub const ONE_ERROR: &str = r#"{"name": "rectify", "tags": []}"#;

/// The messages as `(role, content)` pairs.
pub fn turns(messages: &[Message]) -> Vec<(Role, &str)> {
    messages
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect()
}

/// The value of a valid outcome, or a panic showing the outcome.
pub fn valid<T: std::fmt::Debug>(outcome: &Outcome<T>) -> &T {
    outcome
        .value()
        .unwrap_or_else(|| panic!("expected a valid outcome, got {outcome:#?}"))
}

/// The first line of the feedback in `append`, `prefix` and `suffix` modes.
pub const HEADER: &str = "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:";
