//! A Markdown answer wrapped whole in one ```` ```markdown ```` (or ```` ```md ````) fence,
//! perhaps after a line of prose (`Here is the plan:`) and before another (`Let me know...`),
//! is the fence's content: it is taken out before the Markdown is read, so its headings are
//! headings and not code. A document that merely contains code fences (after a heading, between
//! paragraphs, ...) is left alone.
//!
//! The closing fence is found as CommonMark would find it in the unwrapped document: a fence
//! line of the outer fence's character, at least as long, that closes no inner block. An inner
//! block opened with an info string (```` ```rust ````) and closed by a bare fence is content,
//! even when the outer fence is no longer than it (models write such nested fences).

use rectify_core::{Location, Repair, Span};

use crate::locate::Locator;
use crate::rules::RepairRule;

/// The longest line of prose kept out of the document around the fence.
const MAX_PROSE: usize = 200;

/// A Markdown document taken out of the fence that wrapped it; see [`unwrap_markdown`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnwrappedMarkdown {
    /// The document's byte range in the text: the lines between the fences.
    pub body: (usize, usize),
    /// How many lines of the text come before the document.
    pub lines_before: usize,
    /// `extract.code_fence` located at the document (as for a fenced JSON payload), then
    /// `extract.prose` for each line of prose dropped (its text as `before`).
    pub repairs: Vec<Repair>,
}

impl UnwrappedMarkdown {
    /// The document: the text between the fences.
    pub fn document<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.body.0..self.body.1).unwrap_or_default()
    }

    /// A span found in the document, moved to where it is in the whole text.
    pub fn relocate(&self, span: Span) -> Span {
        Span {
            start: span.start + self.body.0,
            end: span.end + self.body.0,
            line: span.line + self.lines_before,
            column: span.column,
        }
    }
}

/// The Markdown document inside `text` when `text` is one ```` ```markdown ```` or
/// ```` ```md ```` fence, optionally preceded and followed by one short line of prose (and
/// blank lines); `None` for any other text, which is read as it is.
///
/// ```
/// use rectify_repair::unwrap_markdown;
///
/// let text = "Here is the plan:\n```markdown\n# Plan\n\n## Goal\nShip it.\n```\n";
/// let found = unwrap_markdown(text).unwrap();
/// assert_eq!(found.document(text), "# Plan\n\n## Goal\nShip it.\n");
/// assert_eq!(found.repairs[0].code, "extract.code_fence");
/// assert!(unwrap_markdown("# Plan\n\n```markdown\n# Example\n```\n").is_none());
/// ```
pub fn unwrap_markdown(text: &str) -> Option<UnwrappedMarkdown> {
    let lines = lines(text);
    let mut prose = Vec::new();
    let mut at = skip_blank(&lines, 0);
    if fence(lines.get(at)?.1).is_none() {
        prose.push(*lines.get(at).filter(|l| is_prose(l.1))?);
        at = skip_blank(&lines, at + 1);
    }
    let outer =
        fence(lines.get(at)?.1).filter(|f| matches!(f.label.as_str(), "markdown" | "md"))?;
    let close = closing(&lines, at + 1, &outer)?;
    let after = skip_blank(&lines, close + 1);
    if let Some(line) = lines.get(after) {
        prose.push(*Some(line).filter(|l| is_prose(l.1))?);
        if skip_blank(&lines, after + 1) < lines.len() {
            return None;
        }
    }
    let body = (
        lines.get(at + 1).map_or(text.len(), |l| l.0),
        lines.get(close).map_or(text.len(), |l| l.0),
    );
    Some(UnwrappedMarkdown {
        body,
        lines_before: at + 1,
        repairs: repairs(text, body, &prose),
    })
}

/// Every line with its start offset, without its line break.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        out.push((start, line.trim_end_matches(['\n', '\r'])));
        start += line.len();
    }
    out
}

fn skip_blank(lines: &[(usize, &str)], mut at: usize) -> usize {
    while lines.get(at).is_some_and(|l| l.1.trim().is_empty()) {
        at += 1;
    }
    at
}

