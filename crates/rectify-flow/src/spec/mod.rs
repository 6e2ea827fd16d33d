//! The workflow file as written (docs/architecture.md, "Workflows: loading a file"): plain serde
//! types, every struct closed to unknown keys so that a misspelt key is a located configuration
//! error.

mod agent;

use std::collections::BTreeMap;

use rectify_core::Format;
use rectify_provider::spec::ProviderSpec;
use serde::{Deserialize, Serialize};

pub use agent::{AgentFrontMatter, AgentSpec, parse_agent};

/// A whole workflow file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowSpec {
    /// The workflow's name (shown by `status`).
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Inputs given with `--input KEY=VALUE`.
    #[serde(default)]
    pub inputs: BTreeMap<String, InputSpec>,
    /// Providers by name.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSpec>,
    /// Settings every step inherits.
    #[serde(default)]
    pub defaults: Defaults,
    /// Agent definition files (Markdown with YAML front matter) by name, relative to the
    /// workflow file.
    #[serde(default)]
    pub agents: BTreeMap<String, String>,
    /// Cross-step error memory sizes.
    #[serde(default)]
    pub memory: MemorySpec,
    /// The steps, in file order.
    pub steps: Vec<StepSpec>,
}

/// The type of an input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputType {
    /// Any text.
    #[default]
    String,
    /// A number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
}

/// One input.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// Its type (default `string`).
    #[serde(default, rename = "type")]
    pub kind: InputType,
    /// The value when `--input` does not give one (a template; may name `run.id` and
    /// earlier inputs). Without a default the input is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// How feedback reaches a producer that revises its work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeedbackSpec {
    /// A `## PREVIOUS VALIDATION FAILED` block before the prompt (for agents that take one
    /// prompt).
    #[default]
    Prefix,
    /// `Feedback: ...` after the prompt.
    Suffix,
}

/// What to do with a working-tree change outside a step's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confine {
    /// Report it as a warning diagnostic.
    #[default]
    Report,
    /// Report it as an error and undo it.
    Strict,
    /// Do not look.
    Off,
}

/// Settings every step inherits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// The provider of agents that name none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Model calls of an answer step without `on_invalid`, the first included (default 3).
    #[serde(default = "three")]
    pub max_attempts: u32,
    /// How feedback reaches a revising producer.
    #[serde(default)]
    pub feedback: FeedbackSpec,
    /// Working-tree confinement of agent steps.
    #[serde(default)]
    pub confine: Confine,
    /// Time limit of one agent run, in seconds (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<f64>,
    /// Largest output file read, in bytes (default 16 MiB).
    #[serde(default = "sixteen_mib")]
    pub max_output_bytes: u64,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            provider: None,
            max_attempts: 3,
            feedback: FeedbackSpec::Prefix,
            confine: Confine::Report,
            timeout_secs: None,
            max_output_bytes: sixteen_mib(),
        }
    }
}

fn three() -> u32 {
    3
}

fn sixteen_mib() -> u64 {
    16 * 1024 * 1024
}

/// Sizes of the cross-step error memory (docs/architecture.md, "Feedback and error memory").
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySpec {
    /// Mistakes kept in all (default 10).
    #[serde(default = "ten")]
    pub history: usize,
    /// Mistakes of earlier steps shown to each new step (default 3).
    #[serde(default = "three_usize")]
    pub cross_step: usize,
}

impl Default for MemorySpec {
    fn default() -> Self {
        MemorySpec {
            history: 10,
            cross_step: 3,
        }
    }
}

fn ten() -> usize {
    10
}

fn three_usize() -> usize {
    3
}

