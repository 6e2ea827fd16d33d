//! [`LocalProvider`]: the embedded model behind the [`Provider`] trait.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rectify_provider::{
    Capabilities, CompletionFuture, ErrorKind, FinishReason, Provider, ProviderError, Request,
    Response, StreamSink, Usage,
};
use serde_json::json;

use crate::engine::{Finish, GenerateParams, Generation, LocalModel};
use crate::fetch::{self, FetchEvent};
use crate::grounding;
use crate::options::env;
use crate::prompt::{Prompt, build_prompt, chat_turns};
use crate::{LocalError, LocalOptions};

/// Where the model comes from.
#[derive(Debug, Clone)]
enum Source {
    /// A configured GGUF file, and where the setting came from.
    File { path: PathBuf, origin: &'static str },
    /// A model of the catalogue (the default when none is named), fetched into the cache on
    /// first use.
    Named(&'static fetch::ModelSpec),
}

/// The embedded local model as a [`Provider`]: prompts are rendered few-shot from the schema
/// and answers are sampled under a grammar compiled from it (see the crate docs).
///
/// The model is loaded (and on first use downloaded) lazily, on the first call or by
/// [`LocalProvider::load`]. Clones share the loaded model.
#[derive(Debug, Clone)]
pub struct LocalProvider {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    source: Source,
    options: LocalOptions,
    model: Mutex<Option<Arc<LocalModel>>>,
    calls: AtomicU32,
    name: String,
}

impl LocalProvider {
    /// The provider `rectify ask --provider local` uses: the model is `options.model_path`
    /// (`--model-path`), else the model named by `options.model` (`--model`), else
    /// `RECTIFY_MODEL_PATH`, else the model named by `RECTIFY_LOCAL_MODEL`, else the default
    /// model ([`fetch::DEFAULT_MODEL`]); a named model is downloaded into the cache on first
    /// use. Threads and context come from the environment as in [`LocalOptions::with_env`].
    /// Cheap: nothing is loaded until the first call. Fails only on invalid environment
    /// values, an unknown model name or a configured model file that does not exist.
    pub fn from_env_or_default(options: LocalOptions) -> Result<Self, LocalError> {
        let named = options.model.clone();
        let options = options.with_env()?;
        let source = if let Some(path) = &options.model_path {
            file_source(path.clone(), "--model-path")?
        } else if let Some(name) = named {
            Source::Named(fetch::find_model(&name)?)
        } else if let Some(path) = env("RECTIFY_MODEL_PATH") {
            file_source(PathBuf::from(path), "RECTIFY_MODEL_PATH")?
        } else if let Some(name) = &options.model {
            Source::Named(fetch::find_model(name)?)
        } else {
            Source::Named(&fetch::DEFAULT_MODEL)
        };
        Ok(Self::build(source, options, None))
    }

    /// A provider over an already loaded model (for sharing one model between providers).
    pub fn with_model(model: Arc<LocalModel>, options: LocalOptions) -> Self {
        let source = Source::File {
            path: model.path().to_path_buf(),
            origin: "a loaded model",
        };
        Self::build(source, options, Some(model))
    }

    fn build(source: Source, options: LocalOptions, model: Option<Arc<LocalModel>>) -> Self {
        let stem = match &source {
            Source::File { path, .. } => path.file_stem().map(|s| s.to_string_lossy().into_owned()),
            Source::Named(spec) => Path::new(spec.file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned()),
        };
        let name = format!("local:{}", stem.unwrap_or_else(|| "model".to_owned()));
        Self {
            inner: Arc::new(Inner {
                source,
                options,
                model: Mutex::new(model),
                calls: AtomicU32::new(0),
                name,
            }),
        }
    }

    /// Loads the model now (downloading the default model first if needed, with progress sent
    /// to `options.progress`). Blocking. Later calls return the same model.
    pub fn load(&self) -> Result<Arc<LocalModel>, LocalError> {
        self.inner.model()
    }

    /// The options in force.
    pub fn options(&self) -> &LocalOptions {
        &self.inner.options
    }
}

fn file_source(path: PathBuf, origin: &'static str) -> Result<Source, LocalError> {
    if path.is_dir() {
        return Err(LocalError::InvalidOption {
            name: origin.to_owned(),
            message: format!(
                "`{}` is a directory; give the path of a GGUF model file",
                path.display()
            ),
        });
    }
    if path.is_file() {
        Ok(Source::File { path, origin })
    } else {
        Err(LocalError::ModelMissing {
            path,
            origin: origin.to_owned(),
        })
    }
}

impl Inner {
    fn model(&self) -> Result<Arc<LocalModel>, LocalError> {
        let mut slot = self
            .model
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(model) = slot.as_ref() {
            return Ok(Arc::clone(model));
        }
        let model = match &self.source {
            Source::File { path, origin } => {
                file_source(path.clone(), origin)?;
                LocalModel::shared(path)?
            }
            Source::Named(spec) => {
                let progress = self.options.progress.clone();
                let mut report = |event: FetchEvent| {
                    if let Some(progress) = &progress {
                        progress(event);
                    }
                };
                let verified = fetch::ensure_named(spec, &mut report)?;
                match spec.convert_to {
                    Some(conversion) => {
                        crate::engine::load_converted(&verified, conversion, &mut report)?
                    }
                    None => LocalModel::shared(&verified)?,
                }
            }
        };
        *slot = Some(Arc::clone(&model));
        Ok(model)
    }

    /// The grounding mode: the options', where `auto` follows the measured default of the
    /// catalog's model ([`fetch::ModelSpec::grounds`]): the named one, or the one whose file a
    /// path names ([`fetch::catalog::model_by_file`]); any other file keeps `auto`.
    fn grounding(&self) -> grounding::Grounding {
        match (self.spec(), self.options.grounding) {
            (Some(spec), grounding::Grounding::Auto) if !spec.grounds => grounding::Grounding::Off,
            (_, mode) => mode,
        }
    }

    /// Whether grounding ties numbers too: where the catalog's model was measured to gain
    /// from it ([`fetch::ModelSpec::grounds_numbers`]), for any other file, and always under
    /// an explicit `on`.
    fn grounds_numbers(&self) -> bool {
        self.options.grounding == grounding::Grounding::On
            || self.spec().is_none_or(|spec| spec.grounds_numbers)
    }

    /// The catalog's model: the named one, or the one whose file a path names
    /// ([`fetch::catalog::model_by_file`]).
    fn spec(&self) -> Option<&'static fetch::ModelSpec> {
        match &self.source {
            Source::Named(spec) => Some(*spec),
            Source::File { path, .. } => path
                .file_name()
                .and_then(|name| fetch::catalog::model_by_file(&name.to_string_lossy())),
        }
    }

    fn params(
        &self,
        model: &LocalModel,
        request: &Request,
        cancel: Arc<AtomicBool>,
    ) -> Result<GenerateParams, LocalError> {
        let (prompt, chat) = self.prompt(model, request)?;
        // Field by field and the key's contrast were measured to pay on the base model's
        // transcript, and to lose fields on an instruction-tuned model (docs/BENCHMARKS.md).
        let field_by_field = self.options.field_by_field.unwrap_or(!chat);
        let contrasts = self.options.contrast.unwrap_or(!chat);
        let constrained = self.options.constrained && request.wants_json();
        let grounded = constrained
            .then(|| grounding::grammar_schema(self.grounding(), self.grounds_numbers(), request))
            .flatten();
        let fields = grounded
            .as_ref()
            .filter(|_| field_by_field)
            .and_then(|schema| {
                let text = grounding::request_text(request);
                grounding::fields::plan(schema, grounding::quoted_part(&text))
            });
        let grounded_schema = grounded.clone();
        let grammar = constrained.then(|| {
            grounded.unwrap_or_else(|| request.schema.clone().unwrap_or_else(|| json!({})))
        });
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        Ok(GenerateParams {
            prompt: prompt.text,
            special: chat,
            stop: prompt.stop,
            grammar,
            contrast: contrasts && fields.is_some(),
            open_lists: grounding::is_extraction(&grounding::request_text(request)),
            fields,
            max_tokens: answer_budget(
                model,
                request,
                self.options.max_output_tokens,
                grounded_schema.as_ref(),
            ),
            temperature: request
                .temperature
                .map_or(self.options.temperature, |t| t as f32),
            seed: self.options.seed.wrapping_add(call),
            threads: self.options.thread_count(),
            max_context: self.options.max_context,
            deadline: request.timeout.map(|t| Instant::now() + t),
            cancel: Some(cancel),
        })
    }

    /// The prompt for `request`: the model's own chat format when it has one (and
    /// `options.chat`), else the few-shot transcript; and whether it holds special tokens.
    fn prompt(&self, model: &LocalModel, request: &Request) -> Result<(Prompt, bool), LocalError> {
        if self.options.chat && model.is_chat() {
            let turns = chat_turns(request);
            let turns: Vec<(&str, &str)> =
                turns.iter().map(|t| (t.role, t.content.as_str())).collect();
            if let Some(text) = model.chat_prompt(&turns) {
                let stop = request.stop.clone();
                return Ok((Prompt { text: text?, stop }, true));
            }
        }
        Ok((build_prompt(request), false))
    }

    /// Answers `request`, handing the answer's text to `on_text` as it is decoded.
    fn run(
        &self,
        request: &Request,
        cancel: Arc<AtomicBool>,
        on_text: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Response, LocalError> {
        let started = Instant::now();
        let model = self.model()?;
        let params = self.params(&model, request, cancel)?;
        let mut generation = model.generate_streaming(&params, on_text)?;
        let grounded = Grounded::check(self.grounding(), request, &mut generation.text);
        Ok(response(
            &model,
            &params,
            &generation,
            &grounded,
            started.elapsed(),
        ))
    }
}

/// The token budget of an answer: the request's (else the configured default); for a grounded
/// answer no more than its parts can take — every value is a span of the request and every key
/// the schema's, so three times the tokens of the request and the schema, plus room for
/// punctuation, bound it (a list cannot repeat its items: `engine/repeats.rs`).
fn answer_budget(
    model: &LocalModel,
    request: &Request,
    default: u32,
    grounded: Option<&serde_json::Value>,
) -> u32 {
    let asked = request.max_output_tokens.unwrap_or(default);
    let Some(schema) = grounded.and(request.schema.as_ref()) else {
        return asked;
    };
    let text = grounding::request_text(request);
    let parts =
        model.count_tokens(grounding::quoted_part(&text)) + model.count_tokens(&schema.to_string());
    let bound = u32::try_from(3 * parts + 64).unwrap_or(u32::MAX);
    asked.min(bound)
}

/// Sets the cancel flag when the caller drops the future.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl LocalProvider {
    /// Runs `request` on a blocking thread, handing the answer's text to `on_text` there;
    /// dropping the future stops the generation.
    async fn answer(
        &self,
        request: &Request,
        on_text: impl FnMut(&str) -> ControlFlow<()> + Send + 'static,
    ) -> Result<Response, ProviderError> {
        let started = Instant::now();
        let inner = Arc::clone(&self.inner);
        let request = request.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(Arc::clone(&cancel));
        let mut on_text = on_text;
        let joined =
            tokio::task::spawn_blocking(move || inner.run(&request, cancel, &mut on_text)).await;
        let result = joined.unwrap_or_else(|e| {
            Err(LocalError::Inference {
                message: format!("inference thread failed: {e}"),
            })
        });
        result.map_err(|e| provider_error(&self.inner.name, &e, started.elapsed()))
    }

    /// [`Provider::complete_streaming`]: each piece of text decoded on the blocking thread is
    /// sent here, handed to `sink`, and its answer sent back before the next token is decoded
    /// (so decoding stops right after the piece the sink stopped at).
    async fn stream(
        &self,
        request: &Request,
        sink: &mut dyn StreamSink,
    ) -> Result<Response, ProviderError> {
        let (pieces, mut arrived) = tokio::sync::mpsc::unbounded_channel::<String>();
        let (answer, answers) = std::sync::mpsc::channel::<ControlFlow<()>>();
        let on_text = move |text: &str| {
            if pieces.send(text.to_owned()).is_err() {
                return ControlFlow::Break(());
            }
            // No answer: the caller went away.
            answers.recv().unwrap_or(ControlFlow::Break(()))
        };
        let generation = self.answer(request, on_text);
        let hand_over = async {
            while let Some(piece) = arrived.recv().await {
                let _ = answer.send(sink.text(&piece));
            }
        };
        let (result, ()) = tokio::join!(generation, hand_over);
        result
    }
}

impl Provider for LocalProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(self.answer(request, |_| ControlFlow::Continue(())))
    }

    /// Hands each decoded token's text to `sink` (characters split between byte-level tokens
    /// joined, the start of a stop sequence held); a [`ControlFlow::Break`] stops decoding and
    /// the answer is the text handed over, its `finish_reason`
    /// [`STOPPED`](rectify_provider::STOPPED). A grounded answer whose repeated list items are
    /// dropped or whose lists are completed afterwards ([`crate::grounding`]) differs from the
    /// text streamed; the response holds the final text.
    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        Box::pin(self.stream(request, sink))
    }

    fn streams(&self) -> bool {
        true
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            json_mode: true,
            json_schema: self.inner.options.constrained,
            system_prompt: false,
            multi_turn: false,
            agent: false,
            max_context_tokens: Some(u64::from(self.inner.options.max_context)),
        }
    }

    fn name(&self) -> &str {
        &self.inner.name
    }
}

