use serde::{Deserialize, Serialize};

use crate::Location;

/// How safe a repair is to apply without asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Cannot change the meaning the model intended (a trailing comma, a code fence).
    Safe,
    /// May change meaning (dropping text, coercing across types); applied only when enabled.
    Unsafe,
}

/// One deterministic repair applied to model output.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Repair {
    /// Stable code such as `json.trailing_comma`.
    pub code: String,
    /// Where the repair happened.
    pub location: Location,
    /// The text (or value) before.
    pub before: String,
    /// The text (or value) after.
    pub after: String,
    /// Whether the repair is safe.
    pub applicability: Applicability,
}

impl Repair {
    /// A new repair record.
    pub fn new(
        code: impl Into<String>,
        location: Location,
        before: impl Into<String>,
        after: impl Into<String>,
        applicability: Applicability,
    ) -> Repair {
        Repair {
            code: code.into(),
            location,
            before: before.into(),
            after: after.into(),
            applicability,
        }
    }
}
