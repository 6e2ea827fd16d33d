//! The tools' arguments; their JSON Schemas (derived) are what `tools/list` shows.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Refs;

/// A document's format.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FormatArg {
    /// JSON.
    Json,
    /// YAML 1.2.
    Yaml,
    /// Markdown (with YAML front matter).
    Markdown,
    /// Plain text.
    Text,
}

impl From<FormatArg> for rectify::Format {
    fn from(f: FormatArg) -> rectify::Format {
        match f {
            FormatArg::Json => rectify::Format::Json,
            FormatArg::Yaml => rectify::Format::Yaml,
            FormatArg::Markdown => rectify::Format::Markdown,
            FormatArg::Text => rectify::Format::Text,
        }
    }
}

/// Arguments of `check`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckParams {
    /// The document: a path beneath the server's root (relative to it). Give `file` or `content`.
    pub file: Option<String>,
    /// The document's text, inline.
    pub content: Option<String>,
    /// The format (default: from the file's extension, else from the content).
    pub format: Option<FormatArg>,
    /// JSON Schema files beneath the root (JSON or YAML); all must pass. Their `$ref`s may
    /// read only files in the schema's own directory.
    #[serde(default)]
    pub schema: Vec<String>,
    /// A rules file beneath the root (cross-document references, uniqueness, Markdown structure).
    pub rules: Option<String>,
    /// Named reference documents for the rules, `{"plan": "plan.yaml"}`, beneath the root.
    #[serde(default)]
    pub refs: Refs,
}

/// Arguments of `repair`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepairParams {
    /// The model output: a path beneath the server's root. Give `file` or `content`.
    pub file: Option<String>,
    /// The model output, inline.
    pub content: Option<String>,
    /// The payload's format (default: JSON, or YAML for a `.yaml` file).
    pub format: Option<FormatArg>,
    /// A JSON Schema file beneath the root that guides coercion (`"5"` → `5`, enum case).
    pub schema: Option<String>,
    /// Also apply repairs that may change meaning (recorded as unsafe).
    #[serde(default, rename = "unsafe")]
    pub allow_unsafe: bool,
    /// Any needed repair is an error.
    #[serde(default)]
    pub strict: bool,
}

/// Arguments of `ask`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskParams {
    /// What to ask for.
    pub prompt: String,
    /// The JSON Schema file (beneath the root) the answer must satisfy.
    pub schema: String,
    /// A rules file beneath the root.
    pub rules: Option<String>,
    /// Named reference documents for the rules, beneath the root.
    #[serde(default)]
    pub refs: Refs,
    /// A system prompt.
    pub system: Option<String>,
    /// Model calls in all (default 3, at most 10).
    pub max_attempts: Option<u32>,
}

/// Arguments of `run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// The workflow file (YAML), beneath the root.
    pub workflow: String,
    /// The workflow's inputs, `{"feature": "CSV export"}`.
    #[serde(default)]
    pub inputs: std::collections::BTreeMap<String, String>,
    /// The run's id (default: the workflow's name and a unique suffix).
    pub run_id: Option<String>,
    /// The working directory beneath the root (default: the root); its `.rectify/rectify.db`
    /// holds the run.
    pub workdir: Option<String>,
    /// Wait for the run to complete, fail or pause (default `true`); `false` answers at once
    /// with the run id.
    pub wait: Option<bool>,
}

/// Arguments of `status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusParams {
    /// The run (default: list every run).
    pub run: Option<String>,
    /// The working directory beneath the root whose store holds the runs (default: the root).
    pub workdir: Option<String>,
}

/// A person's decision.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DecisionArg {
    /// A human step passes; an exhausted step is accepted as it is.
    Approve,
    /// The work goes back to its producer with `feedback`.
    Reject,
    /// Outputs are replaced with the files of `edits`.
    Edit,
    /// No decision: continue what can continue (after an interruption).
    Continue,
}

/// Arguments of `resume`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeParams {
    /// The run.
    pub run: String,
    /// The decision.
    pub decision: DecisionArg,
    /// What the person wants changed (with `reject`).
    pub feedback: Option<String>,
    /// With `edit`: output path → a file beneath the root holding the new content.
    #[serde(default)]
    pub edits: std::collections::BTreeMap<String, String>,
    /// The waiting step the decision is about (needed when several wait).
    pub step: Option<String>,
    /// The working directory beneath the root whose store holds the run (default: the root).
    pub workdir: Option<String>,
}

/// Arguments of `report`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportParams {
    /// The run.
    pub run: String,
    /// The working directory beneath the root whose store holds the run (default: the root).
    pub workdir: Option<String>,
}
