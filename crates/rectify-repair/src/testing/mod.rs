//! Hooks for tests and fuzzing; not a stable API.

pub mod loss;

use serde_json::Value;

/// Runs only the lenient parser over the whole text (no extraction, no fast path) and
/// returns the first value and the codes of the repairs it made.
pub fn parse_lenient(text: &str) -> (Option<Value>, Vec<&'static str>) {
    let payload = crate::engine::lenient(text, 128);
    let codes = payload
        .repairs
        .rules()
        .map(crate::RepairRule::code)
        .collect();
    (payload.values.into_iter().next().map(|(v, _, _)| v), codes)
}

/// True when [`crate::repair_to_json`] answers `text` on the text path, without falling
/// back to building a value.
pub fn takes_text_path(text: &str, options: &crate::RepairOptions) -> bool {
    crate::text::attempt(text, options, false).is_some()
}
