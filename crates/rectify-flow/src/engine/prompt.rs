//! The prompts the engine writes: producer, feedback blocks, repair agent, validator.

use std::fmt::Write as _;

use rectify_core::{Diagnostic, Finding, FindingLevel};
use rectify_loop::{Feedback, FeedbackLimits};

use crate::spec::FeedbackSpec;

/// Header of the block placed before a producer's prompt when it runs again.
pub const FAILED_HEADER: &str = "## PREVIOUS VALIDATION FAILED";

/// One declared output, as the producer is told about it.
#[derive(Clone, Debug)]
pub struct OutputLine {
    /// Path relative to the working directory.
    pub path: String,
    /// `json`, `yaml`, `markdown` or `text`.
    pub format: String,
    /// The schema's title or description, when it has one.
    pub summary: Option<String>,
}

/// The parts of a producer's prompt.
#[derive(Debug, Default)]
pub struct ProducerPrompt<'a> {
    /// The agent's instructions.
    pub instructions: &'a str,
    /// The error-memory note.
    pub memory: Option<String>,
    /// Feedback on the previous run (problems or findings), already rendered.
    pub feedback: Option<String>,
    /// How feedback is placed.
    pub mode: FeedbackSpec,
    /// The task.
    pub task: &'a str,
    /// Files to write.
    pub outputs: &'a [OutputLine],
}

impl ProducerPrompt<'_> {
    /// The prompt text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        push_part(&mut out, self.instructions);
        if self.mode == FeedbackSpec::Prefix
            && let Some(f) = &self.feedback
        {
            push_part(&mut out, f);
        }
        if let Some(m) = &self.memory {
            push_part(&mut out, m);
        }
        push_part(&mut out, self.task);
        if !self.outputs.is_empty() {
            let mut files = String::from(
                "Write these files (paths relative to the working directory; they are also listed in the RECTIFY_OUTPUTS environment variable):",
            );
            for o in self.outputs {
                let _ = write!(files, "\n- {} ({})", o.path, o.format);
                if let Some(s) = &o.summary {
                    let _ = write!(files, ": {s}");
                }
            }
            push_part(&mut out, &files);
        }
        if self.mode == FeedbackSpec::Suffix
            && let Some(f) = &self.feedback
        {
            push_part(&mut out, &format!("Feedback: {f}"));
        }
        out
    }
}

fn push_part(out: &mut String, part: &str) {
    let part = part.trim();
    if part.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(part);
}

/// The problems of the previous output, as a `## PREVIOUS VALIDATION FAILED` block: compact,
/// de-duplicated, capped (docs/architecture.md, "Feedback and error memory"), each line naming its
/// file.
pub fn problems_block(files: &[(String, Vec<Diagnostic>)]) -> String {
    let mut out = format!(
        "{FAILED_HEADER}\n\nYour previous output did not pass validation. Fix these problems and keep everything else:"
    );
    let limits = FeedbackLimits::default();
    let mut shown = 0;
    for (file, diagnostics) in files {
        let feedback = Feedback::from_diagnostics(diagnostics, &limits);
        if feedback.truncated {
            // The loop's feedback words this the same way (`Feedback::render`).
            out.push_str(
                "\n- your previous answer was cut off at the output token limit: answer again with a shorter, complete answer",
            );
        }
        for item in feedback.items {
            if shown >= limits.max_issues {
                break;
            }
            shown += 1;
            if file.is_empty() {
                let _ = write!(out, "\n- {item}");
            } else {
                let _ = write!(out, "\n- {file}: {item}");
            }
        }
    }
    out
}

/// The findings of a FAIL verdict as a `## PREVIOUS VALIDATION FAILED` block.
pub fn findings_block(validator: &str, findings: &[Finding]) -> String {
    let mut out = format!(
        "{FAILED_HEADER}\n\nThe validator `{validator}` judged your previous work FAIL. Fix these findings:"
    );
    let failing: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.level != FindingLevel::Pass)
        .collect();
    for f in failing {
        let _ = write!(out, "\n- [{}] {}", level(f.level), located(f));
    }
    out
}

