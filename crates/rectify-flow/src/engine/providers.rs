//! Building providers for agent calls from the workflow's [`ProviderSpec`]s.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rectify_provider::command::{CommandConfig, CommandProvider, PromptInput};
use rectify_provider::spec::{ProviderKind, ProviderSpec};
use rectify_provider::{Provider, ProviderError};

/// Where and how one agent call runs.
#[derive(Clone, Debug)]
pub struct CallContext {
    /// The unit that makes the call (`step` or `step[key]`): a unit makes one call at a time.
    pub unit: String,
    /// The working directory (command agents run in it).
    pub cwd: PathBuf,
    /// Variables set for command agents (`RECTIFY_OUTPUTS`, `RECTIFY_RUN_ID`, ...).
    pub env: Vec<(String, String)>,
    /// Time limit of the call.
    pub timeout: Duration,
}

/// Makes the provider for one call. The default builds it from the spec; tests and
/// embedders may substitute their own (for example a cassette or an in-process model).
pub trait ProviderFactory: Send + Sync {
    /// The provider for `spec` in `context`.
    fn provider(
        &self,
        spec: &ProviderSpec,
        context: &CallContext,
    ) -> Result<Arc<dyn Provider>, ProviderError>;
}

/// Builds providers from their specs: command agents in the working directory with the
/// call's variables and time limit (provider keys removed from their environment), HTTP
/// backends from the environment, and the embedded model (one instance, shared).
#[derive(Default)]
pub struct SpecFactory {
    #[cfg_attr(not(feature = "local"), allow(dead_code))]
    local: Mutex<Option<Arc<dyn Provider>>>,
}

impl std::fmt::Debug for SpecFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpecFactory").finish_non_exhaustive()
    }
}

impl ProviderFactory for SpecFactory {
    fn provider(
        &self,
        spec: &ProviderSpec,
        context: &CallContext,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        match spec.kind {
            ProviderKind::Command => command(spec, context),
            ProviderKind::Local => self.local(),
            _ => spec.build(),
        }
    }
}

impl SpecFactory {
    #[cfg(feature = "local")]
    fn local(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let mut slot = self
            .local
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = slot.as_ref() {
            return Ok(Arc::clone(p));
        }
        let provider = rectify_local::LocalProvider::from_env_or_default(
            rectify_local::LocalOptions::default(),
        )
        .map_err(|e| ProviderError::config("local", e.to_string()))?;
        let provider: Arc<dyn Provider> = Arc::new(provider);
        *slot = Some(Arc::clone(&provider));
        Ok(provider)
    }

    #[cfg(not(feature = "local"))]
    #[allow(clippy::unused_self)] // the `local` build uses `self`
    fn local(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(ProviderError::config(
            "local",
            "built without the `local` feature (the embedded model)",
        ))
    }
}

fn command(spec: &ProviderSpec, context: &CallContext) -> Result<Arc<dyn Provider>, ProviderError> {
    let Some((program, args)) = spec.command.split_first() else {
        return Err(ProviderError::config(
            "command",
            "the provider has no `command`",
        ));
    };
    let mut config = CommandConfig::new(program.clone(), args.iter().cloned());
    config.model.clone_from(&spec.model);
    config.cwd = Some(context.cwd.clone());
    config.env.clone_from(&context.env);
    // Provider keys are removed (the default) unless the provider names them or the step
    // sets them itself.
    config
        .env_remove
        .retain(|v| !spec.pass_env.contains(v) && !context.env.iter().any(|(k, _)| k == v));
    config.timeout = context.timeout;
    config.prompt_input = PromptInput::Auto;
    Ok(Arc::new(CommandProvider::new(config)?))
}

#[cfg(all(test, feature = "local"))]
mod tests {
    use super::*;

    /// Every step of a run that names the embedded model gets the same provider, so the model
    /// is loaded once per run (and its prompt cache carries from one step to the next).
    #[test]
    fn the_embedded_model_is_one_provider_for_every_call() {
        let factory = SpecFactory::default();
        let spec = ProviderSpec::new(ProviderKind::Local);
        let context = |unit: &str| CallContext {
            unit: unit.to_owned(),
            cwd: PathBuf::from("."),
            env: Vec::new(),
            timeout: Duration::from_secs(1),
        };
        let first = factory.provider(&spec, &context("a")).unwrap();
        let second = factory.provider(&spec, &context("b[1]")).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert!(first.name().starts_with("local:"), "{}", first.name());
    }
}
