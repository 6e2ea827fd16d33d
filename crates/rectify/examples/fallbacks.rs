//! A fallback ladder: a cheap model first, a stronger one when it runs out of attempts (with
//! the feedback gathered so far), under a token and cost budget.
//!
//! ```text
//! OPENAI_API_KEY=sk-... ANTHROPIC_API_KEY=sk-ant-... cargo run -p rectify --example fallbacks
//! ```

use rectify::{Budget, Client, Error, ProviderKind, ProviderSpec};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct Summary {
    title: String,
    points: Vec<String>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let mut small = ProviderSpec::new(ProviderKind::OpenAi);
    small.model = Some("gpt-4o-mini".into());
    let mut strong = ProviderSpec::new(ProviderKind::Anthropic);
    strong.model = Some("claude-sonnet-4-5".into());
    let client = Client::from_spec(&small)?
        .max_attempts(2)
        .fallback_spec(&strong)?
        .budget(
            Budget::default()
                .with_max_tokens(20_000)
                .with_max_cost(0.05),
        );
    match client
        .extract::<Summary>("Summarise: rectify checks model output.")
        .await
    {
        Ok(summary) => println!("{summary:#?}"),
        Err(Error::Exhausted(exhausted)) => {
            eprintln!("{exhausted}");
            for attempt in &exhausted.ledger.attempts {
                eprintln!(
                    "  attempt {} on {}: {} errors",
                    attempt.number,
                    attempt.provider,
                    attempt.error_count()
                );
            }
        }
        Err(other) => return Err(other),
    }
    Ok(())
}
