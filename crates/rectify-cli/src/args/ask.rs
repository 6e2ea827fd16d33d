//! Arguments of `rectify ask`.

use std::path::PathBuf;

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use rectify::engine::FeedbackMode;
use rectify::provider::StructuredOutput;
use rectify::provider::spec::ProviderKind;

use super::{Output, RefArg, parse_ref};

/// Arguments of `rectify ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The prompt, or `-` to read it from standard input.
    #[arg(value_name = "PROMPT|-")]
    pub prompt: String,
    /// The JSON Schema (JSON or YAML) the answer must satisfy.
    #[arg(long, value_name = "SCHEMA")]
    pub schema: PathBuf,
    /// Let the schema's `$ref`s read any local file (default: only files under the schema's
    /// own directory; remote references are never fetched).
    #[arg(long)]
    pub refs_anywhere: bool,
    /// A rules file (YAML) the answer must also satisfy.
    #[arg(long, value_name = "RULES")]
    pub rules: Option<PathBuf>,
    /// A document the rules refer to by name; overrides the rules file's `documents`.
    #[arg(long = "ref", value_name = "NAME=FILE", value_parser = parse_ref)]
    pub refs: Vec<RefArg>,
    /// A system prompt.
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,
    /// The backend (default: `command` when an agent is given after `--`, else `openai` when
    /// `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set, else `anthropic` when
    /// `ANTHROPIC_API_KEY` is set, else the embedded `local` model).
    #[arg(
        long,
        env = "RECTIFY_PROVIDER",
        value_name = "openai|anthropic|command|local|replay",
        value_parser = parse_kind
    )]
    pub provider: Option<ProviderKind>,
    /// The model name; for `--provider local` one of the embedded models (`gemma3-270m`,
    /// `qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`, `smollm2-135m`), fetched and verified on
    /// first use.
    #[arg(long, value_name = "MODEL", env = "RECTIFY_MODEL")]
    pub model: Option<String>,
    /// The API base URL (OpenAI-compatible: including `/v1`).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// A GGUF model file for `--provider local` (default: Qwen2.5-Coder 0.5B Instruct, fetched
    /// on first use).
    #[arg(long, value_name = "FILE")]
    pub model_path: Option<PathBuf>,
    /// Token budget of each answer, sent with every request (the local model's default
    /// is 512).
    #[arg(long, value_name = "N")]
    pub max_output_tokens: Option<u32>,
    /// Time limit of each model call, in seconds: one HTTP request (default 120, each
    /// transport retry gets its own) or one run of a command agent (default 600; its process
    /// group is killed when it runs out).
    #[arg(long, value_name = "SECS", env = "RECTIFY_TIMEOUT", value_parser = parse_seconds)]
    pub timeout: Option<std::time::Duration>,
    /// A provider key the agent command may see (repeatable): `OPENAI_API_KEY` and
    /// `ANTHROPIC_API_KEY` are removed from an agent's environment unless named here.
    #[arg(long, value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// How an OpenAI-compatible server is asked for JSON: `json_schema` (the schema itself),
    /// `json_object` (any JSON; for servers such as llama-cpp-python's) or `off`. A server
    /// that rejects the mode gets the next weaker one for the rest of the run, noted in the
    /// ledger.
    #[arg(
        long,
        env = "RECTIFY_STRUCTURED_OUTPUT",
        value_name = "json_schema|json_object|off",
        value_parser = structured_output_parser()
    )]
    pub structured_output: Option<StructuredOutput>,
    /// The cassette to answer from with `--provider replay`.
    #[arg(long, value_name = "FILE")]
    pub cassette: Option<PathBuf>,
    /// Model calls, the first included.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_attempts: u32,
    /// How feedback on a failed answer reaches the model [default: `fresh` with the embedded
    /// model, which copies its own bad answer back when it stays in the prompt; `append`
    /// with every other provider].
    #[arg(long, value_parser = feedback_parser())]
    pub feedback: Option<FeedbackMode>,
    /// Lowest sampling temperature of re-asks (a model asked again the same way tends to
    /// repeat its answer); `keep` re-asks at the first attempt's temperature.
    #[arg(long, value_name = "T|keep", default_value = "0.7", value_parser = parse_retry_temperature)]
    pub retry_temperature: RetryTemperature,
    /// Apply repairs that may change meaning (coercing across types, dropping text).
    #[arg(long = "unsafe")]
    pub allow_unsafe: bool,
    /// Write every event of the run to FILE as JSON Lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// `human`: the valid JSON on stdout, problems on stderr; `json`: the whole outcome
    /// (value or best candidate, diagnostics, attempt ledger) on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub output: Output,
    /// Print the run as it goes, one JSON object per line on stdout: `partial` (the answer
    /// read so far), `abort` (an answer stopped because it could no longer be valid),
    /// `attempt` (an attempt judged) and last `final` (the `--output json` document). The
    /// OpenAI-compatible and Anthropic providers, command agents and the embedded model
    /// stream; a replay cassette gives `attempt` and `final` lines only.
    #[arg(long, conflicts_with = "output")]
    pub stream: bool,
    /// The agent command and its arguments, for `--provider command`.
    #[arg(last = true, value_name = "AGENT_CMD")]
    pub agent: Vec<String>,
}

/// `--provider`: the backends of the one [`ProviderSpec`](rectify::provider::spec::ProviderSpec)
/// that workflow files use too.
fn parse_kind(text: &str) -> Result<ProviderKind, String> {
    text.parse()
}

/// `--feedback`: the loop's own modes and names.
fn feedback_parser() -> impl TypedValueParser<Value = FeedbackMode> {
    PossibleValuesParser::new(FeedbackMode::ALL.map(FeedbackMode::as_str))
        .try_map(|text| text.parse::<FeedbackMode>())
}

/// `--structured-output`: the provider crate's own modes and names.
fn structured_output_parser() -> impl TypedValueParser<Value = StructuredOutput> {
    PossibleValuesParser::new(StructuredOutput::ALL.map(StructuredOutput::as_str))
        .try_map(|text| text.parse::<StructuredOutput>())
}

/// The value of `--retry-temperature`: a floor, or `keep`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryTemperature(pub Option<f64>);

fn parse_retry_temperature(text: &str) -> Result<RetryTemperature, String> {
    if text == "keep" {
        return Ok(RetryTemperature(None));
    }
    match text.parse::<f64>() {
        Ok(t) if (0.0..=2.0).contains(&t) => Ok(RetryTemperature(Some(t))),
        _ => Err(format!(
            "`{text}` is not a temperature between 0 and 2 or `keep`"
        )),
    }
}

/// `--timeout`: a positive number of seconds.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(secs.is_finite() && secs > 0.0 && secs <= 86_400.0) {
        return Err(format!("`{text}`: give between 0 and 86400 seconds"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}
