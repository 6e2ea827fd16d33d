//! Choosing the provider from what the caller said and what the environment has: the rules
//! the command line and the library share.

use std::collections::HashMap;
use std::path::PathBuf;

use super::{ProviderKind, ProviderSpec};
use crate::{ProviderError, StructuredOutput};

/// What a caller chose about the provider; [`ProviderChoice::resolve`] fills in the rest
/// from the environment.
///
/// Without a kind: the agent command when one is given, else `openai` when `OPENAI_API_KEY`
/// or `OPENAI_BASE_URL` is set (or a base URL is given), else `anthropic` when
/// `ANTHROPIC_API_KEY` is set, else the embedded `local` model. HTTP backends without a model
/// get [`ProviderKind::default_model`].
///
/// ```
/// use rectify_provider::spec::{ProviderChoice, ProviderEnv, ProviderKind};
///
/// let env = ProviderEnv::from_pairs([("ANTHROPIC_API_KEY", "sk-ant-test")]);
/// let spec = ProviderChoice::default().resolve_in(&env).unwrap();
/// assert_eq!(spec.kind, ProviderKind::Anthropic);
/// assert_eq!(spec.model.as_deref(), Some("claude-3-5-haiku-latest"));
///
/// let mut agent = ProviderChoice::default();
/// agent.command = vec!["claude".into(), "-p".into()];
/// assert_eq!(agent.resolve_in(&env).unwrap().kind, ProviderKind::Command);
///
/// assert_eq!(ProviderChoice::default().resolve_in(&ProviderEnv::empty()).unwrap().kind, ProviderKind::Local);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderChoice {
    /// The backend, when the caller named one.
    pub kind: Option<ProviderKind>,
    /// The model.
    pub model: Option<String>,
    /// The base URL of an HTTP backend.
    pub base_url: Option<String>,
    /// An agent command and its arguments.
    pub command: Vec<String>,
    /// The cassette of a `replay` provider.
    pub cassette: Option<PathBuf>,
    /// How an OpenAI-compatible server is asked for JSON.
    pub structured_output: Option<StructuredOutput>,
    /// Provider keys an agent command may see ([`ProviderSpec::pass_env`]).
    pub pass_env: Vec<String>,
}

/// The environment variables provider choice reads: the process's, or a fixed set (tests).
#[derive(Debug, Clone, Default)]
pub struct ProviderEnv {
    fixed: Option<HashMap<String, String>>,
}

impl ProviderEnv {
    /// The process environment.
    pub fn process() -> ProviderEnv {
        ProviderEnv { fixed: None }
    }

    /// No variables at all.
    pub fn empty() -> ProviderEnv {
        ProviderEnv::from_pairs(std::iter::empty::<(String, String)>())
    }

    /// Exactly these variables.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> ProviderEnv {
        let fixed = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        ProviderEnv { fixed: Some(fixed) }
    }

    /// The value of `name`, when set and not blank.
    pub fn get(&self, name: &str) -> Option<String> {
        let value = match &self.fixed {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        };
        value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }

    fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

impl ProviderChoice {
    /// The choice the environment makes: `RECTIFY_PROVIDER`, `RECTIFY_MODEL`,
    /// `RECTIFY_STRUCTURED_OUTPUT`. A value that names nothing known is an error.
    pub fn from_env() -> Result<ProviderChoice, ProviderError> {
        ProviderChoice::from_env_in(&ProviderEnv::process())
    }

    /// [`ProviderChoice::from_env`] reading `env`.
    pub fn from_env_in(env: &ProviderEnv) -> Result<ProviderChoice, ProviderError> {
        let parse = |var: &str, text: String, error: String| {
            ProviderError::config("environment", format!("`{var}={text}`: {error}"))
        };
        let kind = match env.get("RECTIFY_PROVIDER") {
            Some(text) => Some(
                text.parse()
                    .map_err(|e| parse("RECTIFY_PROVIDER", text, e))?,
            ),
            None => None,
        };
        let structured_output = match env.get("RECTIFY_STRUCTURED_OUTPUT") {
            Some(text) => Some(
                text.parse()
                    .map_err(|e| parse("RECTIFY_STRUCTURED_OUTPUT", text, e))?,
            ),
            None => None,
        };
        Ok(ProviderChoice {
            kind,
            model: env.get("RECTIFY_MODEL"),
            structured_output,
            ..ProviderChoice::default()
        })
    }

