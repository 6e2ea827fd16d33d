//! Printing a workflow run for people (its JSON form is `rectify::wire::RunWire`), and the
//! terminal-safe writer every command's stderr goes through.

use std::fmt::Write as _;
use std::io::Write;

#[cfg(feature = "workflow")]
use rectify::Diagnostic;
#[cfg(feature = "workflow")]
use rectify::flow::RunSummary;

/// A summary for people on stderr: one line per step, then what the run waits for and the
/// commands that continue it (with `detail`, the best candidate too, as `status` shows).
#[cfg(feature = "workflow")]
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
        for c in rectify::wire::continue_commands(&summary.run_id, &w.step, &w.reason, workdir) {
            writeln!(err, "    {c}")?;
        }
    }
    for note in &summary.notes {
        writeln!(err, "note: {note}")?;
    }
    Ok(())
}

/// ` (line L, column C)` when the diagnostic has a position.
#[cfg(feature = "workflow")]
fn located(d: &Diagnostic) -> String {
    d.location.span.map_or(String::new(), |s| {
        format!(" (line {}, column {})", s.line, s.column)
    })
}

/// At most `max` characters of `line`, with how many more there were.
#[cfg(feature = "workflow")]
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
}
