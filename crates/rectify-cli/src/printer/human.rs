//! rustc-style diagnostics: a title, the offending line with a caret, expected/received notes.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use rectify::{Diagnostic, Document, Severity};

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

    /// Renders one diagnostic; `doc` supplies the source line when the diagnostic has a span,
    /// and `columns` finds columns in it (kept for all the diagnostics of one document).
    pub(crate) fn render(
        &self,
        d: &Diagnostic,
        name: &str,
        doc: Option<&Document>,
        columns: &mut Columns,
    ) -> String {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level.primary_title(title_text(d)).id(d.code.as_str());
        let group = match (frame(d, doc, columns), d.location.span) {
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
        let mut columns = Columns::default();
        for d in diagnostics {
            writeln!(err, "{}\n", self.render(d, name, doc, &mut columns))?;
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
    columns: &mut Columns,
) -> Option<(usize, String, std::ops::Range<usize>)> {
    const CONTEXT: usize = 80;
    let span = d.location.span?;
    let doc = doc.filter(|doc| !doc.source.is_empty())?;
    let line = doc.line_text(span.line);
    let col = columns.byte_col(span.line, line, span.column);
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

/// Characters between two marks of a long line in [`Columns`].
const MARK_EVERY: usize = 64;

/// Lines longer than this (in bytes) get marks in [`Columns`].
const LONG_LINE: usize = 1024;

/// The byte offsets of columns of one document's lines. On a long line, the offset of every
/// [`MARK_EVERY`]th character is kept, so that a column costs at most that many characters
/// to find: counting from the start of the line for each diagnostic made 80,000 diagnostics
/// on one line of a model's answer take 37 s (issue 34, item 6).
#[derive(Default)]
pub(crate) struct Columns {
    /// Line number → byte offset of characters 0, `MARK_EVERY`, 2 × `MARK_EVERY`…
    marks: HashMap<usize, Vec<usize>>,
    /// Characters stepped over, for the tests.
    #[cfg(test)]
    steps: usize,
}

impl Columns {
    /// [`byte_col`] of `column` in `line` (the text of line `line_no`).
    fn byte_col(&mut self, line_no: usize, line: &str, column: usize) -> usize {
        if line.len() <= LONG_LINE {
            #[cfg(test)]
            {
                self.steps += column.min(line.len());
            }
            return byte_col(line, column);
        }
        #[cfg(test)]
        if !self.marks.contains_key(&line_no) {
            self.steps += line.len();
        }
        let marks = self.marks.entry(line_no).or_insert_with(|| {
            line.char_indices()
                .step_by(MARK_EVERY)
                .map(|(i, _)| i)
                .collect()
        });
        let k = column.saturating_sub(1);
        let Some(&from) = marks.get(k / MARK_EVERY) else {
            return line.len();
        };
        #[cfg(test)]
        {
            self.steps += k % MARK_EVERY;
        }
        let rest = line.get(from..).unwrap_or("");
        rest.char_indices()
            .nth(k % MARK_EVERY)
            .map_or(line.len(), |(i, _)| from + i)
    }
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

#[cfg(test)]
mod tests {
    use rectify::{Format, Location, SpanMap};
    use serde_json::Value;

    use super::*;

    /// A line of `n` characters, one in seven of them two bytes long.
    fn long_line(n: usize) -> String {
        (0..n).map(|i| if i % 7 == 3 { 'é' } else { 'x' }).collect()
    }

    /// Pseudo-random numbers below `n`, the same on every run.
    fn shuffled(count: usize, n: usize) -> Vec<usize> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..count)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                usize::try_from(x % n as u64).unwrap_or(0)
            })
            .collect()
    }

    #[test]
    fn columns_agree_with_counting_from_the_line_start() {
        let line = long_line(3000);
        let mut columns = Columns::default();
        for column in (0..3100).chain((0..3100).rev()) {
            assert_eq!(
                columns.byte_col(1, &line, column),
                byte_col(&line, column),
                "{column}"
            );
        }
    }

    /// The work to frame `count` diagnostics on one line of `n` characters, in the order
    /// `order` gives their columns: at most the line once and `MARK_EVERY` characters each,
    /// whatever the order. Counting from the line start for each one (the quadratic
    /// algorithm) steps over about `count × n / 2` characters and fails this for every size.
    #[test]
    fn framing_many_diagnostics_on_one_line_is_linear() {
        for n in [4_096, 16_384, 65_536, 262_144] {
            let count = n / 8;
            let line = long_line(n);
            let ascending: Vec<usize> = (1..=count).map(|i| i * 8).collect();
            let descending: Vec<usize> = ascending.iter().rev().copied().collect();
            let random: Vec<usize> = shuffled(count, n).iter().map(|c| c + 1).collect();
            for order in [ascending, descending, random] {
                let mut columns = Columns::default();
                for &column in &order {
                    columns.byte_col(1, &line, column);
                }
                let bound = 2 * line.len() + MARK_EVERY * order.len();
                assert!(columns.steps <= bound, "n={n}: {} > {bound}", columns.steps);
            }
        }
    }

    #[test]
    fn frames_printed_together_are_the_frames_of_each_alone() {
        let text = format!("{}\n{}", long_line(5000), long_line(40));
        let doc = Document::new(Format::Text, text, Value::Null, SpanMap::default());
        let printer = HumanPrinter {
            renderer: Renderer::plain(),
        };
        let mut columns = Columns::default();
        for (start, end) in [(4000, 4010), (10, 12), (5100, 5110), (4999, 5003), (0, 1)] {
            let span = doc.span(start, end);
            let d = Diagnostic::error("x.y", Location::root().with_span(Some(span)), "m");
            let together = printer.render(&d, "a", Some(&doc), &mut columns);
            let alone = printer.render(&d, "a", Some(&doc), &mut Columns::default());
            assert_eq!(together, alone);
            assert!(together.contains('^'), "{together}");
        }
    }
}