/// One step.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// Unique id (letters, digits, `_` and `-`).
    pub id: String,
    /// Steps that must finish first.
    #[serde(default)]
    pub needs: Vec<String>,
    /// The producing agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The task (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Files the agent must write.
    #[serde(default)]
    pub outputs: Vec<OutputSpec>,
    /// An answer instead of files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AnswerSpec>,
    /// A question for a person: the run pauses here until `resume --approve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<String>,
    /// Run this step once per item of an earlier document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreach: Option<ForeachSpec>,
    /// Items of a `foreach` run at once (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<u32>,
    /// What to do when an output is invalid after deterministic repair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_invalid: Option<OnInvalid>,
    /// What to do when the counters of `on_invalid` or validation run out.
    #[serde(default)]
    pub on_exhausted: OnExhausted,
    /// Validators that judge the finished work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validate: Option<ValidateSpec>,
    /// Globs (relative to the working directory) the agent may also change.
    #[serde(default)]
    pub may_write: Vec<String>,
    /// Working-tree confinement (default: the workflow's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confine: Option<Confine>,
    /// Time limit of one agent run, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<f64>,
}

/// A file a step must write.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Path relative to the working directory (a template).
    pub path: String,
    /// How to read it (default: from the extension, else JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// JSON Schema file, relative to the workflow file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Rules file, relative to the workflow file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// The rules' named documents bound to files of this run (templates), as `--ref`.
    #[serde(default)]
    pub refs: BTreeMap<String, String>,
}

/// An answer step's answer.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerSpec {
    /// How the answer is read (default JSON).
    #[serde(default = "json")]
    pub format: Format,
    /// JSON Schema file, relative to the workflow file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Rules file, relative to the workflow file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// The rules' named documents (templates).
    #[serde(default)]
    pub refs: BTreeMap<String, String>,
    /// Also write the accepted answer to this path (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save: Option<String>,
}

fn json() -> Format {
    Format::Json
}

/// The validate/repair pair's second half.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OnInvalid {
    /// A repair agent that gets the problems and the failing files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<String>,
    /// Runs of the repair agent (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u32>,
    /// Turns the repair agent may take (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Runs of the producer again with the problems as feedback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revise: Option<u32>,
}

/// What happens when a step runs out of repairs, revisions or validations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnExhausted {
    /// Pause the run for a person.
    #[default]
    Escalate,
    /// Fail the run.
    Fail,
}

/// `foreach`: one run of the step per item of a document.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ForeachSpec {
    /// The document (a template; usually an output of an earlier step).
    pub document: String,
    /// JSONPath of the items.
    pub items: String,
    /// JSONPath (relative to an item) of its unique key.
    pub key: String,
    /// JSONPath (relative to an item) of the keys of the items it depends on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<String>,
    /// Take the validation settings from the document's `meta.validation` (opt-in).
    #[serde(default)]
    pub validation_from_document: bool,
    /// The item's agent type (JSONPath relative to the item), matched against
    /// `meta.validation.run_after`; default `$.agent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
}

/// Validators of a step.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ValidateSpec {
    /// Agents (by name) or commands.
    #[serde(default)]
    pub validators: Vec<ValidatorSpec>,
    /// Producer re-runs after a FAIL before the step escalates (default 1).
    #[serde(default = "one")]
    pub max_validation_attempts: u32,
}

fn one() -> u32 {
    1
}

/// One validator.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(
    untagged,
    expecting = "an agent name, or `{command: [program, args...]}` with every argument a string"
)]
pub enum ValidatorSpec {
    /// A validator agent, by name.
    Agent(String),
    /// A command: exit 0 is PASS, anything else FAIL with the output's tail as the finding.
    Command {
        /// The program and its arguments (no shell).
        command: Vec<String>,
    },
}

impl ValidatorSpec {
    /// A short name for records.
    pub fn name(&self) -> String {
        match self {
            ValidatorSpec::Agent(name) => name.clone(),
            ValidatorSpec::Command { command } => command.join(" "),
        }
    }
}

/// What a step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// An agent writes files (or changes the tree, with no declared outputs).
    Files,
    /// An agent answers; the answer is checked.
    Answer,
    /// A person decides.
    Human,
}

impl StepSpec {
    /// The kind of this step.
    pub fn kind(&self) -> StepKind {
        if self.human.is_some() {
            StepKind::Human
        } else if self.answer.is_some() {
            StepKind::Answer
        } else {
            StepKind::Files
        }
    }
}
