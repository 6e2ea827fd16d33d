//! The retry decision: what comes after a judged answer, as one pure function of the attempts
//! made, the attempts allowed and the judgement. The loop ([`Engine`](crate::Engine), its
//! attempts in memory) and every workflow unit (its counters in the store) both ask it, so an
//! answer is retried, accepted or given up on by the same rule wherever it came from
//! (docs/architecture.md, "What is decided where").

/// What the judge made of the latest answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// It passed every check.
    Valid,
    /// It has errors (feedback for the next attempt).
    Invalid,
    /// The model refused to answer.
    Refused,
}

/// The attempts behind a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tries {
    /// Answers made so far, the one just judged included.
    pub made: u32,
    /// Answers allowed in all (at least one is always made).
    pub allowed: u32,
    /// Whether the answer before the one just judged was a refusal.
    pub refused_before: bool,
}

/// What comes after a judged answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The answer is taken.
    Accept,
    /// Ask again, with the problems (or the refusal) as feedback.
    Retry,
    /// The model refused twice in a row: the run ends refused, whatever attempts are left
    /// (a third ask would only pay for a third refusal).
    Refused,
    /// No attempt is left. `refused`: the last answer was a refusal, so the run ends refused
    /// rather than exhausted when nothing else (a fallback provider) takes over.
    Exhausted {
        /// The last answer was a refusal.
        refused: bool,
    },
}

/// The next move after an answer judged `judged`, given `tries`.
///
/// A valid answer is accepted; a refusal right after a refusal ends the run; any other
/// failure is retried while attempts are left, and exhausts the run when none is.
pub fn next(tries: Tries, judged: Judged) -> Next {
    let refused = judged == Judged::Refused;
    match judged {
        Judged::Valid => Next::Accept,
        Judged::Refused if tries.refused_before => Next::Refused,
        _ if tries.made < tries.allowed.max(1) => Next::Retry,
        _ => Next::Exhausted { refused },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decision_as_a_table() {
        let tries = |made, allowed, refused_before| Tries {
            made,
            allowed,
            refused_before,
        };
        let exhausted = Next::Exhausted { refused: false };
        // (made, allowed, refused before, judged) → next
        let cases = [
            (1, 3, false, Judged::Valid, Next::Accept),
            (3, 3, true, Judged::Valid, Next::Accept),
            (1, 3, false, Judged::Invalid, Next::Retry),
            (2, 3, true, Judged::Invalid, Next::Retry),
            (3, 3, false, Judged::Invalid, exhausted),
            (1, 3, false, Judged::Refused, Next::Retry),
            (2, 3, true, Judged::Refused, Next::Refused),
            (
                3,
                3,
                false,
                Judged::Refused,
                Next::Exhausted { refused: true },
            ),
            // A refusal after a refusal ends the run even on the last attempt.
            (3, 3, true, Judged::Refused, Next::Refused),
            // One attempt is always allowed; none is ever retried past its limit.
            (1, 0, false, Judged::Invalid, exhausted),
            (1, 1, false, Judged::Invalid, exhausted),
            (5, 3, false, Judged::Invalid, exhausted),
        ];
        for (made, allowed, before, judged, want) in cases {
            assert_eq!(
                next(tries(made, allowed, before), judged),
                want,
                "made {made} of {allowed}, refused before {before}, {judged:?}"
            );
        }
    }
}
