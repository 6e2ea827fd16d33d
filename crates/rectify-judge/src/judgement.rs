//! What judging one text found.

use rectify_core::{Diagnostic, Repair, Report};
use serde_json::Value;

/// What judging one text found: the value (after repair), every problem, the repairs, and the
/// repaired text when a file's repair is to be written back.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// The value read (after repair), when one could be read.
    pub value: Option<Value>,
    /// Every problem; any error makes the text invalid.
    pub diagnostics: Vec<Diagnostic>,
    /// The repairs applied to obtain `value`.
    pub repairs: Vec<Repair>,
    /// For [`Reading::File`](crate::Reading::File): the repaired text in the file's own
    /// format, when repair changed it (to be written back, the original kept by the caller).
    pub repaired_text: Option<String>,
}

impl Judgement {
    /// The number of errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Whether a value was read and no error was found.
    pub fn is_valid(&self) -> bool {
        self.value.is_some() && self.errors() == 0
    }

    /// Only the problems, for a text nothing could be read from.
    pub(crate) fn problems(diagnostics: Vec<Diagnostic>) -> Judgement {
        Judgement {
            diagnostics,
            ..Judgement::default()
        }
    }

    /// The judgement as a [`Report`] (value, diagnostics, repairs).
    pub fn into_report(self) -> Report {
        Report::new(self.value, self.diagnostics, self.repairs)
    }
}