/// A finding's text with its `(file:line)` (or `(file)`) when it names one.
pub(crate) fn located(f: &Finding) -> String {
    match (&f.file, f.line) {
        (Some(file), Some(line)) => format!("{} ({file}:{line})", f.text),
        (Some(file), None) => format!("{} ({file})", f.text),
        (None, _) => f.text.clone(),
    }
}

/// `PASS`, `WARN` or `FAIL`.
pub(crate) fn level(level: FindingLevel) -> &'static str {
    match level {
        FindingLevel::Pass => "PASS",
        FindingLevel::Warn => "WARN",
        FindingLevel::Fail => "FAIL",
    }
}

/// The repair agent's prompt: the problems, the current content of every failing file, and
/// the rule to change only those problems in only those files.
pub fn repair_prompt(instructions: &str, files: &[(String, String, Vec<Diagnostic>)]) -> String {
    let mut out = String::new();
    push_part(&mut out, instructions);
    let names: Vec<&str> = files.iter().map(|(p, _, _)| p.as_str()).collect();
    push_part(
        &mut out,
        &format!(
            "These files do not pass validation. Fix only the problems listed, keep the rest of the content as it is, and write only these files: {}.",
            names.join(", ")
        ),
    );
    let mut problems = String::from("## Problems");
    for (path, _, diagnostics) in files {
        for d in diagnostics.iter().filter(|d| d.is_error()) {
            let at = d.location.span.map_or_else(
                || path.clone(),
                |s| format!("{path}:{}:{}", s.line, s.column),
            );
            let _ = write!(problems, "\n- {at}: {}", rectify_loop::issue_line(d));
        }
    }
    push_part(&mut out, &problems);
    for (path, content, _) in files {
        push_part(
            &mut out,
            &format!("## {path}\n\n```\n{}\n```", content.trim_end()),
        );
    }
    out
}

/// A validator agent's prompt.
pub fn validator_prompt(instructions: &str, step: &str, task: &str, work: &str) -> String {
    let mut out = String::new();
    push_part(&mut out, instructions);
    push_part(
        &mut out,
        &format!(
            "Review the work of the step `{step}`. Its task was:\n\n{}",
            task.trim()
        ),
    );
    push_part(&mut out, work);
    push_part(
        &mut out,
        "End your answer with a `**Findings:**` list of `- [PASS|WARN|FAIL] text (file:line)` and a last line `**Verdict: PASS**`, `**Verdict: WARN**` or `**Verdict: FAIL**`.",
    );
    out
}

#[cfg(test)]
mod tests {
    use rectify_core::Location;

    use super::*;

    #[test]
    fn feedback_goes_before_the_task_in_prefix_mode() {
        let outputs = [OutputLine {
            path: "spec.yaml".into(),
            format: "yaml".into(),
            summary: Some("A feature spec".into()),
        }];
        let p = ProducerPrompt {
            instructions: "You are an analyst.",
            memory: Some("Avoid: x".into()),
            feedback: Some(problems_block(&[(
                "spec.yaml".into(),
                vec![Diagnostic::error(
                    "schema.required",
                    Location::from_pointer("/goal"),
                    "missing required field \"goal\"",
                )],
            )])),
            mode: FeedbackSpec::Prefix,
            task: "Write the spec.",
            outputs: &outputs,
        }
        .render();
        let fb = p.find(FAILED_HEADER).unwrap();
        assert!(p.find("You are an analyst.").unwrap() < fb);
        assert!(fb < p.find("Write the spec.").unwrap());
        assert!(
            p.contains("- spec.yaml: missing required field \"goal\""),
            "{p}"
        );
        assert!(p.ends_with("- spec.yaml (yaml): A feature spec"));
    }

    #[test]
    fn findings_block_lists_failures_with_locations() {
        let findings = [
            Finding {
                level: FindingLevel::Fail,
                text: "no test".into(),
                file: Some("src/a.rs".into()),
                line: Some(3),
            },
            Finding {
                level: FindingLevel::Pass,
                text: "ok".into(),
                file: None,
                line: None,
            },
        ];
        assert_eq!(
            findings_block("validator", &findings),
            "## PREVIOUS VALIDATION FAILED\n\nThe validator `validator` judged your previous work FAIL. Fix these findings:\n- [FAIL] no test (src/a.rs:3)"
        );
    }
}
