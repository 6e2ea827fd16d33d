//! The generation loop: prompt evaluation, then one token at a time until the grammar
//! completes, the model ends its turn, a stop sequence appears or the token budget runs out.

use std::num::NonZeroU32;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::session::{LlamaStateSeqFlags, SeqState};
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::token::LlamaToken;
use serde_json::Value;

use super::contrast::{self, Adjust, Contrast};
use super::fields::FieldRun;
use super::grammar::constraint_for;
use super::guard::{MAX_NUMBER_DIGITS, NumberGuard};
use super::repeats::RepeatGuard;
use super::sample::{Pick, Sampler};
use super::stream::{OnText, TextOut};
use super::{GrammarEngine, LocalModel, backend};
use crate::LocalError;
use crate::grounding::fields::FieldPlan;

const BATCH: usize = 512;

/// Cache cells kept free for the contrasting prefixes of [`super::contrast`].
const CONTRAST_ROOM: usize = 64;

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateParams {
    /// The full prompt text.
    pub prompt: String,
    /// Whether the prompt holds special tokens written as text (a chat template's markers,
    /// such as `<|im_start|>`), to be tokenized as such.
    pub special: bool,
    /// Stop sequences (the output is cut before the first one).
    pub stop: Vec<String>,
    /// Constrain the output to JSON: `Some(schema)` to this schema, `Some({})` to any JSON.
    pub grammar: Option<Value>,
    /// Narrow the grammar after each property of the answer object under this plan (instead
    /// of `grammar`).
    pub fields: Option<FieldPlan>,
    /// Under `fields`, choose the first token of each string value among the model's
    /// near-favourites by what the field's key adds over the other fields' keys.
    pub contrast: bool,
    /// Leave a list's opening bracket to the model when the grammar forces it (see
    /// `take_forced`): on for extraction requests, where it was measured to pay.
    pub open_lists: bool,
    /// The token budget for the answer.
    pub max_tokens: u32,
    /// Sampling temperature; 0 is greedy.
    pub temperature: f32,
    /// Seed of the random draw (ignored when greedy).
    pub seed: u32,
    /// Threads for llama.cpp.
    pub threads: u16,
    /// Upper bound of the context window (prompt plus answer) in tokens.
    pub max_context: u32,
    /// Give up with [`LocalError::DeadlineReached`] after this instant.
    pub deadline: Option<Instant>,
    /// Give up with [`LocalError::Cancelled`] when this flag is set (the caller went away).
    pub cancel: Option<Arc<AtomicBool>>,
}

/// Why generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The grammar reached its end, the model ended its turn, or a stop sequence appeared.
    Stop,
    /// The token budget ran out first.
    Length,
    /// The caller stopped it: the text callback of [`LocalModel::generate_streaming`] said
    /// [`ControlFlow::Break`].
    Stopped,
}

/// A finished generation with its measurements.
#[derive(Debug, Clone)]
pub struct Generation {
    /// The generated text (stop sequence excluded).
    pub text: String,
    /// Why it ended.
    pub finish: Finish,
    /// Tokens in the prompt.
    pub prompt_tokens: usize,
    /// Tokens generated.
    pub output_tokens: usize,
    /// Whether a grammar constrained the sampling.
    pub constrained: bool,
    /// Whether the grammar was narrowed after each property ([`GenerateParams::fields`]).
    pub field_by_field: bool,
    /// Tokens sampled under the grammar mask.
    pub masked_steps: u32,
    /// Steps where the grammar overruled the model's favourite token.
    pub interventions: u32,
    /// Steps at which a list item repeated an earlier one and going on to another item was
    /// forbidden.
    pub repeat_stops: u32,
    /// Tokens the grammar forced, taken without sampling and evaluated in one batch with the
    /// token before them.
    pub forced_tokens: u32,
    /// Prompt tokens restored from the previous call's cache instead of evaluated.
    pub reused_prompt_tokens: usize,
    /// Notes from the grammar compiler (keywords not enforced, fallbacks, matcher errors).
    pub grammar_warnings: Vec<String>,
    /// Time to evaluate the prompt.
    pub prompt_time: Duration,
    /// Time to generate the answer.
    pub generation_time: Duration,
    /// The part of `generation_time` spent in the model's evaluation of answer tokens (the
    /// rest is sampling, the grammar's masks and the guards).
    pub answer_decode_time: Duration,
}

