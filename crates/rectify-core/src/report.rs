use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Diagnostic, Repair};

/// The result of reading and checking one document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// True when a value was obtained and no diagnostic is an error.
    pub valid: bool,
    /// The parsed (and possibly repaired) value, if any could be obtained.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<Value>,
    /// Everything the checks found.
    pub diagnostics: Vec<Diagnostic>,
    /// Every repair applied to obtain `value`.
    pub repairs: Vec<Repair>,
}

impl Report {
    /// Builds a report; `valid` is computed from the value and the diagnostics.
    pub fn new(value: Option<Value>, diagnostics: Vec<Diagnostic>, repairs: Vec<Repair>) -> Report {
        let valid = value.is_some() && !diagnostics.iter().any(Diagnostic::is_error);
        Report {
            valid,
            value,
            diagnostics,
            repairs,
        }
    }

    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Adds diagnostics and recomputes `valid`.
    pub fn extend(&mut self, diagnostics: impl IntoIterator<Item = Diagnostic>) {
        self.diagnostics.extend(diagnostics);
        self.valid = self.value.is_some() && self.error_count() == 0;
    }
}
