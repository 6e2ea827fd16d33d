//! How the model's answer ended, and what that says about it.

use rectify_core::{Diagnostic, Location};
use serde_json::Value;

/// The stable code of the error added when an answer was cut off by the token limit.
pub const TRUNCATED: &str = "response.truncated";

/// The stable code of the error added when the model refused to answer.
pub const REFUSED: &str = "response.refused";

/// How an answer ended (a provider's finish reason, reduced to what judging needs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ending {
    /// It finished (or the text is a file, which has no ending to judge).
    #[default]
    Complete,
    /// Cut off at the output token limit: invalid even when repair could close it, since
    /// what is missing cannot be known.
    Truncated,
    /// The model refused.
    Refused,
}

impl Ending {
    /// The error this ending adds to an answer's judgement, `None` when it finished.
    pub fn problem(self, text: &str) -> Option<Diagnostic> {
        match self {
            Ending::Complete => None,
            Ending::Truncated => Some(
                Diagnostic::error(
                    TRUNCATED,
                    Location::root(),
                    "the answer was cut off at the output token limit",
                )
                .expected("a complete answer")
                .source("provider"),
            ),
            Ending::Refused => Some(refused(text)),
        }
    }
}

fn refused(text: &str) -> Diagnostic {
    let d = Diagnostic::error(REFUSED, Location::root(), "the model refused to answer")
        .expected("an answer to the request")
        .source("provider");
    if text.trim().is_empty() {
        d
    } else {
        d.received(rectify_core::truncate_received(&Value::String(
            text.trim().to_owned(),
        )))
    }
}