/// The model's cache after the last prompt: a re-ask of the same request (or the next step of a
/// workflow with the same system text) starts with the same tokens, which are then restored
/// instead of evaluated again.
pub(crate) struct Prefix {
    tokens: Vec<LlamaToken>,
    state: SeqState,
    /// Whether it came from a context with the contrast's second sequence (only restored into
    /// a context of the same layout).
    contrasts: bool,
}

impl LocalModel {
    /// Generates an answer for `params`. Blocking: run it on a blocking thread.
    pub fn generate(&self, params: &GenerateParams) -> Result<Generation, LocalError> {
        self.generate_streaming(params, &mut |_| ControlFlow::Continue(()))
    }

    /// [`LocalModel::generate`], handing the answer's text to `on_text` as it is decoded, token
    /// by token: the bytes of a character split between tokens are joined first, and the start
    /// of what may be a stop sequence is held until the next token says (the answer is cut
    /// before one). All the pieces, concatenated, are the answer's text. When `on_text` says
    /// [`ControlFlow::Break`], decoding stops before the next token is evaluated; the
    /// generation's text is then what `on_text` was handed, and its finish
    /// [`Finish::Stopped`].
    pub fn generate_streaming(
        &self,
        params: &GenerateParams,
        on_text: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Generation, LocalError> {
        let mut prefix = self
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let tokens = self
            .model
            .vocab()
            .tokenize(params.prompt.as_bytes(), true, params.special);
        let context = params.max_context.max(64) as usize;
        if tokens.len() >= context {
            return Err(LocalError::PromptTooLong {
                prompt_tokens: tokens.len(),
                context_tokens: context,
            });
        }
        let budget = (params.max_tokens as usize).min(context - tokens.len());
        let contrasts = params.fields.is_some() && params.contrast;
        let room = if contrasts { CONTRAST_ROOM } else { 0 };
        let cells = tokens.len() + budget + room;
        if params.threads > 1 {
            // The grammar engine's thread would take a core from the evaluation's threads,
            // which wait for each other at every step: let it finish first.
            self.grammar()?;
        }
        let mut ctx = self.context(cells, params.threads, contrasts)?;
        let started = Instant::now();
        let same_layout = prefix.as_ref().filter(|p| p.contrasts == contrasts);
        let reused = restore_prefix(&mut ctx, same_layout, &tokens, cells);
        evaluate_prompt(&mut ctx, &tokens, reused)?;
        // Kept only when it can be taken (a failure costs the next call its reuse, not more).
        *prefix = ctx
            .state_seq_get(0, LlamaStateSeqFlags::empty())
            .ok()
            .map(|state| Prefix {
                tokens: tokens.clone(),
                state,
                contrasts,
            });
        let prompt_time = started.elapsed();
        let engine = self.grammar()?;
        let mut run = Run::new(self, engine, params, tokens.len(), budget);
        run.reused_tokens = reused;
        run.generate(&mut ctx, on_text)?;
        Ok(run.into_generation(prompt_time, started.elapsed().saturating_sub(prompt_time)))
    }

    /// A context for `tokens` tokens; with a second sequence sharing the cache when
    /// `contrasts` (see [`super::contrast`]).
    fn context(
        &self,
        tokens: usize,
        threads: u16,
        contrasts: bool,
    ) -> Result<LlamaContext<'_>, LocalError> {
        let n_ctx = u32::try_from(tokens.max(64)).unwrap_or(u32::MAX);
        let threads = i32::from(threads.max(1));
        let mut params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(BATCH as u32)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        if contrasts {
            params = params.with_n_seq_max(2).with_kv_unified(true);
        }
        self.model
            .new_context(backend()?, params)
            .map_err(|e| inference(&e))
    }
}

pub(super) fn inference(error: &dyn std::fmt::Display) -> LocalError {
    LocalError::Inference {
        message: error.to_string(),
    }
}

