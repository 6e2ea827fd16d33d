//! The feedback sent to the model after a failed attempt (docs/architecture.md, "Feedback and error
//! memory"): a compact, de-duplicated, capped list of `path: what was wrong (got …, expected …)`.

mod conversation;

use std::collections::HashSet;
use std::fmt::Write as _;

use rectify_core::{Diagnostic, pointer_to_path};
use serde::{Deserialize, Serialize};

use crate::config::{FeedbackLimits, FeedbackMode};
use crate::evaluate::TRUNCATED;

pub(crate) use conversation::{build_messages, memory_note_text};

/// What was wrong with one answer, ready to be rendered for any [`FeedbackMode`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feedback {
    /// The answer was cut off at the output token limit.
    pub truncated: bool,
    /// One line per problem, already de-duplicated and capped (without the `- ` bullet).
    pub items: Vec<String>,
}

impl Feedback {
    /// Feedback listing the error diagnostics, capped by `limits`.
    pub fn from_diagnostics(diagnostics: &[Diagnostic], limits: &FeedbackLimits) -> Feedback {
        let truncated = diagnostics.iter().any(|d| d.code == TRUNCATED);
        let errors = diagnostics
            .iter()
            .filter(|d| d.is_error() && d.code != TRUNCATED);
        Feedback {
            truncated,
            items: cap(errors.map(issue_line), limits),
        }
    }

    /// The text the model receives, worded for `mode` (`fresh` does not speak of "your
    /// previous answer", since the model does not see it).
    pub fn render(&self, mode: FeedbackMode) -> String {
        let fresh = mode == FeedbackMode::Fresh;
        let mut out = String::from(match (self.truncated, fresh) {
            (false, false) => {
                "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:"
            }
            (false, true) => {
                "An earlier answer to this request did not pass validation. Avoid these problems and answer with the complete JSON only:"
            }
            (true, false) => {
                "Your previous answer was cut off at the output token limit. Answer again with a shorter answer: the complete JSON only, without commentary."
            }
            (true, true) => {
                "An earlier answer to this request was cut off at the output token limit. Keep your answer short: the complete JSON only, without commentary."
            }
        });
        if self.truncated && !self.items.is_empty() {
            out.push_str("\nAlso fix these problems:");
        }
        for item in &self.items {
            out.push_str("\n- ");
            out.push_str(item);
        }
        out
    }
}

/// One diagnostic as one line: `path: message (got …, expected …)`. The path is omitted for
/// the whole document (a text position is given instead when known); `got` and `expected`
/// are added only when the message does not already say them.
pub fn issue_line(d: &Diagnostic) -> String {
    let pointer = where_pointer(d);
    let mut line = if !pointer.is_empty() {
        format!("{}: {}", pointer_to_path(pointer), d.message)
    } else if let Some(span) = d.location.span {
        format!("line {}, column {}: {}", span.line, span.column, d.message)
    } else {
        d.message.clone()
    };
    let got = d.received.as_deref().filter(|r| !d.message.contains(*r));
    let expected = d.expected.as_deref().filter(|e| !d.message.contains(*e));
    match (got, expected) {
        (Some(g), Some(e)) => {
            let _ = write!(line, " (got {g}, expected {e})");
        }
        (Some(g), None) => {
            let _ = write!(line, " (got {g})");
        }
        (None, Some(e)) => {
            let _ = write!(line, " (expected {e})");
        }
        (None, None) => {}
    }
    line
}

/// A missing field is located at the object that lacks it (`tasks[1]: missing required
/// field "id"`), as the message already names the field.
fn where_pointer(d: &Diagnostic) -> &str {
    let pointer = d.location.pointer.as_str();
    if d.code == "schema.required" {
        return pointer.rfind('/').map_or(pointer, |cut| &pointer[..cut]);
    }
    pointer
}

/// De-duplicates `lines` and keeps as many as the limits allow, then counts the rest.
pub(crate) fn cap(lines: impl Iterator<Item = String>, limits: &FeedbackLimits) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let (mut chars, mut dropped) = (0usize, 0usize);
    for line in lines {
        if !seen.insert(line.clone()) {
            continue;
        }
        let len = line.chars().count() + 3;
        if kept.len() < limits.max_issues && chars + len <= limits.max_chars {
            chars += len;
            kept.push(line);
        } else if kept.is_empty() && limits.max_issues > 0 && limits.max_chars > 4 {
            let room = limits.max_chars.saturating_sub(4);
            let cut: String = line.chars().take(room).collect();
            chars = limits.max_chars;
            kept.push(format!("{cut}…"));
        } else {
            dropped += 1;
        }
    }
    if dropped > 0 {
        let s = if dropped == 1 { "" } else { "s" };
        kept.push(format!("… and {dropped} more problem{s}"));
    }
    kept
}

#[cfg(test)]
mod tests;
