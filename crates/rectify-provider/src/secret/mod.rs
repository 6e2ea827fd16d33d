//! API keys that never show up in output.

mod stream;

use std::fmt;

pub use stream::Redactor;

/// Secrets shorter than this are not redacted: replacing them could mangle ordinary text.
const MIN_SECRET_LEN: usize = 6;

/// The environment variables that hold the keys of the providers rectify talks to. Agents
/// (command providers, command validators) are started without them, and without the names in
/// [`SECRET_ENV_VARIABLE`], unless a provider names them in
/// [`ProviderSpec::pass_env`](crate::spec::ProviderSpec::pass_env); cassettes and agents'
/// answers redact their values. [`secret_variables`] is the whole list.
pub const SECRET_VARIABLES: &[&str] = &["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/// The variable whose value extends [`SECRET_VARIABLES`]: names separated by commas or
/// whitespace (`RECTIFY_SECRET_ENV="GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY"`).
pub const SECRET_ENV_VARIABLE: &str = "RECTIFY_SECRET_ENV";

/// Every variable kept from agents: [`SECRET_VARIABLES`] and the names listed in
/// [`SECRET_ENV_VARIABLE`] (only plain names: letters, digits and `_`).
pub fn secret_variables() -> Vec<String> {
    with_listed(std::env::var(SECRET_ENV_VARIABLE).ok().as_deref())
}

fn with_listed(extra: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = SECRET_VARIABLES.iter().map(|v| (*v).to_owned()).collect();
    for name in extra
        .unwrap_or_default()
        .split(|c: char| c == ',' || c.is_whitespace())
    {
        let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// Replaces the value of every variable of [`secret_variables`] set in this process with
/// `***` in `text` (an agent that was given a key through `pass_env` and echoed it).
pub fn redact_secrets(text: &str) -> String {
    let mut out = text.to_owned();
    for name in secret_variables() {
        if let Some(key) = ApiKey::from_env(&name) {
            out = redact_secret(&out, key.expose());
        }
    }
    out
}

/// Makes this process non-dumpable (Linux `PR_SET_DUMPABLE` = 0): the programs it starts, which
/// run as the same user, can then no longer read its memory or `/proc/<pid>/environ`, where the
/// keys removed from their environment still are; nor can a debugger attach, and no core dump
/// is written. Programs it starts are dumpable again (the flag resets at `exec`). The `rectify`
/// binary calls it first thing; a library user calls it before running agents.
#[cfg(all(target_os = "linux", feature = "command"))]
pub fn hide_environment() -> std::io::Result<()> {
    nix::sys::prctl::set_dumpable(false).map_err(std::io::Error::from)
}

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
    if secret.len() < MIN_SECRET_LEN {
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
    fn the_list_of_secrets_is_extended_by_name_only() {
        assert_eq!(
            with_listed(Some("GITHUB_TOKEN, bad-name;rm X_KEY\tOPENAI_API_KEY")),
            [
                "OPENAI_API_KEY",
                "ANTHROPIC_API_KEY",
                "GITHUB_TOKEN",
                "X_KEY"
            ]
        );
        assert_eq!(with_listed(None), SECRET_VARIABLES);
    }
}
