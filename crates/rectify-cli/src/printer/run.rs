//! Printing a workflow run: the §11.3 JSON wire format, and a summary for people.

use std::fmt::Write as _;
use std::io::Write;

use rectify_core::Diagnostic;
use rectify_flow::RunSummary;
use rectify_flow::summary::Waiting;
use serde_json::{Value, json};

use super::json::WireDiagnostic;

/// The run summary as JSON, diagnostics in the same shape as `rectify check`.
pub fn wire(summary: &RunSummary, workdir: &str) -> Value {
    let diags = |ds: &[Diagnostic]| -> Value {
        Value::Array(ds.iter().map(|d| json!(WireDiagnostic::from(d))).collect())
    };
    let waiting = |w: &Waiting| {
        json!({"step": w.step, "reason": w.reason, "message": w.message, "diagnostics": diags(&w.diagnostics),
               "files": w.files, "best": w.best,
               "continue": continue_commands(&summary.run_id, &w.step, &w.reason, workdir)})
    };
    let steps: Vec<Value> = summary
        .steps
        .iter()
        .map(|s| {
            let mut v = json!({"id": s.id, "status": s.status, "attempts": s.attempts, "repairs": s.repairs,
                "repair_runs": s.repair_runs, "revisions": s.revisions, "validations": s.validations,
                "verdict": s.verdict, "warnings": s.warnings, "tokens": {"input": s.tokens.input, "output": s.tokens.output},
                "cost_usd": s.cost_usd});
            if !s.diagnostics.is_empty() {
                v["diagnostics"] = diags(&s.diagnostics);
            }
            v
        })
        .collect();
    let mut out = json!({"run_id": summary.run_id, "workflow": summary.workflow, "status": summary.status,
        "waiting": summary.waiting.as_ref().map(waiting), "steps": steps});
    if !summary.waits.is_empty() {
        out["waits"] = Value::Array(summary.waits.iter().map(waiting).collect());
    }
    if !summary.notes.is_empty() {
        out["notes"] = json!(summary.notes);
    }
    if let Some(f) = &summary.failure {
        out["failure"] = json!(f);
    }
    out
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
                    rectify_loop::issue_line(d)
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
                rectify_loop::issue_line(d)
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
}
