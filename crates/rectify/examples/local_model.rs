//! The embedded model (Gemma 3 270M through llama.cpp, fetched on first use): no key, no
//! server. Needs the `local` feature (cmake and libclang to build llama.cpp):
//!
//! ```text
//! cargo run -p rectify --features local --example local_model
//! ```

use rectify::{Client, ProviderKind, ProviderSpec};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct City {
    name: String,
    country: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), rectify::Error> {
    // `Client::from_env()` picks the embedded model too when no API is configured.
    let client = Client::from_spec(&ProviderSpec::new(ProviderKind::Local))?.max_attempts(3);
    let city: City = client.extract("Paris is the capital of France.").await?;
    println!("{city:?}");
    Ok(())
}
