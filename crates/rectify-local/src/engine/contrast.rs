//! Choosing a field's first value token by what the field's name adds: the model's liking
//! for a token under this field's key, against its liking for the same token under the keys
//! of the other fields still to write (pointwise mutual information between the key and the
//! token, with the request and the answer so far held fixed).
//!
//! Measured on Gemma 3 270M (issue 16): greedy decoding copies the request's first fitting
//! span into the first field that takes it (the town as the winery, the gym as the member,
//! the owner as the car); the model's preference for that span is much the same under every
//! key, so it cancels in the difference, and what is left is what the key says. The
//! difference only reorders the tokens the model nearly likes as much as its favourite
//! ([`Contrast::window`]), between phrases of the request (not where a phrase starts), so it
//! breaks near-ties and never picks a token the model finds unlikely. Scoring whole
//! candidates by their summed or mean log-probabilities had lost to greedy decoding (short
//! or long spans won); a difference at one token has no length to favour.
//!
//! The other keys' logits are combined by a soft maximum (log of the mean of the
//! exponentiated logits); on the tuning parts it beat the plain mean (which let the
//! unrelated fields outvote the one related field) and the maximum; weights 0.5 and 2 did
//! worse than 1. Only string fields are contrasted: for numbers the first token is one digit
//! (`3` of `3` and `33`), and contrasting them changed nothing.

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;

use super::LocalModel;
use crate::LocalError;

/// How far below the favourite token (in logits, i.e. nats) a token may be and still be
/// reordered by the contrast (measured on the tuning parts: 3 beat 5).
pub(crate) const WINDOW: f32 = 3.0;

/// The weight of a token's lift added to its logit (measured: 1 beat 0.5 and 2).
pub(crate) const WEIGHT: f32 = 1.0;

/// The sequence the contrasting prefixes are evaluated in (the answer is sequence 0).
const SEQ: i32 = 1;

/// A value about to start: the field's key and the keys to contrast it with, and the text
/// from a token boundary before the key to now, with the key cut out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Point {
    /// The field whose value starts.
    pub key: String,
    /// The other fields of the same kind still to write.
    pub others: Vec<String>,
    /// Index of the first output token the prefixes replace.
    pub from_token: usize,
    /// Output text from that token to the key's opening quote.
    pub head: String,
    /// Output text after the key's closing quote (`:` or `:"`).
    pub tail: String,
    /// The request's text the values come from.
    pub request: String,
}

impl Point {
    /// The output text from [`Point::from_token`] with `key` written as the key.
    pub fn text_with(&self, key: &str) -> String {
        let quoted = serde_json::to_string(key).unwrap_or_default();
        format!("{}{quoted}{}", self.head, self.tail)
    }
}

/// Logits of the next token under the field's own key and under each other key.
#[derive(Debug, Clone)]
pub(crate) struct Contrast {
    own: Vec<f32>,
    others: Vec<Vec<f32>>,
    /// The request's words.
    words: Vec<String>,
}

/// A contrast to apply at one step: its weight, and the text of a token.
pub(crate) struct Adjust<'a> {
    /// The lifts.
    pub contrast: &'a Contrast,
    /// The weight of a lift.
    pub weight: f32,
    /// The text of a token.
    pub piece: &'a dyn Fn(usize) -> String,
}

impl Contrast {
    /// Evaluates the prefixes of `point` after the prompt's `prompt_tokens` tokens.
    pub fn measure(
        model: &LocalModel,
        ctx: &mut LlamaContext<'_>,
        point: &Point,
        prompt_tokens: usize,
    ) -> Result<Self, LocalError> {
        let start = prompt_tokens + point.from_token;
        let own = next_logits(model, ctx, &point.text_with(&point.key), start)?;
        let others = point
            .others
            .iter()
            .map(|k| next_logits(model, ctx, &point.text_with(k), start))
            .collect::<Result<_, _>>()?;
        let words = point
            .request
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        Ok(Self { own, others, words })
    }

    /// How much the field's key raises `token` over the other keys: its logit under the own
    /// key minus the log of the mean of its exponentiated logits under the others (a soft
    /// maximum: another key that likes the token as much counts nearly in full, one that
    /// does not like it hardly at all).
    pub fn lift(&self, token: usize) -> f32 {
        let own = self.own.get(token).copied().unwrap_or(0.0);
        let others: Vec<f32> = self
            .others
            .iter()
            .map(|l| l.get(token).copied().unwrap_or(0.0))
            .collect();
        let top = others.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if others.is_empty() || top == f32::NEG_INFINITY {
            return 0.0;
        }
        let mean = others.iter().map(|x| (x - top).exp()).sum::<f32>() / others.len() as f32;
        own - (top + mean.ln())
    }

    /// Rewrites the `logits` of the allowed tokens (those not at minus infinity): tokens
    /// within [`WINDOW`] of the favourite gain their [`Contrast::lift`] times `weight`; the
    /// others are dropped. So are tokens that start the word right before or after the
    /// favourite's in the request (`March` of `14 March`, `desks` of `standing desks`), and
    /// the word after another such token's: the contrast chooses between the request's
    /// phrases, not where a phrase starts.
    pub fn window(
        &self,
        logits: &mut [(usize, f32)],
        weight: f32,
        piece: &dyn Fn(usize) -> String,
    ) {
        let Some(&(favourite, best)) = logits
            .iter()
            .filter(|(_, l)| *l > f32::NEG_INFINITY)
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            return;
        };
        let inside: Vec<(usize, String)> = logits
            .iter()
            .filter(|(_, l)| *l >= best - WINDOW)
            .map(|&(t, _)| (t, piece(t)))
            .collect();
        let first = piece(favourite);
        let kept: Vec<usize> = inside
            .iter()
            .filter(|(t, p)| {
                *t == favourite
                    || !(self.same_phrase(&first, p)
                        || inside
                            .iter()
                            .any(|(u, q)| u != t && follows(&self.words, q, p)))
            })
            .map(|(t, _)| *t)
            .collect();
        for (token, logit) in logits.iter_mut() {
            if kept.contains(token) {
                *logit += weight * self.lift(*token);
            } else {
                *logit = f32::NEG_INFINITY;
            }
        }
    }
}

