//! How an OpenAI-compatible server is asked for JSON.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How a JSON answer is requested from an OpenAI-compatible server (`response_format`).
///
/// Servers differ: OpenAI, vLLM and Ollama take `json_schema`; llama-cpp-python's server
/// takes only `json_object` (it answers `json_schema` with a 500 "Input should be 'text' or
/// 'json_object'"); some take neither. The provider starts with the configured mode and,
/// when a server rejects the `response_format` it was sent, falls back by itself to the
/// next one ([`StructuredOutput::fallback`]) for the rest of the run.
///
/// ```
/// use rectify_provider::StructuredOutput;
///
/// let mode: StructuredOutput = "json_object".parse().unwrap();
/// assert_eq!(mode, StructuredOutput::JsonObject);
/// assert_eq!(mode.fallback(), Some(StructuredOutput::Off));
/// assert_eq!(StructuredOutput::Off.to_string(), "off");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// `response_format: json_schema` when the request has a schema, else `json_object`.
    #[default]
    JsonSchema,
    /// Always `response_format: json_object` (the schema goes into the prompt).
    JsonObject,
    /// Never send `response_format` (the prompt alone asks for JSON).
    Off,
}

impl StructuredOutput {
    /// Every mode, strongest first.
    pub const ALL: [StructuredOutput; 3] = [
        StructuredOutput::JsonSchema,
        StructuredOutput::JsonObject,
        StructuredOutput::Off,
    ];

    /// The name used on the command line, in files and in `RECTIFY_STRUCTURED_OUTPUT`.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredOutput::JsonSchema => "json_schema",
            StructuredOutput::JsonObject => "json_object",
            StructuredOutput::Off => "off",
        }
    }

    /// The weaker mode tried when a server rejects this one (`None` after `off`).
    pub fn fallback(self) -> Option<StructuredOutput> {
        match self {
            StructuredOutput::JsonSchema => Some(StructuredOutput::JsonObject),
            StructuredOutput::JsonObject => Some(StructuredOutput::Off),
            StructuredOutput::Off => None,
        }
    }

    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn to_u8(self) -> u8 {
        match self {
            StructuredOutput::JsonSchema => 0,
            StructuredOutput::JsonObject => 1,
            StructuredOutput::Off => 2,
        }
    }

    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn from_u8(n: u8) -> StructuredOutput {
        match n {
            0 => StructuredOutput::JsonSchema,
            1 => StructuredOutput::JsonObject,
            _ => StructuredOutput::Off,
        }
    }
}

impl fmt::Display for StructuredOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for StructuredOutput {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim().to_ascii_lowercase().replace('-', "_");
        StructuredOutput::ALL
            .into_iter()
            .find(|m| m.as_str() == text)
            .ok_or_else(|| {
                format!(
                    "unknown structured output `{text}` (expected json_schema, json_object or off)"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_fall_back_in_order() {
        for mode in StructuredOutput::ALL {
            assert_eq!(mode.as_str().parse::<StructuredOutput>(), Ok(mode));
            assert_eq!(StructuredOutput::from_u8(mode.to_u8()), mode);
        }
        assert_eq!("JSON-OBJECT".parse(), Ok(StructuredOutput::JsonObject));
        assert!("xml".parse::<StructuredOutput>().is_err());
        assert_eq!(
            StructuredOutput::JsonSchema.fallback(),
            Some(StructuredOutput::JsonObject)
        );
        assert_eq!(StructuredOutput::Off.fallback(), None);
    }
}