fn provider_error(name: &str, error: &LocalError, elapsed: Duration) -> ProviderError {
    let kind = match error {
        LocalError::DeadlineReached { .. } => ErrorKind::Timeout {
            after: elapsed,
            stderr_tail: None,
        },
        LocalError::Inference { .. } | LocalError::Cancelled => ErrorKind::InvalidResponse {
            message: error.to_string(),
        },
        _ => ErrorKind::Config {
            message: error.to_string(),
        },
    };
    let mut error = ProviderError::new(name, kind);
    error.elapsed = elapsed;
    error
}

/// Whether the grammar grounded the answer, and the answer's values the request does not hold.
struct Grounded {
    applied: bool,
    missing: Vec<String>,
    repeats_dropped: usize,
    lists_completed: usize,
}

impl Grounded {
    /// Checks `answer` against the request; a grounded answer loses its repeated list items
    /// ([`grounding::drop_repeats`]) and gains the items a list cut short leaves out of the
    /// request's enumeration ([`grounding::lists::complete_lists`]).
    fn check(mode: grounding::Grounding, request: &Request, answer: &mut String) -> Self {
        let applied = grounding::applies(mode, request);
        let mut found = Self {
            applied,
            missing: Vec::new(),
            repeats_dropped: 0,
            lists_completed: 0,
        };
        let (Some(schema), Ok(mut value)) = (
            request.schema.as_ref(),
            serde_json::from_str::<serde_json::Value>(answer),
        ) else {
            return found;
        };
        let text = grounding::request_text(request);
        if applied {
            found.repeats_dropped = grounding::drop_repeats(&mut value, schema);
            let quoted = grounding::quoted_part(&text);
            found.lists_completed = grounding::lists::complete_lists(&mut value, schema, quoted);
            if found.repeats_dropped + found.lists_completed > 0 {
                *answer = value.to_string();
            }
        }
        found.missing = grounding::ungrounded(&value, &text, Some(schema));
        found
    }
}