/// Restores the cached prompt's state into `ctx` when it shares a prefix with `tokens`, and
/// returns how many tokens it holds (0 when nothing is reused). At least the last token is
/// always evaluated again, for its logits.
fn restore_prefix(
    ctx: &mut LlamaContext<'_>,
    prefix: Option<&Prefix>,
    tokens: &[LlamaToken],
    cells: usize,
) -> usize {
    let Some(prefix) = prefix.filter(|p| p.tokens.len() <= cells) else {
        return 0;
    };
    let shared = prefix
        .tokens
        .iter()
        .zip(tokens)
        .take_while(|(a, b)| a == b)
        .count()
        .min(tokens.len().saturating_sub(1));
    if shared == 0 || ctx.state_seq_set(&prefix.state, 0).is_err() {
        ctx.clear_kv_cache();
        return 0;
    }
    let kept = u32::try_from(shared).ok();
    if kept.is_none() || ctx.kv_cache_seq_rm(0, kept, None).is_err() {
        ctx.clear_kv_cache();
        return 0;
    }
    shared
}

/// Evaluates `tokens` from `from` on (the ones before are in the cache already), with logits
/// for the last one.
fn evaluate_prompt(
    ctx: &mut LlamaContext<'_>,
    tokens: &[LlamaToken],
    from: usize,
) -> Result<(), LocalError> {
    let mut batch = LlamaBatch::new(BATCH, 1);
    let last = tokens.len().saturating_sub(1);
    let rest = tokens.get(from..).unwrap_or_default();
    for (index, chunk) in rest.chunks(BATCH).enumerate() {
        batch.clear();
        for (offset, &token) in chunk.iter().enumerate() {
            let pos = from + index * BATCH + offset;
            let pos_i32 = i32::try_from(pos).map_err(|e| inference(&e))?;
            batch
                .add(token, pos_i32, &[0], pos == last)
                .map_err(|e| inference(&e))?;
        }
        ctx.decode(&mut batch).map_err(|e| inference(&e))?;
    }
    Ok(())
}

/// The state of one generation.
struct Run<'m> {
    model: &'m LocalModel,
    engine: &'m GrammarEngine,
    params: &'m GenerateParams,
    sampler: Sampler,
    matcher: Option<llguidance::Matcher>,
    fields: Option<FieldRun>,
    /// The weight of the key's lift at a value's first token ([`super::contrast`]).
    weight: f32,
    warnings: Vec<String>,
    output: Vec<u8>,
    guard: NumberGuard,
    repeats: RepeatGuard,
    /// Steps at which [`Self::repeats`] forbade tokens.
    repeats_stopped: u32,
    /// Tokens the grammar forced, taken without sampling.
    forced: u32,
    /// Prompt tokens restored from the previous call's cache.
    reused_tokens: usize,
    /// Time in the model's evaluation of answer tokens.
    decode_time: Duration,
    generated: usize,
    position: usize,
    prompt_tokens: usize,
    budget: usize,
    finish: Finish,
    /// How much of the output was handed to the caller.
    text_out: TextOut,
}

impl<'m> Run<'m> {
    fn new(
        model: &'m LocalModel,
        engine: &'m GrammarEngine,
        params: &'m GenerateParams,
        prompt_tokens: usize,
        budget: usize,
    ) -> Self {
        let (fields, constraint) = match (&params.fields, &params.grammar) {
            (Some(plan), _) => {
                let (run, constraint) = FieldRun::start(plan.clone(), &engine.factory);
                (Some(run), Some(constraint))
            }
            (None, Some(schema)) => (None, Some(constraint_for(&engine.factory, Some(schema)))),
            (None, None) => (None, None),
        };
        let (matcher, warnings) =
            constraint.map_or((None, Vec::new()), |c| (c.matcher, c.warnings));
        Self {
            model,
            engine,
            params,
            sampler: Sampler::new(params.temperature, params.seed),
            matcher,
            fields,
            weight: if params.contrast {
                contrast::WEIGHT
            } else {
                0.0
            },
            warnings,
            output: Vec::new(),
            guard: NumberGuard::default(),
            repeats: RepeatGuard::default(),
            repeats_stopped: 0,
            forced: 0,
            reused_tokens: 0,
            decode_time: Duration::ZERO,
            generated: 0,
            position: prompt_tokens,
            prompt_tokens,
            budget,
            finish: Finish::Length,
            text_out: TextOut::default(),
        }
    }

    fn generate(
        &mut self,
        ctx: &mut LlamaContext<'_>,
        on_text: OnText<'_>,
    ) -> Result<(), LocalError> {
        self.decode(ctx, on_text)?;
        if self.finish == Finish::Stopped {
            self.output.truncate(self.text_out.seen());
        } else {
            self.text_out.finish(&self.output, on_text);
        }
        Ok(())
    }

