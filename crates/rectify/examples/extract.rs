//! Typed extraction: a Rust type in, a checked value of that type out.
//!
//! Needs a provider in the environment, e.g. `OPENAI_API_KEY` (or `OPENAI_BASE_URL` for a
//! local OpenAI-compatible server, or `ANTHROPIC_API_KEY`):
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run -p rectify --example extract
//! ```

use schemars::JsonSchema;
use serde::Deserialize;

/// What we want out of the text.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct Invoice {
    /// The invoice number, as printed.
    number: String,
    /// Line items.
    items: Vec<Item>,
    /// The total in the invoice's currency.
    total: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct Item {
    description: String,
    quantity: u32,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), rectify::Error> {
    let client = rectify::Client::from_env()?.max_attempts(3);
    let invoice: Invoice = client
        .extract("Invoice INV-2024-7: 3 pens and 2 notebooks, 17.40 EUR in total.")
        .await?;
    println!("{invoice:#?}");
    Ok(())
}
