//! Redacting text that arrives in pieces: a key split between two pieces is never given out,
//! not even its first bytes.

use super::{ApiKey, MIN_SECRET_LEN, secret_variables};

/// Redacts secrets from text that arrives in pieces, as [`redact_secrets`](crate::redact_secrets)
/// redacts a whole text.
///
/// Each piece given out is safe: the end of the text that could still become a secret (a
/// proper prefix of one) is held until the next piece says whether it does. For secrets
/// `s₁ … sₙ` and any cutting of a text `T` into pieces, the output after each piece is a
/// prefix of `R(T)`, where `R` replaces every `s₁` with `***`, then every `s₂`, … (what
/// [`redact_secret`](crate::redact_secret) does in turn); after [`Redactor::finish`] it is all
/// of `R(T)`. So no byte of a secret `T` holds is ever given out, and at most
/// `Σ (len(sᵢ) − 1)` bytes are held at any time.
///
/// ```
/// use rectify_provider::Redactor;
///
/// let mut redactor = Redactor::new(["sk-secret-key"]);
/// assert_eq!(redactor.push("key=sk-sec"), "key=");
/// assert_eq!(redactor.push("ret-key, key=sk"), "***, key=");
/// assert_eq!(redactor.push("y"), "sky");
/// assert_eq!(redactor.finish(), "");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    stages: Vec<Stage>,
}

/// One secret's redaction; the stages run one after another, as the whole-text redaction does.
#[derive(Clone)]
struct Stage {
    secret: String,
    /// Text not given out yet: a proper prefix of the secret.
    held: String,
}

impl std::fmt::Debug for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stage(***, held {} bytes)", self.held.len())
    }
}

impl Redactor {
    /// A redactor of `secrets`, in this order; those too short to redact safely are left out
    /// (as [`redact_secret`](crate::redact_secret) leaves them).
    pub fn new(secrets: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let stages = secrets
            .into_iter()
            .map(Into::into)
            .filter(|s| s.len() >= MIN_SECRET_LEN)
            .map(|secret| Stage {
                secret,
                held: String::new(),
            })
            .collect();
        Self { stages }
    }

    /// A redactor of the keys [`redact_secrets`](crate::redact_secrets) redacts: the values of
    /// the variables of [`secret_variables`] set in this process.
    pub fn from_env() -> Self {
        let keys = secret_variables()
            .iter()
            .filter_map(|name| ApiKey::from_env(name))
            .map(|key| key.expose().to_owned())
            .collect::<Vec<_>>();
        Self::new(keys)
    }

    /// The redacted text that `text` makes safe to give out.
    pub fn push(&mut self, text: &str) -> String {
        let mut text = text.to_owned();
        for stage in &mut self.stages {
            if text.is_empty() {
                break;
            }
            text = stage.push(&text);
        }
        text
    }

    /// The rest of the redacted text once no more comes.
    pub fn finish(&mut self) -> String {
        let mut text = String::new();
        for stage in &mut self.stages {
            text = stage.push(&text);
            text.push_str(&std::mem::take(&mut stage.held));
        }
        text
    }

    /// How many bytes are held.
    pub fn held(&self) -> usize {
        self.stages.iter().map(|s| s.held.len()).sum()
    }
}

impl Stage {
    /// Every whole occurrence redacted (left to right, as `str::replace` finds them), up to
    /// the longest end that is a proper prefix of the secret, which is held.
    fn push(&mut self, text: &str) -> String {
        self.held.push_str(text);
        let after_last = self
            .held
            .match_indices(self.secret.as_str())
            .last()
            .map_or(0, |(at, found)| at + found.len());
        let cut = held_from(&self.held, after_last, &self.secret);
        let rest = self.held.split_off(cut);
        let out = self.held.replace(self.secret.as_str(), "***");
        self.held = rest;
        out
    }
}

/// Where the longest end of `text`, starting at `from` or later, that is a proper prefix of
/// `secret` starts (`text.len()` when there is none).
fn held_from(text: &str, from: usize, secret: &str) -> usize {
    let start = from.max(text.len().saturating_sub(secret.len() - 1));
    (start..text.len())
        .filter(|&at| text.is_char_boundary(at))
        .find(|&at| secret.as_bytes().starts_with(&text.as_bytes()[at..]))
        .unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact_secret;
    use proptest::prelude::*;

    /// What the whole-text redaction gives: each secret replaced in turn.
    fn redact_all(text: &str, secrets: &[&str]) -> String {
        secrets
            .iter()
            .fold(text.to_owned(), |text, secret| redact_secret(&text, secret))
    }

    const SECRETS: [&str; 3] = ["sk-abcab-1", "ababab", "key-€-é"];

    /// Texts made of secrets, their prefixes and overlaps, and other text.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            proptest::sample::select(SECRETS.to_vec()).prop_map(str::to_owned),
            (proptest::sample::select(SECRETS.to_vec()), 1usize..9).prop_map(|(s, n)| {
                let n = (0..=n.min(s.len())).rev().find(|&n| s.is_char_boundary(n));
                s[..n.unwrap_or(0)].to_owned()
            }),
            "[a-z* €-]{0,5}",
        ];
        proptest::collection::vec(piece, 0..10).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        /// However the text is cut: what has been given out after each piece is a prefix of the
        /// redacted whole (so no part of a secret is ever given out), at most
        /// `Σ (len(secret) − 1)` bytes are held, and after `finish` all of the redacted whole
        /// has been given out.
        #[test]
        fn any_cutting_gives_out_only_prefixes_of_the_redacted_whole(
            text in text(),
            mut cuts in proptest::collection::vec(0usize..80, 0..12),
        ) {
            let whole = redact_all(&text, &SECRETS);
            let bound: usize = SECRETS.iter().map(|s| s.len() - 1).sum();
            cuts.sort_unstable();
            let mut redactor = Redactor::new(SECRETS);
            let mut out = String::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain(std::iter::once(text.len())) {
                let to = (cut.max(from)..=text.len()).find(|&at| text.is_char_boundary(at));
                let to = to.unwrap_or(text.len());
                out.push_str(&redactor.push(&text[from..to]));
                prop_assert!(whole.starts_with(&out), "gave out {:?} of {:?}", out, whole);
                prop_assert!(redactor.held() <= bound);
                from = to;
            }
            out.push_str(&redactor.finish());
            prop_assert_eq!(out, whole);
        }
    }

    #[test]
    fn a_key_split_over_reads_is_redacted_and_never_given_out_in_part() {
        let mut redactor = Redactor::new(["sk-secret-key"]);
        let mut out = Vec::new();
        for piece in ["answer: sk-", "sec", "ret-k", "ey and sk-s", "ecre", "t!"] {
            out.push(redactor.push(piece));
        }
        out.push(redactor.finish());
        assert_eq!(out, ["answer: ", "", "", "*** and ", "", "sk-secret!", ""]);
    }

    #[test]
    fn short_secrets_are_left_alone_and_nothing_is_held_without_secrets() {
        let mut redactor = Redactor::new(["abc", ""]);
        assert_eq!(redactor.push("abcab"), "abcab");
        assert_eq!(redactor.held(), 0);
    }
}
