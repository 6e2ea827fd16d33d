//! The blocking API, for programs without an async runtime.
//!
//! Needs a provider in the environment (see the `extract` example):
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run -p rectify --example blocking
//! ```

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct Sentiment {
    label: String,
    score: f64,
}

fn main() -> Result<(), rectify::Error> {
    let client = rectify::blocking::Client::from_env()?.configure(|c| c.max_attempts(2));
    let sentiment: Sentiment = client.extract("Rate the sentiment of: 'what a lovely day'")?;
    println!("{sentiment:?}");
    Ok(())
}
