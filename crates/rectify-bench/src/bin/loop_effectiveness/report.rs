//! Counting runs per mode and rendering the results table.

use std::fmt::Write as _;

use rectify_loop::{FeedbackMode, Outcome, Task};
use rectify_provider::{FinishReason, Usage};
use serde_json::{Value, json};

use crate::MODES;
use crate::cases::Case;
use crate::grounding;

/// A way of asking, as reported in the table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// (a) one unconstrained attempt, strict JSON, no repair.
    Single,
    /// (b) one unconstrained attempt plus deterministic repair.
    Repair,
    /// (c) unconstrained, repair and feedback, up to 3 attempts.
    Retries,
    /// (d) one constrained attempt (with repair, which it rarely needs).
    ConstrainedFirst,
    /// (d) constrained, up to 3 attempts.
    Constrained,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Single => "(a) unconstrained, 1 attempt, no repair",
            Mode::Repair => "(b) + deterministic repair",
            Mode::Retries => "(c) + feedback retries (≤3 attempts)",
            Mode::ConstrainedFirst => "(d) constrained, 1 attempt",
            Mode::Constrained => "(d) constrained, ≤3 attempts",
        }
    }

    fn index(self) -> usize {
        MODES.iter().position(|m| *m == self).unwrap_or(0)
    }
}

/// Per-mode counts for one temperature.
#[derive(Default, Clone, Copy)]
struct Counts {
    valid: usize,
    calls: u64,
    tokens: u64,
}

/// Results of one temperature.
pub struct Tally {
    temperature: f64,
    counts: [Counts; 5],
    /// Runs whose first answer was invalid as received but valid after repair.
    saved_by_repair: usize,
    /// First unconstrained answers cut by the token budget.
    truncated: usize,
    /// Tokens of the first unconstrained attempt, summed (the single-attempt baseline).
    single_tokens: u64,
    /// Leaf values of valid constrained extraction answers found in the prompt, and all.
    grounded: (usize, usize),
}

impl Tally {
    pub fn new(temperature: f64) -> Self {
        Self {
            temperature,
            counts: [Counts::default(); 5],
            saved_by_repair: 0,
            truncated: 0,
            single_tokens: 0,
            grounded: (0, 0),
        }
    }

    /// Counts one prompt's two runs; returns the JSON line for the log.
    pub fn record(
        &mut self,
        case: &Case,
        task: &Task,
        free: &Outcome<Value>,
        fixed: &Outcome<Value>,
    ) -> Value {
        let first = free.ledger().attempts.first();
        let single_usage = first.map_or(Usage::default(), |a| a.usage);
        let strict = first.is_some_and(|a| strictly_valid(task, &a.raw));
        let repaired = first.is_some_and(|a| a.report.valid);
        let fixed_first = fixed
            .ledger()
            .attempts
            .first()
            .is_some_and(|a| a.report.valid);
        self.single_tokens += single_usage.total();
        self.truncated +=
            usize::from(first.is_some_and(|a| a.finish_reason == FinishReason::Length));
        self.saved_by_repair += usize::from(repaired && !strict);
        self.add(Mode::Single, strict, 1, single_usage.total());
        self.add(Mode::Repair, repaired, 1, single_usage.total());
        let free_totals = &free.ledger().totals;
        self.add(
            Mode::Retries,
            free.is_valid(),
            free_totals.attempts.into(),
            free_totals.usage.total(),
        );
        let fixed_usage = fixed
            .ledger()
            .attempts
            .first()
            .map_or(Usage::default(), |a| a.usage);
        self.add(Mode::ConstrainedFirst, fixed_first, 1, fixed_usage.total());
        if case.kind == "extraction"
            && let Some(value) = fixed.value()
        {
            let (hit, all) = grounding::grounded(case.prompt(), value);
            self.grounded.0 += hit;
            self.grounded.1 += all;
        }
        let fixed_totals = &fixed.ledger().totals;
        self.add(
            Mode::Constrained,
            fixed.is_valid(),
            fixed_totals.attempts.into(),
            fixed_totals.usage.total(),
        );
        json!({
            "id": case.id, "kind": case.kind, "temperature": self.temperature,
            "unconstrained": {"strict_first": strict, "repaired_first": repaired,
                "valid": free.is_valid(), "attempts": free_totals.attempts,
                "tokens": free_totals.usage.total(), "ledger": free.ledger()},
            "constrained": {"valid_first": fixed_first, "valid": fixed.is_valid(),
                "attempts": fixed_totals.attempts, "tokens": fixed_totals.usage.total(),
                "ledger": fixed.ledger()},
        })
    }

    fn add(&mut self, mode: Mode, valid: bool, calls: u64, tokens: u64) {
        if let Some(counts) = self.counts.get_mut(mode.index()) {
            counts.valid += usize::from(valid);
            counts.calls += calls;
            counts.tokens += tokens;
        }
    }
}

/// The raw answer parses as strict JSON and passes every check, with no repair.
fn strictly_valid(task: &Task, raw: &str) -> bool {
    serde_json::from_str::<Value>(raw.trim())
        .is_ok_and(|value| task.check_value(&value).iter().all(|d| !d.is_error()))
}

/// The Markdown table of all temperatures.
pub fn markdown(tallies: &[Tally], prompts: usize, feedback: FeedbackMode) -> String {
    let mut out = format!(
        "{prompts} prompts, feedback mode `{feedback}`, 400-token budget per answer.\n\n\
         | temperature | mode | valid | calls per valid | tokens per valid | tokens vs. 1 attempt |\n\
         |---|---|---|---|---|---|\n"
    );
    for tally in tallies {
        for mode in MODES {
            let Some(c) = tally.counts.get(mode.index()) else {
                continue;
            };
            let per_valid = |x: u64| {
                if c.valid == 0 {
                    "–".to_owned()
                } else {
                    format!("{:.2}", x as f64 / c.valid as f64)
                }
            };
            let ratio = if tally.single_tokens == 0 {
                0.0
            } else {
                c.tokens as f64 / tally.single_tokens as f64
            };
            let _ = writeln!(
                out,
                "| {} | {} | {}/{prompts} ({:.0}%) | {} | {} | {ratio:.2}× |",
                tally.temperature,
                mode.label(),
                c.valid,
                100.0 * c.valid as f64 / prompts.max(1) as f64,
                per_valid(c.calls),
                per_valid(c.tokens).split('.').next().unwrap_or("–"),
            );
        }
    }
    for tally in tallies {
        let _ = writeln!(
            out,
            "\nT={}: repair made {} first answers valid without a re-ask; {} first unconstrained answers hit the token budget; {} of {} values in valid constrained extraction answers appear in the prompt ({:.0}%).",
            tally.temperature,
            tally.saved_by_repair,
            tally.truncated,
            tally.grounded.0,
            tally.grounded.1,
            100.0 * tally.grounded.0 as f64 / tally.grounded.1.max(1) as f64
        );
    }
    out
}
