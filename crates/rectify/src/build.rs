//! Providers from a [`ProviderSpec`], the embedded model included when it is built in.

use std::sync::Arc;

use rectify_provider::Provider;
use rectify_provider::spec::{ProviderKind, ProviderSpec};

use crate::Error;

/// Options of the embedded model ([`ProviderKind::Local`]); with the `local` feature off
/// there are none.
#[cfg(feature = "local")]
pub type LocalOptions = rectify_local::LocalOptions;

/// Options of the embedded model ([`ProviderKind::Local`]); with the `local` feature off
/// there are none.
#[cfg(not(feature = "local"))]
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct LocalOptions {}

/// Builds the provider `spec` describes: the backends of
/// [`ProviderSpec::build`](rectify_provider::spec::ProviderSpec::build) and, with the
/// `local` feature, the embedded model (default options, `RECTIFY_MODEL_PATH` honoured).
pub fn provider_from_spec(spec: &ProviderSpec) -> Result<Arc<dyn Provider>, Error> {
    provider_from_spec_with(spec, LocalOptions::default())
}

/// [`provider_from_spec`] with options for the embedded model (ignored for other kinds).
pub fn provider_from_spec_with(
    spec: &ProviderSpec,
    local: LocalOptions,
) -> Result<Arc<dyn Provider>, Error> {
    if spec.kind == ProviderKind::Local {
        return build_local(local);
    }
    Ok(spec.build()?)
}

#[cfg(feature = "local")]
fn build_local(options: LocalOptions) -> Result<Arc<dyn Provider>, Error> {
    let provider = rectify_local::LocalProvider::from_env_or_default(options)
        .map_err(|e| Error::config(e.to_string()))?;
    Ok(Arc::new(provider))
}

#[cfg(not(feature = "local"))]
fn build_local(_options: LocalOptions) -> Result<Arc<dyn Provider>, Error> {
    Err(Error::config(
        "no provider is configured and the embedded model is not built in: set \
         OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY (or RECTIFY_PROVIDER), or turn on \
         the `local` feature of rectify",
    ))
}

#[cfg(all(test, not(feature = "local")))]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_model_needs_its_feature() {
        let error = provider_from_spec(&ProviderSpec::new(ProviderKind::Local)).unwrap_err();
        assert!(matches!(error, Error::Config { .. }));
        assert!(error.to_string().contains("`local` feature"), "{error}");
    }
}
