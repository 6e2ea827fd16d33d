//! The loaded model: llama.cpp weights plus the llguidance parser factory for its vocabulary.

mod chat;
mod contrast;
mod convert;
mod fields;
mod generate;
mod grammar;
mod guard;
mod repeats;
mod sample;
mod stream;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatTemplate, LlamaModel};
use llama_cpp_2::{LogOptions, send_logs_to_tracing};
use llguidance::ParserFactory;
use llguidance::toktrie::InferenceCapabilities;

pub(crate) use convert::load_converted;
pub use generate::{Finish, GenerateParams, Generation};

use crate::LocalError;

/// A GGUF model loaded with llama.cpp (memory-mapped), ready to generate.
///
/// Load once and share it (`Arc<LocalModel>`): [`LocalModel::shared`] returns the instance
/// already loaded from the same path in this process. Generation holds an internal lock, so
/// calls on one model run one at a time.
pub struct LocalModel {
    model: LlamaModel,
    /// The grammar engine for the model's vocabulary, built on its own thread while the first
    /// prompt is evaluated ([`Self::grammar`] waits for it).
    grammar: OnceLock<Result<GrammarEngine, String>>,
    building: Mutex<Option<JoinHandle<Result<GrammarEngine, String>>>>,
    /// The model's own chat template, when llama.cpp can render it (see [`chat`]).
    chat: Option<LlamaChatTemplate>,
    path: PathBuf,
    name: String,
    load_time: Duration,
    /// Held while generating (calls run one at a time); holds the last prompt's cache.
    busy: Mutex<Option<generate::Prefix>>,
}

/// What constrained decoding needs besides the model: the llguidance parser factory for the
/// model's vocabulary and the token sets of the guards.
pub(crate) struct GrammarEngine {
    factory: ParserFactory,
    /// Tokens whose text starts with an ASCII digit (see [`guard`]).
    digit_tokens: Vec<u32>,
    /// Tokens whose text holds a comma (see [`repeats`]).
    comma_tokens: repeats::CommaTokens,
}

impl GrammarEngine {
    /// Builds the engine for the vocabulary of `tok_env` (about half a second of one core for
    /// a 150,000-token vocabulary: the factory's token slices).
    fn build(tok_env: &llguidance::toktrie::TokEnv) -> Result<Self, String> {
        let mut factory = ParserFactory::new(
            tok_env,
            InferenceCapabilities::default(),
            &llguidance::earley::SlicedBiasComputer::general_slices(),
        )
        .map_err(|e| format!("grammar engine: {e}"))?;
        factory.quiet();
        let trie = tok_env.tok_trie();
        let vocab = 0..u32::try_from(trie.vocab_size()).unwrap_or(u32::MAX);
        let digit_tokens = vocab
            .clone()
            .filter(|&t| trie.token(t).first().is_some_and(u8::is_ascii_digit))
            .collect();
        let comma_tokens = repeats::CommaTokens::new(vocab.map(|t| (t, trie.token(t).to_vec())));
        Ok(Self {
            factory,
            digit_tokens,
            comma_tokens,
        })
    }
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("path", &self.path)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The process-wide llama.cpp backend (initialised once; its logs go to `tracing`).
fn backend() -> Result<&'static LlamaBackend, LocalError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            send_logs_to_tracing(LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|message| LocalError::Inference {
            message: format!("llama.cpp backend: {message}"),
        })
}

impl LocalModel {
    /// Loads the GGUF file at `path` and starts building the grammar engine for its
    /// vocabulary on its own thread. Blocking (about a second for the default model).
    pub fn load(path: &Path) -> Result<Self, LocalError> {
        if !path.is_file() {
            return Err(LocalError::ModelMissing {
                path: path.to_path_buf(),
                origin: "the model path".to_owned(),
            });
        }
        let started = Instant::now();
        crate::cores::mark();
        let model = LlamaModel::load_from_file(backend()?, path, &LlamaModelParams::default())
            .map_err(|e| LocalError::Load {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let tok_env = llama_cpp_2::sampling::LlamaSampler::llguidance_tok_env(&model);
        // The factory is not needed before the prompt is evaluated: built beside it, it costs
        // a single `ask` nothing where a second core is free.
        let building = std::thread::Builder::new()
            .name("rectify-grammar".to_owned())
            .spawn(move || GrammarEngine::build(&tok_env))
            .map_err(|e| LocalError::Load {
                path: path.to_path_buf(),
                message: format!("grammar engine thread: {e}"),
            })?;
        Ok(Self {
            name: model_name(&model, path),
            chat: chat::template_of(&model),
            model,
            grammar: OnceLock::new(),
            building: Mutex::new(Some(building)),
            path: path.to_path_buf(),
            load_time: started.elapsed(),
            busy: Mutex::new(None),
        })
    }

    /// The grammar engine, waiting for its thread on first use.
    pub(crate) fn grammar(&self) -> Result<&GrammarEngine, LocalError> {
        self.grammar
            .get_or_init(|| {
                let handle = self
                    .building
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take();
                handle.map_or_else(
                    || Err("grammar engine: not built".to_owned()),
                    |h| {
                        h.join()
                            .unwrap_or_else(|_| Err("grammar engine: its thread failed".to_owned()))
                    },
                )
            })
            .as_ref()
            .map_err(|message| LocalError::Load {
                path: self.path.clone(),
                message: message.clone(),
            })
    }

    /// The model loaded from `path` in this process, loading it on first use. A loaded model
    /// stays loaded for the life of the process (every provider built over the same file, one
    /// after another or side by side, would otherwise load it again): its weights are
    /// memory-mapped, so an unused model costs address space, not memory the system cannot
    /// reclaim.
    pub fn shared(path: &Path) -> Result<Arc<Self>, LocalError> {
        static CACHE: Mutex<Vec<(PathBuf, Arc<LocalModel>)>> = Mutex::new(Vec::new());
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut cache = CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, model)) = cache.iter().find(|(p, _)| *p == key) {
            return Ok(Arc::clone(model));
        }
        let model = Arc::new(Self::load(&key)?);
        cache.push((key, Arc::clone(&model)));
        Ok(model)
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A short name: the GGUF `general.name`, else the file stem.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How long loading took (the weights and vocabulary; the grammar engine is built
    /// beside the first prompt's evaluation).
    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    /// Whether the model has a chat template llama.cpp renders (an instruction-tuned model):
    /// prompts are then its own turns, else a plain transcript ([`crate::prompt`]).
    pub fn is_chat(&self) -> bool {
        self.chat.is_some()
    }

    /// `turns` (role, content) in the model's chat format, ending with the opening of the
    /// assistant's turn; `None` when the model has no chat template ([`Self::is_chat`]).
    pub fn chat_prompt(&self, turns: &[(&str, &str)]) -> Option<Result<String, LocalError>> {
        let template = self.chat.as_ref()?;
        Some(chat::render(&self.model, template, turns))
    }

    /// The context length the model was trained with.
    pub fn context_train(&self) -> u32 {
        self.model.n_ctx_train()
    }

    /// Number of tokens in `text` (with the leading BOS token the prompt gets).
    pub fn count_tokens(&self, text: &str) -> usize {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), true, false)
            .len()
    }
}

fn model_name(model: &LlamaModel, path: &Path) -> String {
    model
        .meta_val_str("general.name")
        .ok()
        .filter(|n| !n.trim().is_empty())
        .or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "local".to_owned())
}
