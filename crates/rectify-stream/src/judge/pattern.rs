//! `pattern` on a string still arriving: the pattern, compiled to a DFA, is run over the
//! string's characters as they come; when the DFA can no longer reach a match, no
//! continuation of the string can match, and the answer is doomed.

use regex_automata::dfa::{Automaton, dense};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

/// The most memory a pattern's DFA may take; a bigger one is not judged early.
const DFA_LIMIT: usize = 1 << 20;

/// A `pattern` that can be judged on a prefix.
#[derive(Debug)]
pub(crate) struct PrefixPattern {
    /// The pattern as the schema writes it.
    pub(crate) source: String,
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl PrefixPattern {
    /// Compiles an ECMA-262 `pattern` the way the full check reads it (translated by
    /// `jsonschema-regex`, the full check's own translator); `None` when it uses what a DFA
    /// cannot run (look-around, back references, Unicode word boundaries) or is too big.
    pub(crate) fn compile(source: &str) -> Option<PrefixPattern> {
        let translated = jsonschema_regex::to_rust_regex(source).ok()?;
        let config = dense::Config::new()
            .match_kind(MatchKind::All)
            .dfa_size_limit(Some(DFA_LIMIT))
            .determinize_size_limit(Some(DFA_LIMIT));
        let dfa = dense::Builder::new()
            .configure(config)
            .build(&translated)
            .ok()?;
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::No))
            .ok()?;
        Some(PrefixPattern {
            source: source.to_owned(),
            dfa,
            start,
        })
    }
}

/// A pattern run over one string as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PatternRun {
    /// Where the string's opening quote is (which string this run is for).
    pub(crate) string: usize,
    /// How many bytes of the string's raw text have been fed.
    pub(crate) fed: usize,
    state: Outlook,
}

/// What the characters fed so far say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outlook {
    /// The DFA is in this state: a match may still come.
    Open(StateID),
    /// A match was seen (or the run cannot tell): nothing more to judge.
    Settled,
    /// No continuation can match.
    Doomed,
}

impl PatternRun {
    /// A run over the string whose quote is at `string`.
    pub(crate) fn new(pattern: &PrefixPattern, string: usize) -> PatternRun {
        PatternRun {
            string,
            fed: 0,
            state: Outlook::Open(pattern.start),
        }
    }

    /// Feeds the raw text of the string from `fed` to the end of `raw` (whole escapes
    /// only, as the reader hands them); true when the string can no longer match.
    pub(crate) fn feed(&mut self, pattern: &PrefixPattern, raw: &str) -> bool {
        let Some(new) = raw.get(self.fed..) else {
            return false;
        };
        self.fed = raw.len();
        let Outlook::Open(mut state) = self.state else {
            return self.state == Outlook::Doomed;
        };
        let Some(text) = decoded(new) else {
            self.state = Outlook::Settled;
            return false;
        };
        for &byte in text.as_bytes() {
            state = pattern.dfa.next_state(state, byte);
            self.state = outlook(&pattern.dfa, state);
            if self.state != Outlook::Open(state) {
                return self.state == Outlook::Doomed;
            }
        }
        false
    }
}

/// What a DFA state says of the text fed so far.
fn outlook(dfa: &dense::DFA<Vec<u32>>, state: StateID) -> Outlook {
    if dfa.is_match_state(state) || dfa.is_quit_state(state) {
        Outlook::Settled
    } else if dfa.is_dead_state(state) {
        Outlook::Doomed
    } else {
        Outlook::Open(state)
    }
}

/// The characters of a piece of a string's raw text that holds whole escapes only; `None`
/// when it cannot be read alone (half of a surrogate pair).
fn decoded(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !raw.contains('\\') {
        return Some(raw.into());
    }
    serde_json::from_str::<String>(&format!("\"{raw}\""))
        .ok()
        .map(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doomed_at(pattern: &str, pieces: &[&str]) -> Option<usize> {
        let pattern = PrefixPattern::compile(pattern).expect("compiles");
        let mut run = PatternRun::new(&pattern, 0);
        let mut raw = String::new();
        for (i, piece) in pieces.iter().enumerate() {
            raw.push_str(piece);
            if run.feed(&pattern, &raw) {
                return Some(i);
            }
        }
        None
    }

    #[test]
    fn an_anchored_pattern_is_doomed_once_no_continuation_can_match() {
        assert_eq!(doomed_at("^INV-[0-9]{4}$", &["IN", "V-12", "x"]), Some(2));
        assert_eq!(doomed_at("^INV-[0-9]{4}$", &["inv"]), Some(0));
        assert_eq!(doomed_at("^INV-[0-9]{4}$", &["INV-1", "234"]), None);
        // `\d` is ASCII digits in ECMA-262, as the full check reads it.
        assert_eq!(doomed_at("^\\d+$", &["12", "٣"]), Some(1));
        assert_eq!(doomed_at("^[a-z]+@", &["ab\\u00e9"]), Some(0));
    }

    #[test]
    fn an_unanchored_or_matched_pattern_is_never_doomed() {
        assert_eq!(doomed_at("[0-9]{4}", &["zzzz", "zz"]), None);
        assert_eq!(doomed_at("^ab", &["abX", "yyy"]), None);
        assert_eq!(doomed_at("^a|b", &["xx", "y"]), None);
    }

    #[test]
    fn what_a_dfa_cannot_run_is_not_judged_early() {
        assert!(PrefixPattern::compile("^(?=a)a").is_none());
        assert!(PrefixPattern::compile("^(a)\\1").is_none());
        assert!(PrefixPattern::compile("^[").is_none());
    }
}
