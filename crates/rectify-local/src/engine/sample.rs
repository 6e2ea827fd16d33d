//! One sampling step: logits → (grammar mask) → temperature/greedy → token.

use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llguidance::Matcher;

use super::contrast::Adjust;

/// Picks tokens from logits, under an optional grammar, and counts what the grammar did.
pub(crate) struct Sampler {
    chain: LlamaSampler,
    candidates: LlamaTokenDataArray,
    /// Steps sampled under the grammar mask.
    pub masked_steps: u32,
    /// Steps where the model's unconstrained favourite token was forbidden by the grammar.
    pub interventions: u32,
}

/// What the sampler picked.
pub(crate) enum Pick {
    /// A token.
    Token(LlamaToken),
    /// The grammar allows nothing more (finished or failed), with the matcher's error if any.
    GrammarDone(Option<String>),
}

impl Sampler {
    /// Greedy at temperature 0 (or below), else temperature then a seeded draw.
    pub fn new(temperature: f32, seed: u32) -> Self {
        let chain = if temperature <= 0.0 {
            LlamaSampler::greedy()
        } else {
            LlamaSampler::chain_simple([
                LlamaSampler::top_k(64),
                LlamaSampler::top_p(0.95, 1),
                LlamaSampler::temp(temperature),
                LlamaSampler::dist(seed),
            ])
        };
        Self {
            chain,
            candidates: LlamaTokenDataArray::new(Vec::new(), false),
            masked_steps: 0,
            interventions: 0,
        }
    }

    /// Picks the next token from `logits`, masked by `matcher` when given; under a matcher,
    /// the `forbidden` tokens too unless that would leave nothing to pick; then the allowed
    /// tokens reordered by `adjust` (see [`super::contrast::Contrast::window`]).
    pub fn pick(
        &mut self,
        logits: &[f32],
        matcher: Option<&mut Matcher>,
        forbidden: &[u32],
        adjust: Option<&Adjust<'_>>,
    ) -> Pick {
        self.fill(logits);
        if let Some(matcher) = matcher {
            if let Some(done) = self.apply_mask(logits, matcher) {
                return done;
            }
            self.forbid(forbidden);
        }
        if let Some(adjust) = adjust {
            self.adjust(adjust);
        }
        self.candidates.apply_sampler(&mut self.chain);
        match self.candidates.selected_token() {
            Some(token) => Pick::Token(token),
            None => Pick::GrammarDone(Some("the sampler selected no token".to_owned())),
        }
    }

    fn fill(&mut self, logits: &[f32]) {
        let data = &mut self.candidates.data;
        data.clear();
        data.extend(logits.iter().enumerate().map(|(id, &logit)| {
            LlamaTokenData::new(
                LlamaToken(i32::try_from(id).unwrap_or(i32::MAX)),
                logit,
                0.0,
            )
        }));
        self.candidates.selected = None;
        self.candidates.sorted = false;
    }

    fn apply_mask(&mut self, logits: &[f32], matcher: &mut Matcher) -> Option<Pick> {
        if matcher.is_stopped() {
            return Some(Pick::GrammarDone(matcher.get_error()));
        }
        let mask = match matcher.compute_mask_or_eos() {
            Ok(mask) => mask,
            Err(error) => return Some(Pick::GrammarDone(Some(error.to_string()))),
        };
        if mask.is_zero() {
            return Some(Pick::GrammarDone(matcher.get_error()));
        }
        let allowed = |id: usize| id < mask.len() && mask.get(id);
        self.masked_steps += 1;
        if !allowed(argmax(logits)) {
            self.interventions += 1;
        }
        for (id, item) in self.candidates.data.iter_mut().enumerate() {
            if !allowed(id) {
                item.set_logit(f32::NEG_INFINITY);
            }
        }
        None
    }
}

impl Sampler {
    /// Rewrites the candidates' logits by a contrast ([`super::contrast::Contrast::window`]).
    fn adjust(&mut self, adjust: &Adjust<'_>) {
        let mut pairs: Vec<(usize, f32)> = self
            .candidates
            .data
            .iter()
            .enumerate()
            .map(|(id, item)| (id, item.logit()))
            .collect();
        adjust
            .contrast
            .window(&mut pairs, adjust.weight, adjust.piece);
        for (item, (_, logit)) in self.candidates.data.iter_mut().zip(pairs) {
            item.set_logit(logit);
        }
    }

    /// Masks `tokens` out, unless no other token is left.
    fn forbid(&mut self, tokens: &[u32]) {
        let data = &mut self.candidates.data;
        let mut saved = Vec::new();
        for &token in tokens {
            let Some(item) = usize::try_from(token).ok().and_then(|i| data.get_mut(i)) else {
                continue;
            };
            if item.logit() > f32::NEG_INFINITY {
                saved.push((item.id(), item.logit()));
                item.set_logit(f32::NEG_INFINITY);
            }
        }
        if !saved.is_empty() && data.iter().all(|c| c.logit() == f32::NEG_INFINITY) {
            for (id, logit) in saved {
                if let Some(item) = usize::try_from(id.0).ok().and_then(|i| data.get_mut(i)) {
                    item.set_logit(logit);
                }
            }
        }
    }
}

fn argmax(logits: &[f32]) -> usize {
    logits
        .iter()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |best, (i, &l)| {
            if l > best.1 { (i, l) } else { best }
        })
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn greedy_pick(sampler: &mut Sampler) -> i32 {
        sampler.candidates.apply_sampler(&mut sampler.chain);
        sampler.candidates.selected_token().map_or(-1, |t| t.0)
    }

    #[test]
    fn forbidden_tokens_are_masked_unless_nothing_else_is_left() {
        let mut sampler = Sampler::new(0.0, 0);
        sampler.fill(&[1.0, 2.0, 3.0]);
        sampler.forbid(&[2, 99]);
        assert_eq!(greedy_pick(&mut sampler), 1);
        sampler.fill(&[f32::NEG_INFINITY, f32::NEG_INFINITY, 3.0]);
        sampler.forbid(&[2]);
        assert_eq!(greedy_pick(&mut sampler), 2);
    }
}