/// A short line of text that is no Markdown structure: not a heading, list item, quote,
/// table row, fence, HTML or indented code.
fn is_prose(line: &str) -> bool {
    let t = line.trim();
    let numbered = t
        .split_once(['.', ')'])
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    !t.is_empty()
        && t.chars().count() <= MAX_PROSE
        && !line.starts_with("    ")
        && !line.starts_with('\t')
        && !t.starts_with(['#', '>', '|', '-', '*', '+', '`', '~', '<', '='])
        && !numbered
}

/// A fence line: its character, its length and its label (the info string's first word,
/// lowercased).
struct Fence {
    ch: char,
    len: usize,
    label: String,
}

/// The fence on `line`, if it is one: up to three spaces, then three or more backticks or
/// tildes (a backtick fence's info string holds no backtick).
fn fence(line: &str) -> Option<Fence> {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    let ch = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = rest.chars().take_while(|&c| c == ch).count();
    let info = rest[len..].trim();
    if len < 3 || (ch == '`' && info.contains('`')) {
        return None;
    }
    let label = info
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(Fence { ch, len, label })
}

/// The line that closes `outer`, from line `from`: a bare fence of its character, at least as
/// long, when no inner block opened with a label is open (those close on bare fences first).
fn closing(lines: &[(usize, &str)], from: usize, outer: &Fence) -> Option<usize> {
    let mut inner = 0usize;
    for (i, (_, line)) in lines.iter().enumerate().skip(from) {
        let Some(f) = fence(line).filter(|f| f.ch == outer.ch && f.len >= outer.len) else {
            continue;
        };
        match (f.label.is_empty(), inner) {
            (true, 0) => return Some(i),
            (true, _) => inner -= 1,
            (false, _) => inner += 1,
        }
    }
    None
}

/// `extract.code_fence` at the document and `extract.prose` for each prose line.
fn repairs(text: &str, body: (usize, usize), prose: &[(usize, &str)]) -> Vec<Repair> {
    let locator = Locator::new(text);
    let repair = |rule: RepairRule, (start, end): (usize, usize), before: String| {
        let span = locator.span(start, end);
        Repair::new(
            rule.code(),
            Location::from_span(span),
            before,
            String::new(),
            rule.applicability(),
        )
    };
    let mut out = vec![repair(RepairRule::CodeFence, body, String::new())];
    out.extend(prose.iter().map(|&(start, line)| {
        let before = crate::log::snippet(line.trim());
        repair(RepairRule::Prose, (start, start + line.len()), before)
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::unwrap_markdown;

    fn unwrapped(text: &str) -> Option<&str> {
        unwrap_markdown(text).map(|u| {
            let (a, b) = u.body;
            &text[a..b]
        })
    }

    #[test]
    fn a_whole_fence_with_prose_around_it_is_unwrapped() {
        assert_eq!(unwrapped("```md\n# A\n```"), Some("# A\n"));
        assert_eq!(
            unwrapped(
                "Here is the plan:\n\n```Markdown\n# A\n\n```rust\nfn x() {}\n```\n```\n\nLet me know.\n"
            ),
            Some("# A\n\n```rust\nfn x() {}\n```\n")
        );
        assert_eq!(
            unwrapped("````markdown\n# A\n```\nx\n````\n"),
            Some("# A\n```\nx\n")
        );
        let u = unwrap_markdown("Plan:\n```markdown\n# A\n```\n").unwrap();
        let codes: Vec<&str> = u.repairs.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes, ["extract.code_fence", "extract.prose"]);
        assert_eq!(u.repairs[0].location.span.unwrap().line, 3);
        assert_eq!(u.repairs[1].before, "Plan:");
        assert_eq!(u.lines_before, 2);
    }

    #[test]
    fn documents_that_only_contain_fences_are_left_alone() {
        for text in [
            "# A\n```markdown\n# B\n```\n",
            "```markdown\n# B\n```\n# A\n",
            "One.\nTwo.\n```md\n# B\n```\n",
            "```md\n# B\n```\nOne.\nTwo.\n",
            "```md\n# B\n```\n\n```md\n# C\n```\n",
            "```rust\nfn a() {}\n```\n",
            "```markdown\n# B\n",
            "- item\n```md\n# B\n```\n",
        ] {
            assert_eq!(unwrapped(text), None, "{text:?}");
        }
    }
}
