//! Removing secrets from what gets recorded.

use regex::Regex;
use serde_json::Value;

use crate::secret::{ApiKey, redact_secret};

/// Patterns of well-known key formats, redacted even when the key was not registered.
const PATTERNS: &[&str] = &[
    r"sk-[A-Za-z0-9_\-]{16,}",
    r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{8,}=*",
    r"AIza[0-9A-Za-z_\-]{30,}",
];

/// Replaces registered secrets and well-known key patterns with `***`.
#[derive(Debug, Clone)]
pub struct Redactor {
    secrets: Vec<String>,
    patterns: Vec<Regex>,
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Redactor {
    /// A redactor with the built-in key patterns.
    pub fn new() -> Self {
        let patterns = PATTERNS.iter().filter_map(|p| Regex::new(p).ok()).collect();
        Self {
            secrets: Vec::new(),
            patterns,
        }
    }

    /// Also redacts this key wherever it appears.
    pub fn with_secret(mut self, key: &ApiKey) -> Self {
        self.secrets.push(key.expose().to_owned());
        self
    }

    /// Also redacts this pattern.
    pub fn with_pattern(mut self, pattern: Regex) -> Self {
        self.patterns.push(pattern);
        self
    }

    /// `text` with every secret replaced.
    pub fn redact_str(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            out = redact_secret(&out, secret);
        }
        for pattern in &self.patterns {
            if pattern.is_match(&out) {
                out = pattern.replace_all(&out, "***").into_owned();
            }
        }
        out
    }

    /// Redacts every string (and object key) in `value`.
    pub fn redact_value(&self, value: &mut Value) {
        match value {
            Value::String(text) => *text = self.redact_str(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.redact_value(&mut item);
                    map.insert(self.redact_str(&key), item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn registered_secrets_and_patterns_are_replaced() {
        let redactor = Redactor::new().with_secret(&ApiKey::new("my-private-token"));
        assert_eq!(redactor.redact_str("t=my-private-token"), "t=***");
        assert_eq!(
            redactor.redact_str("key sk-ant-abcdefghijklmnop0123"),
            "key ***"
        );
        assert_eq!(
            redactor.redact_str("Authorization: Bearer abc.def.ghi"),
            "Authorization: ***"
        );
        assert_eq!(redactor.redact_str("nothing here"), "nothing here");
    }

    #[test]
    fn values_are_redacted_deeply() {
        let redactor = Redactor::new();
        let mut value = json!({"a": ["sk-0123456789abcdefXYZ"], "sk-0123456789abcdefXYZ": 1});
        redactor.redact_value(&mut value);
        assert_eq!(value, json!({"a": ["***"], "***": 1}));
    }
}
