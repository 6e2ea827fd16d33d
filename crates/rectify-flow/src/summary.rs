//! The run summary: what `rectify run`, `resume` and `status RUN` print with `--output json`
//! (docs/architecture.md, "Wire formats and exit codes").

use rectify_core::Diagnostic;
use serde::{Deserialize, Serialize};

use crate::store::{RunStatus, StepStatus, Store, StoreError, WaitRecord};

/// A run as the CLI reports it (and as a Restate endpoint returns it to `rectify run --on`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSummary {
    /// The run id.
    pub run_id: String,
    /// The workflow's name.
    pub workflow: String,
    /// `completed`, `waiting`, `failed`, `running` or `interrupted` (the rules are on
    /// [`RunStatus`]; a `running` run whose process is gone reads as `interrupted`).
    pub status: RunStatus,
    /// What the run waits for (the first open wait), when it waits.
    pub waiting: Option<Waiting>,
    /// Every open wait (several when parallel branches escalated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waits: Vec<Waiting>,
    /// Why the run failed, when it is not its content: `provider` (a provider could not be
    /// reached) or `config` (a step's rendered configuration is wrong).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The steps (and `foreach` items) in the order they started.
    pub steps: Vec<StepSummary>,
    /// Things the person should know (a workflow file changed since the run started, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Why a run failed when it is not its content (the CLI's exit status follows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// A provider could not be reached (transport retries spent, bad credentials).
    Provider,
    /// A step's configuration, rendered, is wrong: an output path that escapes the working
    /// directory or names `.git/` or `.rectify/`, a template that names nothing.
    Config,
}

impl Failure {
    /// The class of a failed run, read from its steps' records (so `status` tells it as the
    /// run's own process did): a step failed on its provider (`provider.failed`), else on
    /// its configuration (`flow.config`, or `provider.config`: a misconfigured provider);
    /// `None` when steps failed on their content.
    pub fn of(steps: &[StepSummary]) -> Option<Failure> {
        let first_codes = steps
            .iter()
            .filter(|s| s.status == StepStatus::Failed.as_str())
            .filter_map(|s| s.diagnostics.first())
            .map(|d| d.code.as_str());
        let mut class = None;
        for code in first_codes {
            match code {
                "provider.failed" => return Some(Failure::Provider),
                "flow.config" | "provider.config" => class = Some(Failure::Config),
                _ => {}
            }
        }
        class
    }
}

/// What a paused run waits for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Waiting {
    /// The step.
    pub step: String,
    /// `human` or `exhausted`.
    pub reason: String,
    /// The question, or why the step escalated.
    pub message: Option<String>,
    /// The problems of the best candidate.
    pub diagnostics: Vec<Diagnostic>,
    /// The files concerned.
    pub files: Vec<String>,
    /// The best candidate answer, when the step answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
}

/// One step's line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepSummary {
    /// The step id (`step[key]` for an item).
    pub id: String,
    /// `done`, `done_with_warnings`, `waiting`, `failed`, `pending`, `running` or `skipped`.
    pub status: String,
    /// Producer runs.
    pub attempts: u32,
    /// Deterministic repairs applied to its outputs.
    pub repairs: u32,
    /// Runs of the repair agent.
    pub repair_runs: u32,
    /// Producer runs with feedback.
    pub revisions: u32,
    /// Producer runs after a FAIL verdict.
    pub validations: u32,
    /// The last verdict.
    pub verdict: Option<String>,
    /// Warnings (validator WARN findings, confinement).
    pub warnings: Vec<String>,
    /// Errors of its last check, when it did not finish.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// Tokens over all its calls.
    pub tokens: Tokens,
    /// Cost over all its calls (0 when unpriced).
    pub cost_usd: f64,
}

/// Token counts.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

impl From<WaitRecord> for Waiting {
    fn from(w: WaitRecord) -> Waiting {
        Waiting {
            step: w.step,
            reason: w.reason,
            message: w.message,
            diagnostics: w.diagnostics,
            files: w.files,
            best: w.best,
        }
    }
}

impl RunSummary {
    /// Reads a run's summary from the store; `Ok(None)`-like errors are the caller's: a
    /// missing run is `StoreError` free, reported as `None` by [`RunSummary::find`].
    pub fn load(store: &Store, run: &str) -> Result<RunSummary, StoreError> {
        Self::find(store, run)?
            .ok_or_else(|| StoreError::Sqlite(rusqlite::Error::QueryReturnedNoRows))
    }

    /// The summary of `run`, if the store has it.
    pub fn find(store: &Store, run: &str) -> Result<Option<RunSummary>, StoreError> {
        let Some(record) = store.run(run)? else {
            return Ok(None);
        };
        // A run that is not completed may wait too: a branch paused while others go on (or
        // failed), or the process was stopped after the pause was committed.
        let waits: Vec<Waiting> = if record.status == RunStatus::Completed {
            Vec::new()
        } else {
            store.waits(run)?.into_iter().map(Waiting::from).collect()
        };
        let status = store.observed_status(&record)?;
        let mut notes = Vec::new();
        if status == RunStatus::Interrupted {
            notes.push(format!(
                "the run `{run}` was interrupted: nothing runs it; `rectify resume {run}` continues it"
            ));
        }
        let steps: Vec<StepSummary> = store
            .steps(run)?
            .into_iter()
            .map(|s| StepSummary {
                id: s.id,
                status: s.status.as_str().to_owned(),
                attempts: s.attempts,
                repairs: s.repairs,
                repair_runs: s.repair_runs,
                revisions: s.revisions,
                validations: s.validations,
                verdict: s.verdict,
                warnings: s.warnings,
                diagnostics: s.diagnostics,
                tokens: Tokens {
                    input: s.input_tokens,
                    output: s.output_tokens,
                },
                cost_usd: s.cost.unwrap_or(0.0),
            })
            .collect();
        let failure = if status == RunStatus::Failed {
            Failure::of(&steps)
        } else {
            None
        };
        Ok(Some(RunSummary {
            run_id: record.id,
            workflow: record.workflow,
            status,
            waiting: waits.first().cloned(),
            waits: if waits.len() > 1 { waits } else { Vec::new() },
            failure,
            steps,
            notes,
        }))
    }
}
