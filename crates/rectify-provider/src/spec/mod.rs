//! Building a provider from a short description (what the CLI's `--provider` flags give).

mod build;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use crate::{Provider, ProviderError};

/// The backends a [`ProviderSpec`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI-compatible chat completions.
    OpenAi,
    /// The Anthropic Messages API.
    Anthropic,
    /// A command-line agent.
    Command,
    /// A recorded cassette.
    Replay,
}

impl FromStr for ProviderKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Self::OpenAi),
            "anthropic" => Ok(Self::Anthropic),
            "command" => Ok(Self::Command),
            "replay" => Ok(Self::Replay),
            other => Err(format!(
                "unknown provider `{other}` (expected openai, anthropic, command or replay)"
            )),
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Command => "command",
            Self::Replay => "replay",
        })
    }
}

/// A provider described by a kind and a few options; keys and base URLs not given here come
/// from the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`,
/// `ANTHROPIC_BASE_URL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSpec {
    /// Which backend.
    pub kind: ProviderKind,
    /// The model (required for `openai` and `anthropic`; `{model}` for commands).
    pub model: Option<String>,
    /// Overrides the base URL of an HTTP backend.
    pub base_url: Option<String>,
    /// For `command`: the program and its arguments (placeholders allowed).
    pub command: Vec<String>,
    /// For `replay`: the cassette to answer from.
    pub cassette: Option<PathBuf>,
    /// Wrap the provider in a recorder writing this cassette.
    pub record: Option<PathBuf>,
}

impl ProviderSpec {
    /// A spec of `kind` with no options.
    pub fn new(kind: ProviderKind) -> Self {
        Self {
            kind,
            model: None,
            base_url: None,
            command: Vec::new(),
            cassette: None,
            record: None,
        }
    }

    /// Builds the provider (wrapped in a recorder when `record` is set).
    pub fn build(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let provider = self.build_inner()?;
        match &self.record {
            #[cfg(feature = "replay")]
            Some(path) => {
                let mut recorder = crate::replay::RecordingProvider::new(provider, path.clone());
                for key in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]
                    .iter()
                    .filter_map(|v| crate::ApiKey::from_env(v))
                {
                    recorder = recorder.redact(&key);
                }
                Ok(Arc::new(recorder))
            }
            #[cfg(not(feature = "replay"))]
            Some(_) => Err(self.unavailable("replay")),
            None => Ok(provider),
        }
    }

    fn build_inner(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        match self.kind {
            ProviderKind::OpenAi => self.openai(),
            ProviderKind::Anthropic => self.anthropic(),
            ProviderKind::Command => self.command(),
            ProviderKind::Replay => self.replay(),
        }
    }

    #[cfg(any(feature = "openai", feature = "anthropic"))]
    fn model(&self) -> Result<String, ProviderError> {
        self.model
            .clone()
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| {
                ProviderError::config(
                    self.kind.to_string(),
                    "no model given (use `--model` or `RECTIFY_MODEL`)",
                )
            })
    }

    #[allow(dead_code)] // used only when a backend feature is off
    fn unavailable(&self, feature: &str) -> ProviderError {
        ProviderError::config(
            self.kind.to_string(),
            format!("built without the `{feature}` feature"),
        )
    }
}
