//! API keys that never show up in output.

use std::fmt;

/// The environment variables that hold provider keys. Agents (command providers, command
/// validators) are started without them unless a provider names them in
/// [`ProviderSpec::pass_env`](crate::spec::ProviderSpec::pass_env); cassettes redact them.
pub const SECRET_VARIABLES: &[&str] = &["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/// A secret such as an API key. `Debug` prints `***`; there is no `Display` and no `Serialize`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// Reads a key from an environment variable; empty values count as absent.
    pub fn from_env(var: &str) -> Option<Self> {
        std::env::var(var)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| Self(v.trim().to_owned()))
    }

    /// The key itself, for building request headers and for redaction.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Replaces every occurrence of `secret` in `text` with `***` (short secrets are left alone so
/// that redaction cannot mangle ordinary text).
pub fn redact_secret(text: &str, secret: &str) -> String {
    if secret.len() < 6 {
        text.to_owned()
    } else {
        text.replace(secret, "***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_key() {
        let key = ApiKey::new("sk-very-secret-key");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(key.expose(), "sk-very-secret-key");
    }

    #[test]
    fn redaction_replaces_every_occurrence() {
        assert_eq!(
            redact_secret("a sk-123456 b sk-123456", "sk-123456"),
            "a *** b ***"
        );
        assert_eq!(redact_secret("abc", "ab"), "abc");
    }
}
