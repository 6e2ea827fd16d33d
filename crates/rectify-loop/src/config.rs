//! How the loop behaves: attempts, feedback mode and caps, budgets, repair safety.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How the feedback on a failed attempt reaches the model (docs/architecture.md, "Feedback and
/// error memory").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FeedbackMode {
    /// The model's raw answer as an assistant turn, then the feedback as a user turn.
    #[default]
    Append,
    /// A `## PREVIOUS VALIDATION FAILED` block before the task prompt, in one user message
    /// (for agents that take one prompt).
    Prefix,
    /// `Feedback: ...` after the task prompt, in one user message.
    Suffix,
    /// The original prompt again plus the feedback, without the bad answer (small models
    /// tend to copy a bad answer back when it stays in the transcript).
    Fresh,
}

impl FeedbackMode {
    /// Every mode.
    pub const ALL: [FeedbackMode; 4] = [
        FeedbackMode::Append,
        FeedbackMode::Prefix,
        FeedbackMode::Suffix,
        FeedbackMode::Fresh,
    ];

    /// The mode to use with a provider of `kind` when the caller chose none: `fresh` for the
    /// embedded model (measured on Gemma 3 270M: with its bad answer left in the prompt it
    /// wrote the same answer again), `append` for every other.
    pub fn default_for(kind: rectify_provider::spec::ProviderKind) -> FeedbackMode {
        match kind {
            rectify_provider::spec::ProviderKind::Local => FeedbackMode::Fresh,
            _ => FeedbackMode::Append,
        }
    }

    /// The lowercase name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedbackMode::Append => "append",
            FeedbackMode::Prefix => "prefix",
            FeedbackMode::Suffix => "suffix",
            FeedbackMode::Fresh => "fresh",
        }
    }
}

impl fmt::Display for FeedbackMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FeedbackMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "append" => Ok(FeedbackMode::Append),
            "prefix" => Ok(FeedbackMode::Prefix),
            "suffix" => Ok(FeedbackMode::Suffix),
            "fresh" => Ok(FeedbackMode::Fresh),
            other => Err(format!(
                "unknown feedback mode `{other}` (expected append, prefix, suffix or fresh)"
            )),
        }
    }
}

/// Caps on the list of problems sent back to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeedbackLimits {
    /// At most this many problems are listed (default 20); the rest are counted.
    pub max_issues: usize,
    /// The list of problems is at most this many characters (default 2,000).
    pub max_chars: usize,
}

impl Default for FeedbackLimits {
    fn default() -> Self {
        FeedbackLimits {
            max_issues: 20,
            max_chars: 2_000,
        }
    }
}

/// Limits on what a whole run may spend. The loop stops *before* an attempt that would
/// exceed one (estimating the attempt from the largest earlier one) and says which.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Budget {
    /// Input plus output tokens over all attempts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// US dollars over all attempts, priced with the engine's [`Pricing`](rectify_provider::Pricing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
    /// Wall time from the start of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<Duration>,
}

impl Budget {
    /// No limits.
    pub fn unlimited() -> Self {
        Budget::default()
    }

    /// Sets the token limit.
    pub fn with_max_tokens(mut self, tokens: u64) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Sets the cost limit in US dollars.
    pub fn with_max_cost(mut self, dollars: f64) -> Self {
        self.max_cost = Some(dollars);
        self
    }

    /// Sets the wall-time limit.
    pub fn with_max_duration(mut self, duration: Duration) -> Self {
        self.max_duration = Some(duration);
        self
    }
}

/// Default of [`LoopConfig::retry_temperature`].
pub const DEFAULT_RETRY_TEMPERATURE: f64 = 0.7;

/// The loop's settings. Serializable so workflows can store them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoopConfig {
    /// Model calls per provider rung, the first included (default 3; 0 counts as 1).
    pub max_attempts: u32,
    /// How feedback reaches the model.
    pub feedback: FeedbackMode,
    /// Caps on the feedback list.
    pub limits: FeedbackLimits,
    /// Token, cost and time limits of the whole run.
    pub budget: Budget,
    /// Apply repairs that may change meaning (off by default).
    pub allow_unsafe_repairs: bool,
    /// Re-asks sample at no less than this temperature (default 0.7), and at this one when
    /// the task sets none; `None` keeps the task's. A model asked again the same way tends to
    /// give the same answer: at temperature 0 the embedded model repeated its invalid answer
    /// byte for byte, feedback notwithstanding. The first attempt always uses the task's
    /// temperature.
    pub retry_temperature: Option<f64>,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            max_attempts: 3,
            feedback: FeedbackMode::Append,
            limits: FeedbackLimits::default(),
            budget: Budget::default(),
            allow_unsafe_repairs: false,
            retry_temperature: Some(DEFAULT_RETRY_TEMPERATURE),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_model_gets_fresh_feedback_by_default() {
        use rectify_provider::spec::ProviderKind;
        assert_eq!(
            FeedbackMode::default_for(ProviderKind::Local),
            FeedbackMode::Fresh
        );
        for kind in [
            ProviderKind::OpenAi,
            ProviderKind::Anthropic,
            ProviderKind::Command,
            ProviderKind::Replay,
        ] {
            assert_eq!(FeedbackMode::default_for(kind), FeedbackMode::Append);
        }
    }

    #[test]
    fn modes_parse_and_print() {
        for mode in ["append", "prefix", "suffix", "fresh"] {
            assert_eq!(mode.parse::<FeedbackMode>().unwrap().to_string(), mode);
        }
        assert!("shout".parse::<FeedbackMode>().is_err());
    }

    #[test]
    fn config_defaults_and_partial_json() {
        let config: LoopConfig =
            serde_json::from_str(r#"{"max_attempts": 5, "feedback": "fresh"}"#).unwrap();
        assert_eq!(config.max_attempts, 5);
        assert_eq!(config.feedback, FeedbackMode::Fresh);
        assert_eq!(config.limits, FeedbackLimits::default());
        let back: LoopConfig =
            serde_json::from_str(&serde_json::to_string(&config).unwrap()).unwrap();
        assert_eq!(back, config);
    }
}