impl Contrast {
    /// Whether the token texts `a` and `b` start neighbouring words of one phrase of the
    /// request, in either order.
    fn same_phrase(&self, a: &str, b: &str) -> bool {
        follows(&self.words, a, b) || follows(&self.words, b, a)
    }
}

/// Whether a word of `words` that starts with the token text `first` is followed, within
/// its phrase (no punctuation after it), by a word that starts with the token text `second`.
fn follows(words: &[String], first: &str, second: &str) -> bool {
    let bare = |piece: &str| {
        piece
            .trim_start_matches(|c: char| c == '"' || c.is_whitespace())
            .to_owned()
    };
    let (first, second) = (bare(first), bare(second));
    if first.is_empty() || second.is_empty() {
        return false;
    }
    let open: &[char] = &['"', '\'', '(', '[', '‘', '“'];
    words.windows(2).any(|pair| {
        let next = pair[1].trim_start_matches(open);
        pair[0].trim_start_matches(open).starts_with(&first)
            && !pair[0].ends_with([',', '.', ';', ':', '!', '?', ')', '"', '\''])
            && next.starts_with(&second)
    })
}

/// Frees the cache cells of the contrast sequence (after a failed measure, so that the
/// answer's sequence keeps its room).
pub(crate) fn reset(ctx: &mut LlamaContext<'_>) {
    // Clearing a sequence only fails for an invalid sequence id; this one is valid.
    let _ = ctx.clear_kv_cache_seq(Some(SEQ.cast_unsigned()), None, None);
}

/// The logits after `text` (tokenized on its own) written in the contrast sequence from
/// position `start`, over the answer's cache before it; the contrast sequence is cleared
/// afterwards.
fn next_logits(
    model: &LocalModel,
    ctx: &mut LlamaContext<'_>,
    text: &str,
    start: usize,
) -> Result<Vec<f32>, LocalError> {
    let tokens = model.model.vocab().tokenize(text.as_bytes(), false, false);
    let at = u32::try_from(start).map_err(|e| super::generate::inference(&e))?;
    ctx.clear_kv_cache_seq(Some(SEQ.cast_unsigned()), None, None)
        .map_err(|e| super::generate::inference(&e))?;
    ctx.copy_kv_cache_seq(0, SEQ, None, Some(at))
        .map_err(|e| super::generate::inference(&e))?;
    let mut batch = LlamaBatch::new(tokens.len().max(1), 1);
    let last = tokens.len().saturating_sub(1);
    for (offset, &token) in tokens.iter().enumerate() {
        let pos = i32::try_from(start + offset).map_err(|e| super::generate::inference(&e))?;
        batch
            .add(token, pos, &[SEQ], offset == last)
            .map_err(|e| super::generate::inference(&e))?;
    }
    ctx.decode(&mut batch)
        .map_err(|e| super::generate::inference(&e))?;
    let index = i32::try_from(last).map_err(|e| super::generate::inference(&e))?;
    let logits = ctx.get_logits_ith(index).to_vec();
    ctx.clear_kv_cache_seq(Some(SEQ.cast_unsigned()), None, None)
        .map_err(|e| super::generate::inference(&e))?;
    Ok(logits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_s_lift_reorders_near_ties_only() {
        let contrast = Contrast {
            own: vec![5.0, 5.0, 5.0, 5.0],
            others: vec![vec![6.0, 3.0, 0.0, 0.0], vec![6.0, 3.0, 0.0, 0.0]],
            words: "on 14 March, Mia".split(' ').map(str::to_owned).collect(),
        };
        assert!((contrast.lift(1) - 2.0).abs() < 1e-6);
        let uneven = Contrast {
            own: vec![5.0],
            others: vec![vec![5.0], vec![-50.0]],
            words: Vec::new(),
        };
        // One other key of two likes the token as much: a lift of ln 2 only (the mean, 27.5
        // below, would give 32.5).
        assert!((uneven.lift(0) - std::f32::consts::LN_2).abs() < 1e-4);
        let pieces = ["14", "Mia", "x", "March"];
        let piece = |t: usize| pieces[t].to_owned();
        let mut logits = vec![(0, 10.0), (1, 9.0), (2, 1.0), (3, 9.5)];
        contrast.window(&mut logits, 1.0, &piece);
        assert_eq!(logits[0], (0, 9.0));
        assert_eq!(logits[1], (1, 11.0));
        assert!(logits[2].1.is_infinite());
        assert!(logits[3].1.is_infinite());
        let words: Vec<String> = ["The", "Salt", "Road,", "Mia"].map(str::to_owned).to_vec();
        assert!(follows(&words, "\"The", "Sal"));
        assert!(!follows(&words, "Road", "Mia"));
        let point = Point {
            key: "a".to_owned(),
            others: vec![],
            from_token: 0,
            head: ",".to_owned(),
            tail: ":\"".to_owned(),
            request: String::new(),
        };
        assert_eq!(point.text_with("b"), ",\"b\":\"");
    }
}
