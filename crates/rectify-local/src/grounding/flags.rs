//! Booleans the request states: a boolean field whose name's words the request writes is
//! `true`, or `false` when a negation stands next to them (`terrace please` → `terrace:
//! true`; `no pets` → `pets_allowed: false`; `rather than have paid out` →
//! `holiday_paid_out: false`). A participle of the name (`charged`, `given`) counts only
//! where the request writes it (`No interest` → `interest_charged: false`).
//!
//! Measured on Gemma 3 270M (issue 16): left free, a boolean was read backwards as often as
//! not (`reproducible: false` for "happens every time", `terrace: false` for "terrace
//! please"). A field the request does not name stays free: the request may say it in other
//! words (`the kids come too` for `has_children`).

use super::words::{field_words, same_word};

/// Field words that only say the field is a yes/no question (`includes_breakfast`,
/// `pets_allowed`): the other words are what the request must name.
const QUESTION: &[&str] = &[
    "allowed",
    "are",
    "available",
    "can",
    "did",
    "does",
    "enabled",
    "include",
    "included",
    "includes",
    "need",
    "needed",
    "needs",
    "require",
    "required",
    "requires",
    "wants",
    "was",
    "were",
    "will",
];

/// Words that negate what follows them (or, for the second list, what precedes them).
const NEGATION_BEFORE: &[&str] = &[
    "no",
    "not",
    "without",
    "never",
    "none",
    "non",
    "nor",
    "neither",
    "excluding",
    "except",
    "cannot",
    "nothing",
];
const NEGATION_AFTER: &[&str] = &["not", "no", "excluded", "unavailable", "none"];

/// How many words before (and after) a mention a negation may stand.
const REACH_BEFORE: usize = 4;
const REACH_AFTER: usize = 4;

/// The value the request states for the boolean field `name`, if it names the field.
pub fn flag(name: &str, text: &str) -> Option<bool> {
    let (mut words, mut predicates): (Vec<String>, Vec<String>) = content_words(name)
        .into_iter()
        .partition(|w| !is_participle(w));
    if words.is_empty() {
        // `insured`, `covered`: the participle is all the name says.
        std::mem::swap(&mut words, &mut predicates);
    }
    if words.is_empty() {
        return None;
    }
    let tokens = tokens(text);
    let mut negated = false;
    for word in &words {
        negated |= !said(&tokens, word)?;
    }
    // `interest_charged` for "No interest": a participle says what is asked of the other
    // words; it counts where the request writes it and is not needed where it does not.
    for word in &predicates {
        negated |= said(&tokens, word) == Some(false);
    }
    Some(!negated)
}

/// Whether a field word is a participle that asks a yes/no question about the others
/// (`charged`, `given`, `offered`), not a thing the request must name.
fn is_participle(word: &str) -> bool {
    (word.len() > 4 && word.ends_with("ed")) || matches!(word, "given" | "taken" | "done")
}

/// The choices of an `enum` that the request speaks of by their words (`bank transfer` for
/// "paid into her bank account"), or, when it speaks of none that way, every choice but those
/// it negates ("not vouchers"); `None` when that leaves none or all of them.
pub fn choices(choices: &[String], text: &str) -> Option<Vec<String>> {
    let tokens = tokens(text);
    let stated = |choice: &String| -> Option<bool> {
        let said: Vec<bool> = content_words(choice)
            .iter()
            .filter_map(|w| said(&tokens, w))
            .collect();
        if said.is_empty() {
            None
        } else {
            Some(said.contains(&true))
        }
    };
    let named: Vec<String> = choices
        .iter()
        .filter(|c| stated(c) == Some(true))
        .cloned()
        .collect();
    let kept = if named.is_empty() {
        choices
            .iter()
            .filter(|c| stated(c) != Some(false))
            .cloned()
            .collect()
    } else {
        named
    };
    (!kept.is_empty() && kept.len() < choices.len()).then_some(kept)
}

/// The words of a field name or choice that say what it is about (without [`QUESTION`]
/// words and single letters).
fn content_words(name: &str) -> Vec<String> {
    field_words(name)
        .into_iter()
        .filter(|w| !QUESTION.contains(&w.as_str()) && w.len() > 1)
        .collect()
}

