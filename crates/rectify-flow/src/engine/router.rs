//! Where a unit goes when its output still has errors, or a validator failed it: pure
//! functions of its persisted counters and its limits (`on_invalid`,
//! `max_validation_attempts`), table-tested below. Past the repair agent (a
//! workflow's own rung) it is the loop's retry decision, [`rectify_loop::retry::next`], so a
//! workflow retries, and gives up, by the rule `rectify ask` follows. The effects (calls,
//! writes, commits) are `step.rs`'s.

use rectify_loop::retry::{self, Judged, Tries};

use crate::spec::OnInvalid;
use crate::store::StepRecord;

/// A unit's limits, from its `on_invalid` and the workflow's `max_attempts`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Revisions by the producer (with the problems as feedback).
    pub revise: u32,
    /// Runs of the repair agent.
    pub repair: u32,
    /// Whether the step names a repair agent.
    pub repairer: bool,
}

impl Limits {
    /// A step's limits: `revise` when given (0 when only a repair agent is named, else
    /// `max_attempts - 1`), `max` repair runs (default 3).
    pub(crate) fn of(on_invalid: &OnInvalid, max_attempts: u32) -> Limits {
        let revise = match (&on_invalid.repair, on_invalid.revise) {
            (_, Some(n)) => n,
            (Some(_), None) => 0,
            (None, None) => max_attempts.saturating_sub(1),
        };
        Limits {
            revise,
            repair: on_invalid.max.unwrap_or(3),
            repairer: on_invalid.repair.is_some(),
        }
    }
}

/// The next route of a unit whose output has errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Its repair agent fixes the failing files (then they are checked again).
    Repair,
    /// Its producer answers again with the problems.
    Revise,
    /// The producer refused twice in a row: escalate or fail, per `on_exhausted`.
    Refused,
    /// Nothing is left to try: escalate or fail, per `on_exhausted`.
    Exhausted,
}

/// What the latest check of a unit found, as far as the route is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Found {
    /// The step's output is its answer (never sent to the repair agent).
    pub answer: bool,
    /// Some output file fails (something a repair agent could fix).
    pub failing_files: bool,
    /// The producer refused this time.
    pub refused: bool,
    /// The producer refused the time before (read from the record's stored diagnostics).
    pub refused_before: bool,
}

/// Where a unit with errors goes: a repair agent first (files only: an answer is revised by
/// its producer, and only while some file fails), then the retry decision every answer
/// takes: a revision while revisions are left, the end on a second refusal in a row or when
/// none is.
pub(crate) fn after_errors(record: &StepRecord, limits: Limits, found: Found) -> Next {
    if limits.repairer && !found.answer && found.failing_files && record.repair_runs < limits.repair
    {
        return Next::Repair;
    }
    let tries = Tries {
        made: record.revisions + 1,
        allowed: limits.revise.saturating_add(1),
        refused_before: found.refused_before,
    };
    let judged = if found.refused {
        Judged::Refused
    } else {
        Judged::Invalid
    };
    match retry::next(tries, judged) {
        retry::Next::Retry => Next::Revise,
        retry::Next::Refused => Next::Refused,
        retry::Next::Accept | retry::Next::Exhausted { .. } => Next::Exhausted,
    }
}

/// Where a unit goes when a validator says FAIL: its producer runs again with the findings
/// while validation attempts are left (`max_validation_attempts`), else it is exhausted.
pub(crate) fn after_fail(record: &StepRecord, max_validation_attempts: u32) -> Next {
    if record.validations < max_validation_attempts {
        Next::Revise
    } else {
        Next::Exhausted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(repair_runs: u32, revisions: u32) -> StepRecord {
        StepRecord {
            repair_runs,
            revisions,
            ..StepRecord::default()
        }
    }

    #[test]
    fn the_route_after_a_fail_verdict_as_a_table() {
        // (validations so far, max_validation_attempts) → next
        let cases = [
            (0, 2, Next::Revise),
            (1, 2, Next::Revise),
            (2, 2, Next::Exhausted),
            (0, 0, Next::Exhausted),
            (3, 2, Next::Exhausted),
        ];
        for (validations, max, next) in cases {
            let record = StepRecord {
                validations,
                ..StepRecord::default()
            };
            assert_eq!(after_fail(&record, max), next, "{validations} of {max}");
        }
    }

    #[test]
    fn limits_follow_on_invalid() {
        let on = |repair: Option<&str>, max, revise| OnInvalid {
            repair: repair.map(str::to_owned),
            max,
            max_turns: None,
            revise,
        };
        let cases = [
            (on(None, None, None), 3, (2, 3, false)),
            (on(None, None, Some(5)), 3, (5, 3, false)),
            (on(Some("fixer"), None, None), 3, (0, 3, true)),
            (on(Some("fixer"), Some(1), Some(2)), 3, (2, 1, true)),
            (on(None, None, None), 0, (0, 3, false)),
        ];
        for (on_invalid, max_attempts, (revise, repair, repairer)) in cases {
            assert_eq!(
                Limits::of(&on_invalid, max_attempts),
                Limits {
                    revise,
                    repair,
                    repairer
                },
                "{on_invalid:?}, max_attempts {max_attempts}"
            );
        }
    }

    // Long (62 lines): one table, a row per case, reads better than the cases split apart.
    #[test]
    fn the_route_after_errors_as_a_table() {
        let both = Limits {
            revise: 1,
            repair: 2,
            repairer: true,
        };
        let revise_only = Limits {
            revise: 2,
            repair: 3,
            repairer: false,
        };
        let refusal = |refused_before| Found {
            answer: true,
            refused: true,
            refused_before,
            ..Found::default()
        };
        let found = |answer, failing_files| Found {
            answer,
            failing_files,
            ..Found::default()
        };
        // (repair runs, revisions, limits, what the check found) → next
        let cases = [
            (0, 0, both, found(false, true), Next::Repair),
            (1, 0, both, found(false, true), Next::Repair),
            (2, 0, both, found(false, true), Next::Revise),
            (2, 1, both, found(false, true), Next::Exhausted),
            // An answer is never sent to the repair agent.
            (0, 0, both, found(true, true), Next::Revise),
            // Nothing a repair agent could fix (an agent failure, confinement): revise.
            (0, 0, both, found(false, false), Next::Revise),
            (0, 0, revise_only, found(false, true), Next::Revise),
            (0, 1, revise_only, found(false, true), Next::Revise),
            (0, 2, revise_only, found(false, true), Next::Exhausted),
            // A refusal is revised once; a second one in a row ends the unit, revisions left
            // or not (the loop's rule).
            (0, 0, revise_only, refusal(false), Next::Revise),
            (0, 1, revise_only, refusal(true), Next::Refused),
            (0, 2, revise_only, refusal(true), Next::Refused),
            (0, 2, revise_only, refusal(false), Next::Exhausted),
            // A refusal after an invalid answer, or an invalid answer after a refusal: revised.
            (0, 1, revise_only, refusal(false), Next::Revise),
            (
                0,
                1,
                revise_only,
                Found {
                    refused_before: true,
                    ..found(true, false)
                },
                Next::Revise,
            ),
        ];
        for (runs, revisions, limits, found, next) in cases {
            assert_eq!(
                after_errors(&record(runs, revisions), limits, found),
                next,
                "repair runs {runs}, revisions {revisions}, {limits:?}, {found:?}"
            );
        }
    }
}
