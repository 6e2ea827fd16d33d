use rectify_core::{Diagnostic, Format, Repair, Report};
use serde_json::Value;

/// The result of [`crate::repair`]: the recovered value (if any), every candidate found, the
/// repairs and the diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Repaired {
    /// The value, when one could be recovered with the repairs the options allow.
    pub value: Option<Value>,
    /// When the text held several top-level values (several fences, values one after the
    /// other), all of them in order, before coercion; empty when it held one (`value`).
    pub candidates: Vec<Value>,
    /// The repairs applied to obtain `value`; when `value` is `None` because a repair was not
    /// allowed (unsafe or strict), the repairs that would have been applied.
    pub repairs: Vec<Repair>,
    /// Errors (no payload, too deep, repair not allowed, schema mismatch) and warnings
    /// (truncated text, ambiguous choice).
    pub diagnostics: Vec<Diagnostic>,
    /// The format the payload was read as.
    pub format: Option<Format>,
    /// Length of the text the value came from: the output buffer is sized from it.
    pub(crate) source_len: usize,
}

impl Repaired {
    /// True when a value was recovered and no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        self.value.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// True when the text needed no repair at all.
    pub fn is_unchanged(&self) -> bool {
        self.repairs.is_empty()
    }

    /// The shared report: value, diagnostics and repairs.
    pub fn into_report(self) -> Report {
        Report::new(self.value, self.diagnostics, self.repairs)
    }

    /// The repaired value as compact JSON text. Numbers keep their text exactly as the
    /// repair left it (`1.50` stays `1.50`); `None` when no value was recovered.
    pub fn to_json(&self) -> Option<String> {
        let value = self.value.as_ref()?;
        let mut out = Vec::with_capacity(self.source_len + self.source_len / 8 + 16);
        serde_json::to_writer(&mut out, value).ok()?;
        String::from_utf8(out).ok()
    }

    /// The repaired value as JSON text indented by two spaces, numbers kept exactly.
    pub fn to_json_pretty(&self) -> Option<String> {
        let value = self.value.as_ref()?;
        let mut out = Vec::with_capacity(self.source_len + self.source_len / 2 + 16);
        serde_json::to_writer_pretty(&mut out, value).ok()?;
        String::from_utf8(out).ok()
    }
}

/// The result of [`crate::repair_to_json`]: the repaired document as JSON text, with the same
/// repairs and diagnostics [`crate::repair`] gives for the same text and options.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct RepairedText {
    /// The value as JSON text (compact, or indented when asked), exactly what
    /// [`Repaired::to_json`] (or [`Repaired::to_json_pretty`]) gives; `None` when no value
    /// could be recovered with the repairs the options allow.
    pub json: Option<String>,
    /// The repairs, as in [`Repaired::repairs`].
    pub repairs: Vec<Repair>,
    /// Errors and warnings, as in [`Repaired::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// The format the payload was read as.
    pub format: Option<Format>,
}

impl RepairedText {
    /// True when a value was recovered and no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        self.json.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// True when the text needed no repair at all.
    pub fn is_unchanged(&self) -> bool {
        self.repairs.is_empty()
    }

    /// The text form of a [`Repaired`] value.
    pub(crate) fn from_value(out: Repaired, pretty: bool) -> Self {
        let json = if pretty {
            out.to_json_pretty()
        } else {
            out.to_json()
        };
        RepairedText {
            json,
            repairs: out.repairs,
            diagnostics: out.diagnostics,
            format: out.format,
        }
    }
}
