//! Options of the local provider and how the environment fills them in.

use std::path::PathBuf;
use std::sync::Arc;

use crate::LocalError;
use crate::fetch::FetchEvent;
use crate::grounding::Grounding;

/// A progress callback for the first-use model download.
pub type ProgressFn = Arc<dyn Fn(FetchEvent) + Send + Sync>;

/// Default token budget of an answer when the request sets none.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 512;
/// Default upper bound of the context window (prompt plus answer).
pub const DEFAULT_MAX_CONTEXT: u32 = 8192;

/// How the local provider runs. [`LocalOptions::default`] plus the environment (see
/// [`LocalOptions::with_env`]) is what `rectify ask --provider local` uses.
#[derive(Clone)]
pub struct LocalOptions {
    /// A GGUF model to use instead of the default one (`--model-path`).
    pub model_path: Option<PathBuf>,
    /// A model of the catalogue by name ([`crate::fetch::MODELS`]; `--model`), fetched and
    /// verified on first use; `RECTIFY_LOCAL_MODEL` when unset. `model_path` wins.
    pub model: Option<String>,
    /// Whether a model with a chat template is prompted with it ([`crate::prompt::chat`];
    /// default true); off, every model gets the few-shot transcript. `RECTIFY_LOCAL_CHAT`
    /// (`off`, `on`) overrides it.
    pub chat: bool,
    /// Threads for llama.cpp; `None` uses, at each call, the cores other processes left idle
    /// since the model started loading or since the previous call (at least 1, at most 4;
    /// half the available cores where that cannot be measured): on 2 cores beside a busy
    /// compiler 2 threads were slower than 1 (the threads wait for each other whenever
    /// another process holds a core); on an idle machine a prompt's evaluation splits across
    /// the cores.
    pub threads: Option<u16>,
    /// Upper bound of the context window in tokens.
    pub max_context: u32,
    /// Token budget of an answer when the request sets none.
    pub max_output_tokens: u32,
    /// Temperature when the request sets none (0 = greedy).
    pub temperature: f32,
    /// Base seed of the random draw; each call adds its sequence number.
    pub seed: u32,
    /// Constrain answers to the request's schema with a grammar (default true). Off only for
    /// measuring what constraint buys.
    pub constrained: bool,
    /// Whether the grammar ties extraction answers to the request's text (see
    /// [`crate::grounding`]); `RECTIFY_LOCAL_GROUNDING` (`off`, `auto`, `on`) overrides it.
    pub grounding: Grounding,
    /// Whether a grounded object answer is written one property at a time, a value taken by
    /// one field not offered to the next (see [`crate::grounding::fields`]); `None` (the
    /// default): on for a model prompted with the few-shot transcript (Gemma 3 270M), off for
    /// one prompted with its chat template (measured: it lost fields on Qwen2.5-Coder 0.5B).
    /// `RECTIFY_LOCAL_FIELD_BY_FIELD` (`off`, `on`) overrides it.
    pub field_by_field: Option<bool>,
    /// Whether, field by field, the first token of a string value is chosen among the
    /// model's near-favourites by what the field's key adds over the other fields' keys (only
    /// with `field_by_field`); `None` (the default) follows `field_by_field`'s default.
    /// `RECTIFY_LOCAL_CONTRAST` (`off`, `on`) overrides it.
    pub contrast: Option<bool>,
    /// Receives progress while the default model is downloaded on first use.
    pub progress: Option<ProgressFn>,
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self {
            model_path: None,
            model: None,
            chat: true,
            threads: None,
            max_context: DEFAULT_MAX_CONTEXT,
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            temperature: 0.0,
            seed: 0x5eed,
            constrained: true,
            grounding: Grounding::Auto,
            field_by_field: None,
            contrast: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for LocalOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalOptions")
            .field("model_path", &self.model_path)
            .field("model", &self.model)
            .field("chat", &self.chat)
            .field("threads", &self.threads)
            .field("max_context", &self.max_context)
            .field("max_output_tokens", &self.max_output_tokens)
            .field("temperature", &self.temperature)
            .field("seed", &self.seed)
            .field("constrained", &self.constrained)
            .field("grounding", &self.grounding)
            .field("field_by_field", &self.field_by_field)
            .field("contrast", &self.contrast)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl LocalOptions {
    /// Fills in from the environment: `RECTIFY_LOCAL_THREADS` (when `threads` is `None`) and
    /// `RECTIFY_LOCAL_CONTEXT` (overrides `max_context`), `RECTIFY_LOCAL_GROUNDING` (overrides
    /// `grounding`), `RECTIFY_LOCAL_FIELD_BY_FIELD` (overrides `field_by_field`) and
    /// `RECTIFY_LOCAL_CONTRAST` (overrides `contrast`), `RECTIFY_LOCAL_MODEL` (when `model` is
    /// `None`) and `RECTIFY_LOCAL_CHAT` (overrides `chat`). Empty variables count as unset.
    /// (`RECTIFY_MODEL_PATH` is read by [`crate::LocalProvider::from_env_or_default`].)
    pub fn with_env(mut self) -> Result<Self, LocalError> {
        if self.threads.is_none() {
            self.threads = env_number("RECTIFY_LOCAL_THREADS")?;
        }
        if let Some(context) = env_number("RECTIFY_LOCAL_CONTEXT")? {
            self.max_context = context;
        }
        if let Some(grounding) = env("RECTIFY_LOCAL_GROUNDING") {
            self.grounding = grounding.parse()?;
        }
        if let Some(value) = env("RECTIFY_LOCAL_FIELD_BY_FIELD") {
            self.field_by_field = Some(switch("RECTIFY_LOCAL_FIELD_BY_FIELD", &value)?);
        }
        if self.model.is_none() {
            self.model = env("RECTIFY_LOCAL_MODEL");
        }
        if let Some(value) = env("RECTIFY_LOCAL_CHAT") {
            self.chat = switch("RECTIFY_LOCAL_CHAT", &value)?;
        }
        if let Some(value) = env("RECTIFY_LOCAL_CONTRAST") {
            self.contrast = Some(switch("RECTIFY_LOCAL_CONTRAST", &value)?);
        }
        Ok(self)
    }

    /// The thread count to use now: `threads` when set (and not 0), else the cores left idle
    /// by other processes (see `threads`).
    pub fn thread_count(&self) -> u16 {
        self.threads
            .filter(|t| *t > 0)
            .unwrap_or_else(|| crate::cores::free(4))
    }
}

/// An on/off variable's value.
fn switch(name: &str, value: &str) -> Result<bool, LocalError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "off" | "false" | "0" | "no" => Ok(false),
        "on" | "true" | "1" | "yes" => Ok(true),
        other => Err(LocalError::InvalidOption {
            name: name.to_owned(),
            message: format!("`{other}` is not one of off, on"),
        }),
    }
}

pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn env_number<T: std::str::FromStr>(name: &str) -> Result<Option<T>, LocalError> {
    env(name)
        .map(|value| {
            value.trim().parse().map_err(|_| LocalError::InvalidOption {
                name: name.to_owned(),
                message: format!("`{value}` is not a positive whole number"),
            })
        })
        .transpose()
}