fn response(
    model: &LocalModel,
    params: &GenerateParams,
    generation: &Generation,
    grounded: &Grounded,
    latency: Duration,
) -> Response {
    Response {
        text: generation.text.clone(),
        finish_reason: match generation.finish {
            Finish::Stop => FinishReason::Stop,
            Finish::Length => FinishReason::Length,
            Finish::Stopped => FinishReason::Other(rectify_provider::STOPPED.to_owned()),
        },
        usage: Usage::new(
            generation.prompt_tokens as u64,
            generation.output_tokens as u64,
        ),
        model: model.name().to_owned(),
        latency,
        transport_retries: 0,
        raw: raw_metadata(model, params, generation, grounded),
        notices: Vec::new(),
    }
}

/// The `raw` field: a JSON object describing how the answer was produced. `grounded` says
/// whether the grammar tied the answer's values to the request, `ungrounded` lists the JSON
/// Pointers of values the request does not hold (a warning: the model made them up or the
/// request wrote them another way), `repeats_dropped` the repeated list items removed from a
/// grounded answer, `lists_completed` the items added to lists the model cut short.
fn raw_metadata(
    model: &LocalModel,
    params: &GenerateParams,
    generation: &Generation,
    grounded: &Grounded,
) -> String {
    let per_second = |tokens: usize, time: Duration| {
        let secs = time.as_secs_f64();
        if secs > 0.0 {
            tokens as f64 / secs
        } else {
            0.0
        }
    };
    json!({
        "backend": "llama.cpp",
        "model_path": model.path().display().to_string(),
        "constrained": generation.constrained,
        "grammar": if generation.constrained { "llguidance" } else { "none" },
        "masked_steps": generation.masked_steps,
        "grammar_interventions": generation.interventions,
        "repeat_stops": generation.repeat_stops,
        "forced_tokens": generation.forced_tokens,
        "reused_prompt_tokens": generation.reused_prompt_tokens,
        "grammar_warnings": generation.grammar_warnings,
        "grounded": grounded.applied,
        "field_by_field": generation.field_by_field,
        "ungrounded": grounded.missing,
        "repeats_dropped": grounded.repeats_dropped,
        "lists_completed": grounded.lists_completed,
        "finish": match generation.finish {
            Finish::Stop => "stop",
            Finish::Length => "length",
            Finish::Stopped => "stopped",
        },
        "prompt_tokens": generation.prompt_tokens,
        "output_tokens": generation.output_tokens,
        "max_tokens": params.max_tokens,
        "temperature": params.temperature,
        "seed": params.seed,
        "threads": params.threads,
        "prompt_ms": generation.prompt_time.as_millis() as u64,
        "generation_ms": generation.generation_time.as_millis() as u64,
        "answer_decode_ms": generation.answer_decode_time.as_millis() as u64,
        "prompt_tokens_per_second": per_second(generation.prompt_tokens, generation.prompt_time),
        "tokens_per_second": per_second(generation.output_tokens, generation.generation_time),
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grounding_of(model: &str, grounding: grounding::Grounding) -> grounding::Grounding {
        let options = LocalOptions {
            model: Some(model.to_owned()),
            grounding,
            ..LocalOptions::default()
        };
        let source = Source::Named(fetch::find_model(model).unwrap());
        LocalProvider::build(source, options, None)
            .inner
            .grounding()
    }

    /// `auto` grounds where grounding was measured to pay (the 0.5B) and not where it lost
    /// fields (the 1.5B); an explicit mode is kept for every model.
    #[test]
    fn auto_grounding_follows_the_model_and_an_explicit_mode_wins() {
        use grounding::Grounding::{Auto, Off, On};
        assert_eq!(grounding_of("qwen2.5-coder-0.5b", Auto), Auto);
        assert_eq!(grounding_of("gemma3-270m", Auto), Auto);
        assert_eq!(grounding_of("qwen2.5-coder-1.5b", Auto), Off);
        assert_eq!(grounding_of("qwen2.5-coder-1.5b", On), On);
        assert_eq!(grounding_of("qwen2.5-coder-0.5b", Off), Off);
    }

    fn grounding_of_file(path: &str, grounding: grounding::Grounding) -> grounding::Grounding {
        let options = LocalOptions {
            grounding,
            ..LocalOptions::default()
        };
        let source = Source::File {
            path: PathBuf::from(path),
            origin: "RECTIFY_MODEL_PATH",
        };
        LocalProvider::build(source, options, None)
            .inner
            .grounding()
    }

    /// A catalog model given by path (as fetched or as converted) keeps its measured default;
    /// any other file keeps `auto`.
    #[test]
    fn a_catalog_model_given_by_path_keeps_its_grounding() {
        use grounding::Grounding::{Auto, Off, On};
        let big = fetch::find_model("qwen2.5-coder-1.5b").unwrap().file;
        assert_eq!(grounding_of_file(&format!("/m/{big}"), Auto), Off);
        assert_eq!(grounding_of_file(&format!("/m/{big}"), On), On);
        let small = fetch::DEFAULT_MODEL;
        let converted = small.convert_to.unwrap().path_for(Path::new(small.file));
        assert_eq!(
            grounding_of_file(&format!("/m/{}", converted.display()), Auto),
            Auto
        );
        assert_eq!(grounding_of_file("/m/my-own-model.gguf", Auto), Auto);
    }

    fn ties_numbers(source: Source, grounding: grounding::Grounding) -> bool {
        let options = LocalOptions {
            grounding,
            ..LocalOptions::default()
        };
        LocalProvider::build(source, options, None)
            .inner
            .grounds_numbers()
    }

    /// The default model leaves numbers free unless grounding is `on`; Gemma and a file of
    /// no catalog model tie them.
    #[test]
    fn numbers_are_tied_where_the_model_gains_from_it_or_when_asked() {
        use grounding::Grounding::{Auto, On};
        let named = |name: &str| Source::Named(fetch::find_model(name).unwrap());
        assert!(!ties_numbers(named("qwen2.5-coder-0.5b"), Auto));
        assert!(ties_numbers(named("qwen2.5-coder-0.5b"), On));
        assert!(ties_numbers(named("gemma3-270m"), Auto));
        let file = |path: &str| Source::File {
            path: PathBuf::from(path),
            origin: "RECTIFY_MODEL_PATH",
        };
        assert!(ties_numbers(file("/m/my-own-model.gguf"), Auto));
        let small = fetch::DEFAULT_MODEL;
        let converted = small.convert_to.unwrap().path_for(Path::new(small.file));
        assert!(!ties_numbers(
            file(&format!("/m/{}", converted.display())),
            Auto
        ));
    }
}