    /// Samples and evaluates one token (and those the grammar forces after it) at a time,
    /// handing the text on after each, until the answer is complete, the budget is spent or
    /// `on_text` stops it.
    fn decode(
        &mut self,
        ctx: &mut LlamaContext<'_>,
        on_text: OnText<'_>,
    ) -> Result<(), LocalError> {
        let mut batch = LlamaBatch::new(BATCH, 1);
        let evaluated = self.prompt_tokens - self.reused_tokens;
        let mut logits_index =
            i32::try_from(evaluated.saturating_sub(1) % BATCH).map_err(|e| inference(&e))?;
        while self.generated < self.budget {
            self.check_interrupts()?;
            let pick = self.pick(ctx, logits_index);
            let token = match pick {
                Pick::Token(token) => token,
                Pick::GrammarDone(error) => {
                    self.warnings.extend(error);
                    self.finish = Finish::Stop;
                    return Ok(());
                }
            };
            if self.accept(token) {
                self.finish = Finish::Stop;
                return Ok(());
            }
            let mut step = vec![token];
            if self.take_forced(&mut step) {
                self.finish = Finish::Stop;
                return Ok(());
            }
            let stops = &self.params.stop;
            if self.text_out.step(&self.output, stops, on_text).is_break() {
                self.finish = Finish::Stopped;
                return Ok(());
            }
            batch.clear();
            let last = step.len() - 1;
            for (offset, &token) in step.iter().enumerate() {
                let pos = i32::try_from(self.position + offset).map_err(|e| inference(&e))?;
                batch
                    .add(token, pos, &[0], offset == last)
                    .map_err(|e| inference(&e))?;
            }
            let decoding = Instant::now();
            ctx.decode(&mut batch).map_err(|e| inference(&e))?;
            self.decode_time += decoding.elapsed();
            self.position += step.len();
            logits_index = i32::try_from(last).map_err(|e| inference(&e))?;
        }
        Ok(())
    }

    /// Takes the tokens the grammar forces next (the rest of a key, `":"`, a closing
    /// bracket) into the output without sampling them, appending them to `step` so they are
    /// evaluated in one batch with the sampled token; true when generation is complete. A
    /// key written token by token cost one model evaluation per token; in one batch it costs
    /// about as much as one.
    fn take_forced(&mut self, step: &mut Vec<LlamaToken>) -> bool {
        let Some(matcher) = self.matcher.as_mut() else {
            return false;
        };
        // The bytes the grammar forces, tokenized here: llguidance forces tokens itself only
        // for tokenizers it knows to be canonical, which llama.cpp's are not declared to be.
        let bytes = matcher.compute_ff_bytes();
        if bytes.is_empty() {
            return false;
        }
        let mut tokens = self.model.model.vocab().tokenize(&bytes, false, false);
        // A list's opening bracket is left to the model: a tokenizer that merges punctuation
        // writes `":["` (or `["`) as one token, so a forced `":[` token is followed by a
        // first item's quote almost never in what the model read, and it closed the list
        // instead (`"countries": []` for "Japan and South Africa"). Only for extraction: a
        // plan's opened `dependsOn` lists named tasks that did not exist (docs/BENCHMARKS.md,
        // issue 36, sixth round).
        if self.params.open_lists && bytes.ends_with(b"[") {
            tokens.pop();
        }
        let ids: Vec<u32> = tokens.iter().map(|t| t.0.cast_unsigned()).collect();
        let valid = matcher.validate_tokens(&ids).unwrap_or(0);
        for &token in tokens.iter().take(valid.min(BATCH - 1)) {
            if self.generated >= self.budget {
                break;
            }
            self.forced += 1;
            if self.accept(token) {
                return true;
            }
            step.push(token);
        }
        false
    }

