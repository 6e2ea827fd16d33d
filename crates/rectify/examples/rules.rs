//! Untyped extraction with a JSON Schema, a rules file and a custom validator.
//!
//! Needs a provider in the environment (see the `extract` example):
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run -p rectify --example rules
//! ```

use rectify::check::{Checker, RuleSet};
use rectify::{Diagnostic, Location};
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), rectify::Error> {
    // What JSON Schema cannot say: ids are unique, and every task names a known phase.
    let rules = RuleSet::from_value(
        &json!({"rules": [
            {"id": "unique-task-ids", "unique": "$.tasks[*].id"},
            {"id": "known-phase", "each": "$.tasks[*].phase", "in": "$.phases[*]"},
        ]}),
        None,
    )?;
    let client = rectify::Client::from_env()?
        .rules(Checker::builder().rules(rules).build()?)
        .validator("at-most-five", |plan| match plan["tasks"].as_array() {
            Some(tasks) if tasks.len() > 5 => vec![Diagnostic::error(
                "custom.too_many_tasks",
                Location::from_pointer("/tasks"),
                format!("at most 5 tasks, got {}", tasks.len()),
            )],
            _ => Vec::new(),
        });
    let schema = json!({
        "type": "object",
        "required": ["phases", "tasks"],
        "properties": {
            "phases": {"type": "array", "items": {"type": "string"}},
            "tasks": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "title", "phase"],
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "phase": {"type": "string"}},
            }},
        },
    });
    let plan = client
        .extract_value("Plan a small website launch in phases and tasks.", schema)
        .await?;
    println!(
        "{}",
        serde_json::to_string_pretty(&plan).unwrap_or_default()
    );
    Ok(())
}
