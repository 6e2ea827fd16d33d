//! Printing a workflow run: the JSON wire format (docs/output.md), and a summary for people.

use std::fmt::Write as _;
use std::io::Write;

use rectify::Diagnostic;
use rectify::flow::summary::{Failure, Tokens, Waiting};
use rectify::flow::{RunStatus, RunSummary};
use serde::Serialize;

use super::json::WireDiagnostic;

/// `run`, `resume` and `status RUN` on the wire (`docs/output/run.schema.json`): the run
/// summary, diagnostics in the same shape as `rectify check`.
#[derive(Debug, Serialize)]
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
#[derive(Debug, Serialize)]
struct WaitWire<'a> {
    step: &'a str,
    reason: &'a str,
    message: Option<&'a str>,
    diagnostics: Vec<WireDiagnostic<'a>>,
    files: &'a [String],
    best: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    best_bytes: Option<usize>,
    #[serde(rename = "continue")]
    continue_with: Vec<String>,
}

/// One step (or `foreach` item) and its counters.
#[derive(Debug, Serialize)]
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
    diagnostics: Vec<WireDiagnostic<'a>>,
}

/// The run summary on the wire; `workdir` goes into the printed `continue` commands.
pub fn wire<'a>(summary: &'a RunSummary, workdir: &str) -> RunWire<'a> {
    let waiting = |w: &'a Waiting| {
        let best = w.best.as_deref().map(clip_best);
        WaitWire {
            step: &w.step,
            reason: &w.reason,
            message: w.message.as_deref(),
            diagnostics: w.diagnostics.iter().map(WireDiagnostic::from).collect(),
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
            diagnostics: s.diagnostics.iter().map(WireDiagnostic::from).collect(),
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

/// A summary for people on stderr: one line per step, then what the run waits for and the
/// commands that continue it (with `detail`, the best candidate too, as `status` shows).
pub fn human(summary: &RunSummary, detail: bool, workdir: &str) -> std::io::Result<()> {
    let mut err = Safe(std::io::stderr().lock());
    writeln!(
        err,
        "run {} ({}): {}",
        summary.run_id,
        summary.workflow,
        summary.status.as_str()
    )?;
    for s in &summary.steps {
        let mut line = format!("  {:<28} {:<19} attempts {}", s.id, s.status, s.attempts);
        for (n, what) in [
            (s.repairs, "repairs"),
            (s.repair_runs, "repair runs"),
            (s.revisions, "revisions"),
            (s.validations, "validations"),
        ] {
            if n > 0 {
                let _ = write!(line, ", {what} {n}");
            }
        }
        if let Some(v) = &s.verdict {
            let _ = write!(line, ", verdict {v}");
        }
        writeln!(err, "{line}")?;
        for w in &s.warnings {
            writeln!(err, "      warning: {w}")?;
        }
        if s.status == "failed" {
            for d in &s.diagnostics {
                writeln!(
                    err,
                    "      error[{}]: {}",
                    d.code,
                    rectify::engine::issue_line(d)
                )?;
            }
        }
    }
    for w in summary.waiting.iter().chain(summary.waits.iter().skip(1)) {
        writeln!(
            err,
            "\nwaiting at `{}` ({}): {}",
            w.step,
            w.reason,
            w.message.as_deref().unwrap_or("")
        )?;
        for d in &w.diagnostics {
            writeln!(
                err,
                "  error[{}]{}: {}",
                d.code,
                located(d),
                rectify::engine::issue_line(d)
            )?;
        }
        if !w.files.is_empty() {
            writeln!(err, "  files: {}", w.files.join(", "))?;
        }
        if let Some(best) = w.best.as_deref().filter(|_| detail) {
            writeln!(err, "  best candidate:")?;
            for line in best.lines().take(40) {
                writeln!(err, "    | {}", clip(line, 200))?;
            }
            if best.lines().count() > 40 {
                writeln!(err, "    | ... ({} lines in all)", best.lines().count())?;
            }
        }
        writeln!(err, "  to continue:")?;
        for c in continue_commands(&summary.run_id, &w.step, &w.reason, workdir) {
            writeln!(err, "    {c}")?;
        }
    }
    for note in &summary.notes {
        writeln!(err, "note: {note}")?;
    }
    Ok(())
}

/// ` (line L, column C)` when the diagnostic has a position.
fn located(d: &Diagnostic) -> String {
    d.location.span.map_or(String::new(), |s| {
        format!(" (line {}, column {})", s.line, s.column)
    })
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

/// At most `max` characters of `line`, with how many more there were.
fn clip(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((at, _)) => format!(
            "{} ... ({} characters in all)",
            &line[..at],
            line.chars().count()
        ),
        None => line.to_owned(),
    }
}

/// A terminal writer that shows control characters instead of sending them: what an agent
/// wrote (its stderr, its answer) cannot clear the screen, set the title or write the
/// clipboard through escape sequences. Newlines and tabs pass.
pub struct Safe<W>(pub W);

impl<W: Write> Write for Safe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(terminal_safe(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// `text` with every control character but newline and tab shown as `\u{..}`.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_sent() {
        let hostile = "done\x1b]0;pwned\x07\x1b[2J\u{9b}31m\r";
        assert_eq!(
            terminal_safe(hostile),
            "done\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{9b}31m\\u{d}"
        );
        assert_eq!(terminal_safe("a\n\tb"), "a\n\tb");
    }

    #[test]
    fn continue_commands_are_quoted() {
        let c = continue_commands("r1", "a b;rm -rf x", "exhausted", "/tmp/my dir");
        assert_eq!(
            c[0],
            "rectify resume r1 --approve --step 'a b;rm -rf x' --workdir '/tmp/my dir'"
        );
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
