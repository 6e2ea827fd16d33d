//! A command-line agent as the model: any program that reads the prompt on stdin (or takes
//! it as `{prompt}`) and prints an answer. Runs as is: the "agent" here is a shell script
//! that answers badly first (a missing field), then well once it sees the feedback.
//!
//! ```text
//! cargo run -p rectify --example command_agent
//! ```
//! With a real agent: `vec!["claude".into(), "-p".into(), "{prompt}".into()]`.

use rectify::{Client, FeedbackMode, ProviderKind, ProviderSpec};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct Release {
    version: String,
    date: String,
}

const AGENT: &str = r#"
prompt=$(cat)
case "$prompt" in
  *"PREVIOUS VALIDATION FAILED"*) echo 'Here you go: {"version": "1.4.0", "date": "2026-11-24"}' ;;
  *) echo '{"version": "1.4.0"}' ;;
esac
"#;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), rectify::Error> {
    let mut spec = ProviderSpec::new(ProviderKind::Command);
    spec.command = vec!["sh".into(), "-c".into(), AGENT.into()];
    // Agents take one prompt: the feedback goes in a block before it.
    let client = Client::from_spec(&spec)?.feedback(FeedbackMode::Prefix);
    let task = client
        .task("When was the last release? Answer as JSON.")
        .schema_of::<Release>()?;
    let outcome = client.run_typed::<Release>(&task).await;
    for attempt in &outcome.ledger().attempts {
        println!("attempt {}: {}", attempt.number, attempt.raw.trim());
    }
    let release = rectify::Error::from_outcome(outcome)?;
    println!("{release:?}");
    Ok(())
}
