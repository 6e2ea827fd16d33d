//! Asks the local model one question under a JSON Schema and prints the answer on stdout and
//! the generation metadata (tokens, speed, grammar use) on stderr.
//!
//! ```text
//! cargo run -p rectify-local --example ask -- "PROMPT" SCHEMA.json [THREADS] [unconstrained]
//! ```
//!
//! THREADS 0 (or none) lets the provider choose, as `rectify ask` does.

use std::process::ExitCode;

use rectify_local::{LocalOptions, LocalProvider};
use rectify_provider::{Provider, Request};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(prompt), Some(schema_path)) = (args.first(), args.get(1)) else {
        return Err("usage: ask PROMPT SCHEMA.json [THREADS] [unconstrained]".into());
    };
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(schema_path)?)?;
    let options = LocalOptions {
        threads: args.get(2).map(|t| t.parse()).transpose()?,
        constrained: args.get(3).is_none_or(|m| m != "unconstrained"),
        ..LocalOptions::default()
    };
    let provider = LocalProvider::from_env_or_default(options)?;
    let started = std::time::Instant::now();
    let model = provider.load()?;
    eprintln!(
        "load: {:?} (model {:?})",
        started.elapsed(),
        model.load_time()
    );
    let response = provider
        .complete(&Request::new(prompt.as_str()).with_schema(schema))
        .await?;
    println!("{}", response.text);
    eprintln!("{:?} {}", response.finish_reason, response.raw);
    Ok(())
}
