//! The per-backend halves of [`ProviderSpec::build`].

use std::sync::Arc;

use super::ProviderSpec;
use crate::{Provider, ProviderError};

impl ProviderSpec {
    #[cfg(feature = "openai")]
    pub(super) fn openai(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let mut config = crate::openai::OpenAiConfig::from_env(self.model()?);
        if let Some(url) = &self.base_url {
            config.base_url.clone_from(url);
        }
        if let Some(mode) = self.structured_output {
            config.structured_output = mode;
        }
        Ok(Arc::new(crate::openai::OpenAiProvider::new(config)?))
    }

    #[cfg(not(feature = "openai"))]
    pub(super) fn openai(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(self.unavailable("openai"))
    }

    #[cfg(feature = "anthropic")]
    pub(super) fn anthropic(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let mut config = crate::anthropic::AnthropicConfig::from_env(self.model()?);
        if let Some(url) = &self.base_url {
            config.base_url.clone_from(url);
        }
        Ok(Arc::new(crate::anthropic::AnthropicProvider::new(config)?))
    }

    #[cfg(not(feature = "anthropic"))]
    pub(super) fn anthropic(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(self.unavailable("anthropic"))
    }

    #[cfg(feature = "command")]
    pub(super) fn command(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let Some((program, args)) = self.command.split_first() else {
            return Err(ProviderError::config(
                "command",
                "no command given (pass it after `--`)",
            ));
        };
        let mut config = crate::command::CommandConfig::new(program.clone(), args.iter().cloned());
        config.model.clone_from(&self.model);
        config.env_remove.retain(|v| !self.pass_env.contains(v));
        if let Some(timeout) = self.timeout {
            config.timeout = timeout;
        }
        Ok(Arc::new(crate::command::CommandProvider::new(config)?))
    }

    #[cfg(not(feature = "command"))]
    pub(super) fn command(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(self.unavailable("command"))
    }

    #[cfg(feature = "replay")]
    pub(super) fn replay(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let Some(path) = &self.cassette else {
            return Err(ProviderError::config("replay", "no cassette file given"));
        };
        Ok(Arc::new(crate::replay::ReplayProvider::from_file(path)?))
    }

    #[cfg(not(feature = "replay"))]
    pub(super) fn replay(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(self.unavailable("replay"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ProviderKind, ProviderSpec};
    use crate::ErrorKind;

    #[test]
    fn kinds_parse_case_insensitively() {
        assert_eq!("OpenAI".parse::<ProviderKind>(), Ok(ProviderKind::OpenAi));
        assert_eq!("replay".parse::<ProviderKind>(), Ok(ProviderKind::Replay));
        assert_eq!("local".parse::<ProviderKind>(), Ok(ProviderKind::Local));
        assert!("gemini".parse::<ProviderKind>().is_err());
        assert_eq!(ProviderKind::Anthropic.to_string(), "anthropic");
    }

    #[test]
    fn http_backends_get_their_default_model() {
        let mut spec = ProviderSpec::new(ProviderKind::OpenAi);
        spec.base_url = Some("http://127.0.0.1:9/v1".into());
        assert_eq!(spec.build().unwrap().name(), "openai:gpt-4o-mini");
        spec.model = Some("  ".into());
        assert_eq!(spec.build().unwrap().name(), "openai:gpt-4o-mini");
        assert_eq!(ProviderKind::Command.default_model(), None);
    }

    #[test]
    fn the_structured_output_mode_reaches_the_provider() {
        let mut spec = ProviderSpec::new(ProviderKind::OpenAi);
        spec.base_url = Some("http://127.0.0.1:9/v1".into());
        spec.structured_output = Some(crate::StructuredOutput::JsonObject);
        let caps = spec.build().unwrap().capabilities();
        assert!(caps.json_mode && !caps.json_schema);
        let error = ProviderSpec::new(ProviderKind::Local).build().unwrap_err();
        assert!(matches!(error.kind, ErrorKind::Config { .. }));
    }

    #[test]
    fn an_explicit_local_base_url_needs_no_key() {
        let mut spec = ProviderSpec::new(ProviderKind::OpenAi);
        spec.model = Some("llama3".into());
        spec.base_url = Some("http://127.0.0.1:11434/v1".into());
        assert_eq!(spec.build().unwrap().name(), "openai:llama3");
    }

    #[test]
    fn commands_and_replays_need_their_inputs() {
        let error = ProviderSpec::new(ProviderKind::Command)
            .build()
            .unwrap_err();
        assert!(error.to_string().contains("after `--`"));
        let mut spec = ProviderSpec::new(ProviderKind::Command);
        spec.command = vec!["claude".into(), "-p".into(), "{prompt}".into()];
        assert_eq!(spec.build().unwrap().name(), "command:claude");
        let error = ProviderSpec::new(ProviderKind::Replay).build().unwrap_err();
        assert!(error.to_string().contains("cassette"));
    }
}