    /// The spec, with the kind chosen by the rules above in the process environment.
    pub fn resolve(self) -> Result<ProviderSpec, ProviderError> {
        self.resolve_in(&ProviderEnv::process())
    }

    /// [`ProviderChoice::resolve`] in `env`.
    pub fn resolve_in(self, env: &ProviderEnv) -> Result<ProviderSpec, ProviderError> {
        let kind = self.kind.unwrap_or_else(|| self.default_kind(env));
        if kind != ProviderKind::Command && !self.command.is_empty() {
            return Err(ProviderError::config(
                kind.to_string(),
                format!("an agent command was given, but the provider is `{kind}`"),
            ));
        }
        let mut spec = ProviderSpec::new(kind);
        spec.model = self
            .model
            .filter(|m| !m.trim().is_empty())
            .or_else(|| kind.default_model().map(str::to_owned));
        spec.base_url = self.base_url;
        spec.command = self.command;
        spec.cassette = self.cassette;
        spec.structured_output = self.structured_output;
        spec.pass_env = self.pass_env;
        Ok(spec)
    }

    fn default_kind(&self, env: &ProviderEnv) -> ProviderKind {
        if !self.command.is_empty() {
            ProviderKind::Command
        } else if env.is_set("OPENAI_API_KEY")
            || env.is_set("OPENAI_BASE_URL")
            || self.base_url.is_some()
        {
            ProviderKind::OpenAi
        } else if env.is_set("ANTHROPIC_API_KEY") {
            ProviderKind::Anthropic
        } else {
            ProviderKind::Local
        }
    }
}

impl ProviderSpec {
    /// The provider the environment asks for ([`ProviderChoice::from_env`], then
    /// [`ProviderChoice::resolve`]).
    pub fn from_env() -> Result<ProviderSpec, ProviderError> {
        ProviderChoice::from_env()?.resolve()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_in(pairs: &[(&str, &str)]) -> ProviderKind {
        let env = ProviderEnv::from_pairs(pairs.iter().copied());
        ProviderChoice::from_env_in(&env)
            .unwrap()
            .resolve_in(&env)
            .unwrap()
            .kind
    }

    #[test]
    fn the_environment_picks_the_backend_in_order() {
        assert_eq!(kind_in(&[]), ProviderKind::Local);
        assert_eq!(kind_in(&[("OPENAI_API_KEY", "  ")]), ProviderKind::Local);
        assert_eq!(
            kind_in(&[("ANTHROPIC_API_KEY", "k")]),
            ProviderKind::Anthropic
        );
        let both = [
            ("ANTHROPIC_API_KEY", "k"),
            ("OPENAI_BASE_URL", "http://h/v1"),
        ];
        assert_eq!(kind_in(&both), ProviderKind::OpenAi);
        let explicit = [("OPENAI_API_KEY", "k"), ("RECTIFY_PROVIDER", "Anthropic")];
        assert_eq!(kind_in(&explicit), ProviderKind::Anthropic);
    }

    #[test]
    fn models_and_modes_come_from_the_environment() {
        let env = ProviderEnv::from_pairs([
            ("OPENAI_API_KEY", "k"),
            ("RECTIFY_MODEL", "gpt-x"),
            ("RECTIFY_STRUCTURED_OUTPUT", "json_object"),
        ]);
        let spec = ProviderChoice::from_env_in(&env)
            .unwrap()
            .resolve_in(&env)
            .unwrap();
        assert_eq!(spec.model.as_deref(), Some("gpt-x"));
        assert_eq!(spec.structured_output, Some(StructuredOutput::JsonObject));
        let bad = ProviderEnv::from_pairs([("RECTIFY_PROVIDER", "gemini")]);
        let error = ProviderChoice::from_env_in(&bad).unwrap_err();
        assert!(
            error.to_string().contains("RECTIFY_PROVIDER=gemini"),
            "{error}"
        );
    }

    #[test]
    fn a_command_needs_the_command_kind() {
        let mut choice = ProviderChoice {
            kind: Some(ProviderKind::OpenAi),
            ..ProviderChoice::default()
        };
        choice.command = vec!["agent".into()];
        let error = choice.resolve_in(&ProviderEnv::empty()).unwrap_err();
        assert!(error.to_string().contains("agent command"), "{error}");
    }
}