/// Whether the request says `word`: `Some(true)` when it is written at least once without a
/// negation next to it, `Some(false)` when only negated, `None` when not written.
fn said(tokens: &[Token], word: &str) -> Option<bool> {
    let at: Vec<usize> = (0..tokens.len())
        .filter(|&i| same_word(&tokens[i].word, word))
        .collect();
    if at.is_empty() {
        return None;
    }
    Some(at.iter().any(|&i| !negated_at(tokens, i)))
}

/// Whether a negation stands within reach of the word at `i`, in the same clause.
fn negated_at(tokens: &[Token], i: usize) -> bool {
    let clause = tokens[i].clause;
    let near = |t: &&Token| t.clause == clause;
    let start = i.saturating_sub(REACH_BEFORE);
    let before = &tokens[start..i];
    let after = &tokens[(i + 1).min(tokens.len())..(i + 1 + REACH_AFTER).min(tokens.len())];
    // `rather than have paid out`, `instead of a refund`.
    let contrasted = (start..i).any(|j| {
        tokens[j].clause == clause
            && j > 0
            && matches!(
                (tokens[j - 1].word.as_str(), tokens[j].word.as_str()),
                ("rather", "than") | ("instead", "of")
            )
    });
    contrasted
        || before
            .iter()
            .filter(near)
            .any(|t| NEGATION_BEFORE.contains(&t.word.as_str()) || t.word.ends_with("n't"))
        || after
            .iter()
            .filter(near)
            .any(|t| NEGATION_AFTER.contains(&t.word.as_str()))
}

/// A lowercased word of the request and the number of its clause (clauses end at `,`, `.`,
/// `;`, `:`, `!`, `?` and line breaks).
struct Token {
    word: String,
    clause: usize,
}

/// The words of `text` (apostrophes kept inside words: `don't`).
fn tokens(text: &str) -> Vec<Token> {
    let lower = text.to_lowercase().replace('’', "'");
    let mut out = Vec::new();
    for (clause, part) in lower
        .split([',', '.', ';', ':', '!', '?', '\n'])
        .enumerate()
    {
        for word in part.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
            let word = word.trim_matches('\'');
            if !word.is_empty() {
                out.push(Token {
                    word: word.to_owned(),
                    clause,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_field_is_true_and_a_negated_one_false() {
        let text = "Table for 6, terrace please, no pets, breakfast not included";
        assert_eq!(flag("terrace", text), Some(true));
        assert_eq!(flag("pets_allowed", text), Some(false));
        assert_eq!(flag("includes_breakfast", text), Some(false));
        assert_eq!(
            flag("isRefundable", "The ticket is non-refundable."),
            Some(false)
        );
        assert_eq!(flag("wheelchair", "I don't need a wheelchair"), Some(false));
        assert_eq!(
            flag("needs_accommodation", "and none of us needs accommodation"),
            Some(false)
        );
        assert_eq!(
            flag("has_driving_licence", "She has a driving licence."),
            Some(true)
        );
        assert_eq!(
            flag("interest_charged", "600 GBP. No interest, we're mates."),
            Some(false)
        );
        assert_eq!(
            flag("consent_given", "enrolled after written informed consent"),
            Some(true)
        );
        assert_eq!(
            flag("deposit_paid", "the deposit has not been paid yet"),
            Some(false)
        );
        assert_eq!(
            flag(
                "holiday_paid_out",
                "6 days of holiday, to take rather than have paid out"
            ),
            Some(false)
        );
        assert_eq!(
            flag(
                "electricity",
                "an electricity hook-up is not available here"
            ),
            Some(false)
        );
        assert_eq!(flag("covered", "so the repair is covered."), Some(true));
    }

    #[test]
    fn enum_choices_follow_the_words_the_request_uses() {
        let options = [
            "cheque".to_owned(),
            "bank transfer".to_owned(),
            "voucher".to_owned(),
        ];
        let text = "paid into her bank account within 14 days";
        assert_eq!(
            choices(&options, text),
            Some(vec!["bank transfer".to_owned()])
        );
        let text = "please send the money to my account, not vouchers";
        assert_eq!(
            choices(&options, text),
            Some(vec!["cheque".to_owned(), "bank transfer".to_owned()])
        );
        assert_eq!(choices(&options, "no idea"), None);
    }

    #[test]
    fn a_field_the_request_does_not_name_stays_free() {
        assert_eq!(flag("has_children", "the kids come too"), None);
        assert_eq!(flag("express_shipping", "standard shipping, 3 days"), None);
        assert_eq!(flag("is_allowed", "anything"), None);
    }
}
