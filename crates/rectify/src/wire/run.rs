//! `run`, `resume` and `status RUN` on the wire (`docs/output/run.schema.json`).

use std::fmt::Write as _;

use serde::Serialize;

use super::diagnostic::{DiagnosticWire, all};
use crate::flow::summary::{Failure, Tokens, Waiting};
use crate::flow::{RunStatus, RunSummary};

/// `run`, `resume` and `status RUN` on the wire (`docs/output/run.schema.json`): the run
/// summary, diagnostics in the same shape as `rectify check`.
#[derive(Debug, Clone, Serialize)]
pub struct RunWire<'a> {
    run_id: &'a str,
    workflow: &'a str,
    status: RunStatus,
    waiting: Option<WaitWire<'a>>,
    steps: Vec<StepWire<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    waits: Vec<WaitWire<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<Failure>,
}

/// What a run waits for, with the commands that continue it.
#[derive(Debug, Clone, Serialize)]
struct WaitWire<'a> {
    step: &'a str,
    reason: &'a str,
    message: Option<&'a str>,
    diagnostics: Vec<DiagnosticWire<'a>>,
    files: &'a [String],
    best: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    best_bytes: Option<usize>,
    #[serde(rename = "continue")]
    continue_with: Vec<String>,
}

/// One step (or `foreach` item) and its counters.
#[derive(Debug, Clone, Serialize)]
struct StepWire<'a> {
    id: &'a str,
    status: &'a str,
    attempts: u32,
    repairs: u32,
    repair_runs: u32,
    revisions: u32,
    validations: u32,
    verdict: Option<&'a str>,
    warnings: &'a [String],
    tokens: &'a Tokens,
    cost_usd: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    diagnostics: Vec<DiagnosticWire<'a>>,
}

impl<'a> RunWire<'a> {
    /// The run summary on the wire; `workdir` goes into the printed `continue` commands.
    pub fn new(summary: &'a RunSummary, workdir: &str) -> RunWire<'a> {
        let waiting = |w: &'a Waiting| {
            let best = w.best.as_deref().map(clip_best);
            WaitWire {
                step: &w.step,
                reason: &w.reason,
                message: w.message.as_deref(),
                diagnostics: all(&w.diagnostics),
                files: &w.files,
                best: best.map(|(text, _)| text),
                best_bytes: best.and_then(|(_, bytes)| bytes),
                continue_with: continue_commands(&summary.run_id, &w.step, &w.reason, workdir),
            }
        };
        let steps = summary
            .steps
            .iter()
            .map(|s| StepWire {
                id: &s.id,
                status: &s.status,
                attempts: s.attempts,
                repairs: s.repairs,
                repair_runs: s.repair_runs,
                revisions: s.revisions,
                validations: s.validations,
                verdict: s.verdict.as_deref(),
                warnings: &s.warnings,
                tokens: &s.tokens,
                cost_usd: s.cost_usd,
                diagnostics: all(&s.diagnostics),
            })
            .collect();
        RunWire {
            run_id: &summary.run_id,
            workflow: &summary.workflow,
            status: summary.status,
            waiting: summary.waiting.as_ref().map(waiting),
            steps,
            waits: summary.waits.iter().map(waiting).collect(),
            notes: &summary.notes,
            failure: summary.failure,
        }
    }
}

/// The most of a best candidate `--output json` prints (`best`); a longer one is cut at a
/// character boundary and its whole length given as `best_bytes` (the store keeps it whole).
pub const BEST_JSON_LIMIT: usize = 1 << 20;

/// `best` as printed, and its whole length in bytes when it was cut.
fn clip_best(best: &str) -> (&str, Option<usize>) {
    if best.len() <= BEST_JSON_LIMIT {
        return (best, None);
    }
    let mut end = BEST_JSON_LIMIT;
    while !best.is_char_boundary(end) {
        end -= 1;
    }
    (&best[..end], Some(best.len()))
}

/// The commands that continue a run waiting at `step` for `reason` (`human`, `exhausted`),
/// with `--workdir` when it is not the current directory; every value shell-quoted, so a
/// command copied from here runs as shown.
pub fn continue_commands(run: &str, step: &str, reason: &str, workdir: &str) -> Vec<String> {
    let (run, step) = (quote(run), quote(step));
    let mut tail = format!(" --step {step}");
    if workdir != "." && !workdir.is_empty() {
        let _ = write!(tail, " --workdir {}", quote(workdir));
    }
    let mut out = vec![
        format!("rectify resume {run} --approve{tail}"),
        format!("rectify resume {run} --reject --feedback 'what to change'{tail}"),
    ];
    if reason == "exhausted" {
        out.push(format!("rectify resume {run} --edit PATH=FILE{tail}"));
    }
    out
}

/// `text` quoted for a POSIX shell when it needs to be.
fn quote(text: &str) -> String {
    shlex::try_quote(text).map_or_else(|_| "''".to_owned(), std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_commands_are_quoted() {
        let c = continue_commands("r1", "a b;rm -rf x", "exhausted", "/tmp/my dir");
        assert_eq!(
            c[0],
            "rectify resume r1 --approve --step 'a b;rm -rf x' --workdir '/tmp/my dir'"
        );
        assert_eq!(c.len(), 3, "an exhausted step may be edited");
        assert_eq!(continue_commands("r1", "s", "human", ".").len(), 2);
    }

    #[test]
    fn a_huge_best_candidate_is_cut_in_json_with_its_length() {
        let best = "é".repeat(BEST_JSON_LIMIT); // 2 bytes each
        let (text, whole) = clip_best(&best);
        assert_eq!(whole, Some(2 * BEST_JSON_LIMIT));
        assert_eq!(text.len(), BEST_JSON_LIMIT);
        assert!(best.starts_with(text));
        let odd = format!("a{best}");
        let (text, whole) = clip_best(&odd);
        assert_eq!(whole, Some(odd.len()));
        assert_eq!(
            text.len(),
            BEST_JSON_LIMIT - 1,
            "cut at a character boundary"
        );
        assert_eq!(clip_best("{\"a\": 1}"), ("{\"a\": 1}", None));
    }
}