    /// Picks the next token from the logits at `logits_index`; at the start of a field's
    /// value, among the model's near-favourites by the key's lift ([`super::contrast`]).
    fn pick(&mut self, ctx: &mut LlamaContext<'_>, logits_index: i32) -> Pick {
        let point = self
            .fields
            .as_ref()
            .and_then(FieldRun::point)
            .filter(|_| self.weight > 0.0);
        let Some(point) = point else {
            let logits = ctx.get_logits_ith(logits_index);
            let forbidden = self.forbidden();
            return self
                .sampler
                .pick(logits, self.matcher.as_mut(), &forbidden, None);
        };
        let logits = ctx.get_logits_ith(logits_index).to_vec();
        let Ok(lift) = Contrast::measure(self.model, ctx, &point, self.prompt_tokens) else {
            // No room left in the cache for the contrasting prefixes (a very long key, near
            // the end of the budget): the plain pick, from the logits kept above.
            contrast::reset(ctx);
            let forbidden = self.forbidden();
            return self
                .sampler
                .pick(&logits, self.matcher.as_mut(), &forbidden, None);
        };
        let forbidden = self.forbidden();
        let vocab = self.model.model.vocab();
        let piece = |id: usize| {
            let token = LlamaToken(i32::try_from(id).unwrap_or(0));
            String::from_utf8_lossy(&vocab.token_to_piece(token, false, None)).into_owned()
        };
        let adjust = Adjust {
            contrast: &lift,
            weight: self.weight,
            piece: &piece,
        };
        self.sampler
            .pick(&logits, self.matcher.as_mut(), &forbidden, Some(&adjust))
    }

    /// Takes `token` into the output; true when generation is complete.
    fn accept(&mut self, token: LlamaToken) -> bool {
        let vocab = self.model.model.vocab();
        if vocab.is_eog(token) {
            return true;
        }
        self.generated += 1;
        if let Some(matcher) = self.matcher.as_mut()
            && let Err(error) = matcher.consume_token(token.0.cast_unsigned())
        {
            self.warnings.push(error.to_string());
        }
        let piece = vocab.token_to_piece(token, false, None);
        self.guard.push(&piece);
        self.repeats.push(&piece);
        if let Some(fields) = self.fields.as_mut()
            && let Some(next) = fields.push(token.0.cast_unsigned(), &piece, &self.engine.factory)
        {
            for warning in next.warnings {
                if !self.warnings.contains(&warning) {
                    self.warnings.push(warning);
                }
            }
            if next.matcher.is_some() {
                self.matcher = next.matcher;
            }
        }
        self.output.extend(piece);
        if self.cut_at_stop_sequence() {
            return true;
        }
        self.matcher
            .as_ref()
            .is_some_and(llguidance::Matcher::is_stopped)
    }

    /// The tokens forbidden at this step (under a grammar only): those that would go on
    /// from a repeated list item to another ([`super::repeats`]), and digit tokens while a
    /// number is at its digit limit (noted once in the warnings).
    fn forbidden(&mut self) -> Vec<u32> {
        if self.matcher.is_none() {
            return Vec::new();
        }
        let mut forbidden = self.repeats.forbidden(&self.engine.comma_tokens);
        if !forbidden.is_empty() {
            self.repeats_stopped += 1;
        }
        if self.guard.digits_exhausted() {
            let note = format!(
                "{MAX_NUMBER_DIGITS} digits in a row; digit tokens were forbidden until the run ended"
            );
            if !self.warnings.contains(&note) {
                self.warnings.push(note);
            }
            forbidden.extend(&self.engine.digit_tokens);
        }
        forbidden
    }

    fn cut_at_stop_sequence(&mut self) -> bool {
        let found = self
            .params
            .stop
            .iter()
            .filter(|s| !s.is_empty())
            .filter_map(|s| find(&self.output, s.as_bytes()))
            .min();
        if let Some(at) = found {
            self.output.truncate(at);
        }
        found.is_some()
    }

    fn check_interrupts(&self) -> Result<(), LocalError> {
        if self
            .params
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(LocalError::Cancelled);
        }
        if self.params.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(LocalError::DeadlineReached {
                tokens: self.generated,
            });
        }
        Ok(())
    }

    fn into_generation(self, prompt_time: Duration, generation_time: Duration) -> Generation {
        Generation {
            text: String::from_utf8_lossy(&self.output).into_owned(),
            finish: self.finish,
            prompt_tokens: self.prompt_tokens,
            output_tokens: self.generated,
            constrained: self.matcher.is_some(),
            field_by_field: self.fields.is_some(),
            masked_steps: self.sampler.masked_steps,
            interventions: self.sampler.interventions,
            repeat_stops: self.repeats_stopped,
            forced_tokens: self.forced,
            reused_prompt_tokens: self.reused_tokens,
            grammar_warnings: self.warnings,
            prompt_time,
            generation_time,
            answer_decode_time: self.decode_time,
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
