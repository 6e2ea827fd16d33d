//! The whole story of a run, from the store: every step with its attempts (the raw answers),
//! the diagnostics each attempt was sent back for, repairs, verdicts, warnings, tokens, cost
//! and timings, the files kept, and what the run waits for. `rectify report` prints it as JSON
//! or renders it as a page.

use serde::Serialize;

use crate::store::{
    CallRecord, EventRecord, LinkRecord, RunRecord, StepRecord, Store, StoreError, WaitRecord,
};

/// A run's report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The run (workflow, status, inputs, times).
    pub run: RunRecord,
    /// Totals over the run.
    pub totals: Totals,
    /// The steps (and `foreach` items) in the order they were first written.
    pub steps: Vec<StepReport>,
    /// What the run waits for.
    pub waits: Vec<WaitRecord>,
}

/// Totals over a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Steps and items.
    pub steps: usize,
    /// Recorded model, agent and validator calls.
    pub calls: usize,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost, when the providers report prices.
    pub cost: Option<f64>,
    /// From the first step's start to the last step's end (ms).
    pub duration_ms: i64,
}

/// One step's part of the report.
#[derive(Clone, Debug, Serialize)]
pub struct StepReport {
    /// The step's row: status, counters, verdict, warnings, diagnostics, usage, output, times.
    #[serde(flatten)]
    pub record: StepRecord,
    /// Its calls in order: producer attempts, repair agents, validators, with raw answers.
    pub calls: Vec<CallRecord>,
    /// Its events in order, with the diagnostics each attempt was sent back for.
    pub events: Vec<EventRecord>,
    /// The files kept for it (as written, before repair, repaired, edited by a person).
    pub files: Vec<LinkRecord>,
}

impl Report {
    /// Reads the report of `run`; `None` when the store has no such run.
    pub fn load(store: &Store, run: &str) -> Result<Option<Report>, StoreError> {
        let Some(record) = store.run(run)? else {
            return Ok(None);
        };
        let mut calls = store.calls(run)?;
        let mut events = store.events(run)?;
        let mut links = store.links(run)?;
        let steps: Vec<StepReport> = store
            .steps(run)?
            .into_iter()
            .map(|s| StepReport {
                calls: take_where(&mut calls, |c| c.step == s.id),
                events: take_where(&mut events, |e| e.step == s.id),
                files: take_where(&mut links, |l| l.step == s.id),
                record: s,
            })
            .collect();
        let totals = totals(&steps);
        Ok(Some(Report {
            run: record,
            totals,
            steps,
            waits: store.waits(run)?,
        }))
    }
}

/// Moves the items matching `keep` out of `items`, in order.
fn take_where<T>(items: &mut Vec<T>, keep: impl Fn(&T) -> bool) -> Vec<T> {
    let (taken, rest): (Vec<T>, Vec<T>) = std::mem::take(items).into_iter().partition(keep);
    *items = rest;
    taken
}

fn totals(steps: &[StepReport]) -> Totals {
    let start = steps.iter().filter_map(|s| s.record.started_ms).min();
    let end = steps
        .iter()
        .filter_map(|s| s.record.ended_ms.or(s.record.started_ms))
        .max();
    let costs: Vec<f64> = steps.iter().filter_map(|s| s.record.cost).collect();
    Totals {
        steps: steps.len(),
        calls: steps.iter().map(|s| s.calls.len()).sum(),
        input_tokens: steps.iter().map(|s| s.record.input_tokens).sum(),
        output_tokens: steps.iter().map(|s| s.record.output_tokens).sum(),
        cost: (!costs.is_empty()).then(|| costs.iter().sum()),
        duration_ms: match (start, end) {
            (Some(s), Some(e)) => (e - s).max(0),
            _ => 0,
        },
    }
}
