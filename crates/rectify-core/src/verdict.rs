use serde::{Deserialize, Serialize};

/// Level of one finding of a validator agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingLevel {
    /// Checked and fine.
    Pass,
    /// Acceptable but worth recording.
    Warn,
    /// Must be fixed.
    Fail,
}

/// One finding of a validator agent: `- [FAIL] text (file:line)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Finding {
    /// Pass, warn or fail.
    pub level: FindingLevel,
    /// What the validator says.
    pub text: String,
    /// `file` of an optional `file:line` reference.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub file: Option<String>,
    /// `line` of an optional `file:line` reference.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub line: Option<u32>,
}

/// The verdict of a validator agent. A missing or unparseable verdict counts as `Fail`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Verdict {
    /// Accept.
    Pass,
    /// Accept and record the findings as warnings.
    Warn {
        /// The findings.
        findings: Vec<Finding>,
    },
    /// Re-run the producer with the findings.
    Fail {
        /// The findings.
        findings: Vec<Finding>,
    },
}

impl Verdict {
    /// True for `Pass` and `Warn`.
    pub fn accepts(&self) -> bool {
        !matches!(self, Verdict::Fail { .. })
    }
}
