use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Location;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The content is invalid.
    Error,
    /// Worth knowing; the content is still accepted.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One problem found in a document. Invalid content is reported as data, never as `Err`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code such as `schema.required`, `rule.ref` or `parse.syntax`.
    pub code: String,
    /// Where in the document.
    pub location: Location,
    /// One-line, lowercase-first message.
    pub message: String,
    /// What was expected, if known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expected: Option<String>,
    /// What was found (truncated), if known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub received: Option<String>,
    /// Which check produced it (`schema`, `rules:<id>`, `parse`, ...).
    #[serde(default)]
    pub source: String,
}

impl Diagnostic {
    /// A new error.
    pub fn error(code: impl Into<String>, location: Location, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, location, message)
    }

    /// A new warning.
    pub fn warning(
        code: impl Into<String>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Warning, code, location, message)
    }

    fn new(
        severity: Severity,
        code: impl Into<String>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code: code.into(),
            location,
            message: message.into(),
            expected: None,
            received: None,
            source: String::new(),
        }
    }

    /// Sets what was expected.
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// Sets what was received; long text is truncated.
    pub fn received(mut self, received: impl Into<String>) -> Self {
        self.received = Some(truncate_text(&received.into(), MAX_RECEIVED));
        self
    }

    /// Sets the check that produced the diagnostic.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = source.into();
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

const MAX_RECEIVED: usize = 80;

/// Renders a JSON value compactly for the `received` field, truncated to 80 characters.
pub fn truncate_received(value: &serde_json::Value) -> String {
    let text = match value {
        serde_json::Value::Array(a) if a.len() > 20 => format!("[... {} items]", a.len()),
        serde_json::Value::Object(o) if o.len() > 20 => format!("{{... {} keys}}", o.len()),
        v => v.to_string(),
    };
    truncate_text(&text, MAX_RECEIVED)
}

fn truncate_text(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn received_is_truncated() {
        let long = "x".repeat(200);
        let d = Diagnostic::error("c", Location::root(), "m").received(long);
        assert_eq!(d.received.unwrap().chars().count(), 81);
        assert_eq!(truncate_received(&serde_json::json!("ab")), "\"ab\"");
        let big = serde_json::Value::Array(vec![serde_json::Value::Null; 30]);
        assert_eq!(truncate_received(&big), "[... 30 items]");
    }
}
