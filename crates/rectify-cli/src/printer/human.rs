//! rustc-style diagnostics: a title, the offending line with a caret, expected/received notes.

use std::io::{IsTerminal, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use rectify_core::{Diagnostic, Document, Severity};

/// Renders diagnostics for people, with colour only when stderr is a terminal and `NO_COLOR`
/// is not set.
pub struct HumanPrinter {
    renderer: Renderer,
}

impl HumanPrinter {
    /// A printer for stderr.
    pub fn stderr() -> Self {
        let color = std::io::stderr().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        HumanPrinter {
            renderer: if color {
                Renderer::styled()
            } else {
                Renderer::plain()
            },
        }
    }

    /// Renders one diagnostic; `doc` supplies the source line when the diagnostic has a span.
    pub fn render(&self, d: &Diagnostic, name: &str, doc: Option<&Document>) -> String {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level.primary_title(title_text(d)).id(d.code.as_str());
        let group = match (frame(d, doc), d.location.span) {
            (Some((line_no, text, range)), Some(span)) if text.starts_with('…') => title
                .element(Origin::path(name).line(span.line).char_column(span.column))
                .element(
                    Snippet::source(text)
                        .line_start(line_no)
                        .annotation(AnnotationKind::Primary.span(range)),
                ),
            (Some((line_no, text, range)), _) => title.element(
                Snippet::source(text)
                    .line_start(line_no)
                    .path(name)
                    .annotation(AnnotationKind::Primary.span(range)),
            ),
            (None, Some(span)) => {
                title.element(Origin::path(name).line(span.line).char_column(span.column))
            }
            (None, None) => Group::with_title(title),
        };
        let mut groups = vec![group];
        let notes = notes(d);
        if !notes.is_empty() {
            groups.push(Group::with_title(Level::NOTE.secondary_title(notes)));
        }
        self.renderer.render(&groups)
    }

    /// Prints all diagnostics and a summary line on stderr.
    pub fn print(
        &self,
        diagnostics: &[Diagnostic],
        name: &str,
        doc: Option<&Document>,
    ) -> std::io::Result<()> {
        let mut err = std::io::stderr().lock();
        for d in diagnostics {
            writeln!(err, "{}\n", self.render(d, name, doc))?;
        }
        writeln!(err, "{}", summary(diagnostics, name))
    }
}

fn title_text(d: &Diagnostic) -> String {
    if d.location.pointer.is_empty() {
        d.message.clone()
    } else {
        format!("{}: {}", d.location.path, d.message)
    }
}

/// `plan.yaml: 2 errors, 1 warning` or `plan.yaml: valid`.
pub fn summary(diagnostics: &[Diagnostic], name: &str) -> String {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    match (errors, warnings) {
        (0, 0) => format!("{name}: valid"),
        (0, w) => format!("{name}: valid, {w} {}", plural(w, "warning")),
        (e, 0) => format!("{name}: invalid, {e} {}", plural(e, "error")),
        (e, w) => format!(
            "{name}: invalid, {e} {}, {w} {}",
            plural(e, "error"),
            plural(w, "warning")
        ),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

fn notes(d: &Diagnostic) -> String {
    let mut lines = Vec::new();
    if let Some(e) = &d.expected {
        lines.push(format!("expected: {e}"));
    }
    if let Some(r) = &d.received {
        lines.push(format!("received: {r}"));
    }
    lines.join("\n")
}

/// A window of the source line around the diagnostic's span and the range to underline in it.
fn frame(
    d: &Diagnostic,
    doc: Option<&Document>,
) -> Option<(usize, String, std::ops::Range<usize>)> {
    const CONTEXT: usize = 80;
    let span = d.location.span?;
    let doc = doc.filter(|doc| !doc.source.is_empty())?;
    let line = doc.line_text(span.line);
    let col = byte_col(line, span.column);
    let line_start = span.start.checked_sub(col)?;
    let span_end = span
        .end
        .saturating_sub(line_start)
        .clamp(col + 1, line.len().max(col + 1));
    let from = floor_boundary(line, col.saturating_sub(CONTEXT));
    let to = floor_boundary(
        line,
        (span_end.min(col + CONTEXT) + CONTEXT).min(line.len()),
    );
    let prefix = if from > 0 { "…" } else { "" };
    let suffix = if to < line.len() { "…" } else { "" };
    let text = format!("{prefix}{}{suffix}", &line[from..to]);
    let start = floor_boundary(&text, col - from + prefix.len());
    let end = (span_end.min(to.max(col + 1)) - from + prefix.len()).max(start + 1);
    // A span may end inside a multi-byte character (a repair's span, a byte offset from a
    // reader): the underline covers the whole character.
    let end = ceil_boundary(&text, end);
    Some((span.line, text, start..end))
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn byte_col(text: &str, column: usize) -> usize {
    text.char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i)
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
