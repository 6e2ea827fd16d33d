//! Building a provider from a short description (what the CLI's `--provider` flags give).

mod build;
mod choose;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{Provider, ProviderError, StructuredOutput};

pub use choose::{ProviderChoice, ProviderEnv};

/// The backends a [`ProviderSpec`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ProviderKind {
    /// OpenAI-compatible chat completions.
    OpenAi,
    /// The Anthropic Messages API.
    Anthropic,
    /// A command-line agent.
    Command,
    /// A recorded cassette.
    Replay,
    /// The embedded local model. It lives in `rectify-local`, above this crate, so
    /// [`ProviderSpec::build`] cannot build it: callers that offer it (the CLI, workflows)
    /// build it themselves.
    Local,
}

impl ProviderKind {
    /// The model asked for when none is given: `gpt-4o-mini` for `openai`,
    /// `claude-3-5-haiku-latest` for `anthropic`, none for the others (a command agent uses
    /// its own, the embedded model is Gemma 3 270M).
    pub fn default_model(self) -> Option<&'static str> {
        match self {
            Self::OpenAi => Some("gpt-4o-mini"),
            Self::Anthropic => Some("claude-3-5-haiku-latest"),
            Self::Command | Self::Replay | Self::Local => None,
        }
    }
}

impl FromStr for ProviderKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Self::OpenAi),
            "anthropic" => Ok(Self::Anthropic),
            "command" => Ok(Self::Command),
            "replay" => Ok(Self::Replay),
            "local" => Ok(Self::Local),
            other => Err(format!(
                "unknown provider `{other}` (expected openai, anthropic, command, replay or local)"
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
            Self::Local => "local",
        })
    }
}

/// A provider described by a kind and a few options; keys and base URLs not given here come
/// from the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`,
/// `ANTHROPIC_BASE_URL`).
///
/// Deserializable, so that workflow files describe providers with the same type the CLI
/// builds from its flags:
///
/// ```
/// use rectify_provider::spec::{ProviderKind, ProviderSpec};
///
/// let spec: ProviderSpec = serde_json::from_str(
///     r#"{"kind": "command", "command": ["claude", "-p", "{prompt}"], "timeout_secs": 900}"#,
/// ).unwrap();
/// assert_eq!(spec.kind, ProviderKind::Command);
/// assert_eq!(spec.timeout.unwrap().as_secs(), 900);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSpec {
    /// Which backend.
    pub kind: ProviderKind,
    /// The model (`openai` and `anthropic` use [`ProviderKind::default_model`] when it is
    /// not given; `{model}` for commands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Overrides the base URL of an HTTP backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// For `command`: the program and its arguments (placeholders allowed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// For `replay`: the cassette to answer from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cassette: Option<PathBuf>,
    /// Wrap the provider in a recorder writing this cassette.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<PathBuf>,
    /// Time limit of one call (for a command agent: one run, after which its process group is
    /// killed). `None`: the backend's default.
    #[serde(
        default,
        rename = "timeout_secs",
        with = "secs",
        skip_serializing_if = "Option::is_none"
    )]
    pub timeout: Option<Duration>,
    /// For `openai`: how JSON answers are requested first (default `json_schema`, or
    /// `RECTIFY_STRUCTURED_OUTPUT`); a server that rejects it gets a weaker mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<StructuredOutput>,
    /// For `command`: provider keys the agent may see. Every variable of
    /// [`SECRET_VARIABLES`](crate::SECRET_VARIABLES) (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`) is
    /// removed from an agent's environment unless it is named here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
}

/// `Option<Duration>` as whole or fractional seconds.
mod secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option)] // the signature serde's `with` calls
    pub(super) fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_f64(d.as_secs_f64()),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        let secs = Option::<f64>::deserialize(d)?;
        match secs {
            Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
            Some(s) => Err(serde::de::Error::custom(format!(
                "timeout_secs must be a positive number of seconds, got {s}"
            ))),
            None => Ok(None),
        }
    }
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
            timeout: None,
            structured_output: None,
            pass_env: Vec::new(),
        }
    }

    /// Builds the provider (wrapped in a recorder when `record` is set).
    pub fn build(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let provider = self.build_inner()?;
        match &self.record {
            #[cfg(feature = "replay")]
            Some(path) => {
                let mut recorder = crate::replay::RecordingProvider::new(provider, path.clone());
                for key in crate::secret_variables()
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
            ProviderKind::Local => Err(ProviderError::config(
                "local",
                "the embedded model is built by `rectify-local`, not by this crate",
            )),
        }
    }

    /// The model given, else the kind's default.
    #[cfg(any(feature = "openai", feature = "anthropic"))]
    fn model(&self) -> Result<String, ProviderError> {
        self.model
            .clone()
            .filter(|m| !m.trim().is_empty())
            .or_else(|| self.kind.default_model().map(str::to_owned))
            .ok_or_else(|| {
                ProviderError::config(self.kind.to_string(), "no model given (`RECTIFY_MODEL`)")
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
