//! Extraction: where in a model's answer the payload is.
//!
//! Text that starts with `{` or `[` is the payload itself (fences inside its strings are
//! content). Otherwise Markdown code fences (` ```json `, unlabelled, several, unclosed) hold
//! the payloads, but not a fence of code in another language beside them (` ```rust `), nor
//! before the JSON written after it; failing that, the payload starts at the first `{` or `[` after the prose
//! (which also covers `<json>` tags and JSONP wrappers), or at a leading `(` tuple.

use memchr::memmem;

/// One stretch of text that holds a payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    /// First byte of the payload.
    pub start: usize,
    /// One past the last byte the payload may use.
    pub end: usize,
    /// The fence's info string (`json`, `yaml`, ...) when the region came from a fence.
    pub fence: Option<String>,
}

/// Tags of the reasoning blocks that reasoning models write before their answer.
const REASONING_TAGS: [&str; 5] = ["think", "thinking", "reasoning", "thought", "scratchpad"];

/// Where the answer in `text` starts: after the closed reasoning blocks (`<think>…</think>`,
/// `<thinking>`, `<reasoning>`, …) that open it, 0 when none does. What such a block holds is
/// the model thinking aloud, not the answer, even when it looks like one (`{name}`); it is
/// dropped as prose before the payload. A block left open (cut off) is not skipped.
pub(crate) fn answer_start(text: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = text.get(at..).unwrap_or("");
        let solid = rest.len() - rest.trim_start().len();
        let block = &rest[solid..];
        let Some(close) = REASONING_TAGS
            .iter()
            .find(|tag| {
                block
                    .strip_prefix('<')
                    .and_then(|b| b.strip_prefix(**tag))
                    .is_some_and(|b| b.starts_with('>'))
            })
            .map(|tag| format!("</{tag}>"))
        else {
            return at;
        };
        let Some(end) = block.find(&close) else {
            return at;
        };
        at += solid + end + close.len();
    }
}

/// The regions of `text` that hold payloads, in order; reasoning blocks that open the text
/// hold none (see [`answer_start`]).
pub(crate) fn regions(text: &str) -> Vec<Region> {
    let skip = answer_start(text);
    let mut found = regions_in(text.get(skip..).unwrap_or(""));
    for region in &mut found {
        region.start += skip;
        region.end += skip;
    }
    found
}

/// [`regions`] of text that opens with no reasoning block.
fn regions_in(text: &str) -> Vec<Region> {
    let Some(first) = text.find(|c: char| !c.is_whitespace()) else {
        return Vec::new();
    };
    // A byte order mark is white space: the payload after it starts at the mark, which
    // the parser skips and records.
    let solid = match text.get(first..).and_then(|t| t.strip_prefix('\u{feff}')) {
        Some(rest) => text.len() - rest.trim_start().len(),
        None => first,
    };
    let lead = text.as_bytes().get(solid).copied().unwrap_or(b' ');
    let bracketed = matches!(lead, b'{' | b'[');
    if bracketed && fence_follows(text, solid + 1) {
        // `[```json\n{...}\n```]`: the brackets wrap the fence, which holds the payload.
        let fenced = fences(text);
        if !fenced.is_empty() {
            return fenced;
        }
    }
    if bracketed || opening_bracket_missing(text.as_bytes(), solid) {
        return vec![Region {
            start: first,
            end: text.len(),
            fence: None,
        }];
    }
    let fenced = fences(text);
    if !fenced.is_empty() {
        return payload_fences(text, fenced);
    }
    let rest = text.get(solid..).unwrap_or("").trim_end();
    let escaped_whole = rest.starts_with("\\\"") && rest.ends_with("\\\"") && rest.len() > 4;
    if lone_scalars(rest) || escaped_whole || escaped_string(rest) {
        return vec![Region {
            start: solid,
            end: text.len(),
            fence: None,
        }];
    }
    let start = if lead == b'(' {
        Some(first)
    } else {
        memchr::memchr2(b'{', b'[', &text.as_bytes()[first..]).map(|i| first + i)
    };
    start
        .map(|start| Region {
            start,
            end: text.len(),
            fence: None,
        })
        .into_iter()
        .collect()
}

/// Labels of fences that hold data, or text an answer may be.
const DATA_LABELS: [&str; 15] = [
    "",
    "json",
    "jsonc",
    "json5",
    "jsonl",
    "ndjson",
    "yaml",
    "yml",
    "text",
    "txt",
    "plaintext",
    "markdown",
    "md",
    "javascript",
    "js",
];

/// The fences of `fenced` that may hold the payload. A fence labelled with another language
/// (` ```rust `, ` ```bash `) none of whose lines opens with a bracket is code the model
/// showed, not the answer: beside other fences it is dropped; when every fence is such code
/// and a bracket opens in the prose after one, the payload is there
/// (`The result is {"data": 1}`). Otherwise the fences stay.
fn payload_fences(text: &str, fenced: Vec<Region>) -> Vec<Region> {
    // The label is looked at first: a data fence's lines are never scanned.
    let code: Vec<bool> = fenced
        .iter()
        .map(|r| {
            let label = r.fence.as_deref().unwrap_or("");
            // A line opening with a bracket may be the payload (after a comment line).
            !DATA_LABELS.contains(&label)
                && !text
                    .get(r.start..r.end)
                    .unwrap_or("")
                    .lines()
                    .any(|l| l.trim_start().starts_with(['{', '[']))
        })
        .collect();
    if !code.iter().all(|&c| c) {
        // Beside a fence that may hold the payload, code is no candidate.
        return fenced
            .into_iter()
            .zip(code)
            .filter_map(|(r, c)| (!c).then_some(r))
            .collect();
    }
    let b = text.as_bytes();
    for (i, fence) in fenced.iter().enumerate() {
        let after = fence.end
            + b[fence.end.min(b.len())..]
                .iter()
                .take_while(|&&c| c == b'`')
                .count();
        // Up to the opening backticks of the next fence, if any.
        let until = fenced.get(i + 1).map_or(b.len(), |next| {
            text.get(..next.start)
                .and_then(|t| t.rfind("```"))
                .unwrap_or(next.start)
        });
        let Some(prose) = b.get(after..until) else {
            continue;
        };
        if let Some(at) = memchr::memchr2(b'{', b'[', prose) {
            return vec![Region {
                start: after + at,
                end: until,
                fence: None,
            }];
        }
    }
    fenced
}

/// True when the whole text is one string escaped as if it sat inside another one, perhaps
/// cut off or with its last quote unescaped: `\"hello\"`, `\"hello"`, `\"hello world\`. One
/// line; every quote but a last one is escaped.
fn escaped_string(t: &str) -> bool {
    let Some(body) = t.strip_prefix("\\\"") else {
        return false;
    };
    let body = body.strip_suffix('"').unwrap_or(body);
    !body.trim().is_empty()
        && !body.contains('\n')
        && memchr::memchr_iter(b'"', body.as_bytes())
            .all(|i| i > 0 && body.as_bytes()[i - 1] == b'\\')
}

/// True when `body` is a document escaped as if it sat inside a string: `{\"key\": 1}`,
/// `[\"a\"]`, or a lone string `\"hello\"`.
pub(crate) fn escaped_document(body: &str) -> bool {
    body.starts_with("{\\\"") || body.starts_with("[\\\"") || body.starts_with("\\\"")
}

/// `{{"key": {{"a": 1}}}}`: a document whose braces are all doubled, as a prompt template
/// escapes them and a model copies them. The document with each pair made one brace; `None`
/// unless `body` starts with `{{` and every brace outside double-quoted strings is doubled.
pub(crate) fn doubled_braces(body: &str) -> Option<String> {
    if !body.starts_with("{{") {
        return None;
    }
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let (mut i, mut kept, mut quoted) = (0, 0, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b'{' | b'}' if !quoted => {
                if b.get(i + 1) != Some(&c) {
                    return None;
                }
                out.push_str(body.get(kept..=i)?);
                i += 1;
                kept = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(body.get(kept..)?);
    Some(out)
}

/// True when a code fence opens at the first non-blank character at or after `at`.
fn fence_follows(text: &str, at: usize) -> bool {
    text.get(at..)
        .is_some_and(|rest| rest.trim_start().starts_with("```"))
}

/// True when the whole text is scalars written loosely, one per line (newline-delimited
/// output), each perhaps ended by a `;` (see [`lone_scalar`]).
fn lone_scalars(t: &str) -> bool {
    let scalar = |l: &str| lone_scalar(l.strip_suffix(';').unwrap_or(l).trim_end());
    scalar(t)
        || (t.contains('\n')
            && t.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .all(|l| closed_if_quoted(l) && scalar(l)))
}

/// True unless `line` opens a quote it does not close on the same line (a string running
/// over several lines is one scalar, not one per line).
fn closed_if_quoted(line: &str) -> bool {
    let line = line.strip_suffix(';').unwrap_or(line);
    match line.chars().next() {
        Some(q @ ('"' | '\'' | '`')) => line.len() > 1 && line.ends_with(q),
        _ => true,
    }
}

/// True when the text is one scalar written loosely: a string in any quotes (`'Ada'`,
/// or cut off: `"hello`),
/// a Python or JavaScript literal (`True`, `None`, `undefined`, `-Infinity`) or a number.
fn lone_scalar(t: &str) -> bool {
    let quoted = [
        ('"', '"'),
        ('\'', '\''),
        ('`', '`'),
        ('\u{201c}', '\u{201d}'),
        ('\u{2018}', '\u{2019}'),
    ]
    .iter()
    .any(|&(open, close)| {
        let Some(body) = t.strip_prefix(open) else {
            return false;
        };
        // Closed at the very end, or cut off (no closing quote at all).
        match body.strip_suffix(close) {
            Some(inner) => !closes_inside(inner, close) || one_inner_quote(inner, close),
            None => !body.trim().is_empty() && !closes_inside(body, close),
        }
    });
    let literal = matches!(
        t,
        "True"
            | "False"
            | "None"
            | "TRUE"
            | "FALSE"
            | "NULL"
            | "Null"
            | "undefined"
            | "NaN"
            | "-NaN"
            | "+NaN"
            | "Infinity"
            | "-Infinity"
            | "+Infinity"
    ) || crate::parser::spaced_non_finite(t);
    let number = !t.is_empty()
        && t.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && t.bytes().any(|b| b.is_ascii_digit());
    let regex = crate::parser::regex_end(t.as_bytes(), 0) == Some(t.len());
    quoted || literal || number || regex || concatenation(t) || call(t) || word_then_quote(t)
}

/// `abc"`: one word whose opening quote is missing (the closing one ends the text).
fn word_then_quote(t: &str) -> bool {
    t.strip_suffix('"').is_some_and(|w| {
        !w.is_empty()
            && w.len() <= 64
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    })
}

/// True when `close` occurs in `body` other than escaped (`'foo\\'bar'`).
fn closes_inside(body: &str, close: char) -> bool {
    let mut escaped = false;
    for c in body.chars() {
        if c == close && !escaped {
            return true;
        }
        escaped = c == '\\' && !escaped;
    }
    false
}

/// `"a" + "b"`: double-quoted one-line strings joined by `+`. A part whose closing quote
/// was lost before the `+` (`"hello +\n " world"`, `"abc +"def"`) and a `+` cut off by the
/// end of the text (`"hello" +`) count too.
fn concatenation(t: &str) -> bool {
    let mut rest = t;
    let mut parts = 0;
    while let Some(body) = rest.strip_prefix('"') {
        let Some(close) = body.find(['"', '\n']) else {
            return false;
        };
        parts += 1;
        let after = crate::strict::skip_block_comments(&body[close + 1..]);
        let lost = body[..close].trim_end().ends_with('+')
            && (body.as_bytes()[close] == b'\n' || !(after.is_empty() || after.starts_with('+')));
        if lost {
            rest = body[close..].trim_start();
            continue;
        }
        if body.as_bytes()[close] != b'"' {
            return false;
        }
        if after.is_empty() {
            return parts > 1;
        }
        match after.strip_prefix('+') {
            Some(more) if more.trim().is_empty() => return true,
            Some(more) => rest = crate::strict::skip_block_comments(more),
            None => return false,
        }
    }
    false
}

/// True when `inner`, the body of a string closed at the end of the text, holds exactly one
/// unescaped `close` followed by words (`The TV has a 24" screen`): a quote that is content.
fn one_inner_quote(inner: &str, close: char) -> bool {
    if inner.len() > crate::parser::WINDOW {
        return false;
    }
    let mut quotes = inner
        .match_indices(close)
        .filter(|&(i, _)| !inner[..i].ends_with('\\'));
    let Some((at, _)) = quotes.next() else {
        return false;
    };
    let words = inner[at + close.len_utf8()..]
        .trim_start()
        .starts_with(|c: char| c.is_ascii_alphabetic());
    quotes.next().is_none() && words
}

/// `callback_123(2)`: a JSONP call around one loose scalar.
fn call(t: &str) -> bool {
    let Some(open) = t.find('(') else {
        return false;
    };
    let name = &t[..open];
    let name_ok = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$'))
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'));
    let inner = t[open + 1..].strip_suffix(')').map(str::trim);
    name_ok
        && inner.is_some_and(|i| {
            matches!(i, "true" | "false" | "null") || (!i.contains('(') && lone_scalar(i))
        })
}

/// True when the text at `at` starts like a document whose opening bracket is missing: a
/// member (see [`member_at`]), or a string, number or keyword followed by a comma.
fn opening_bracket_missing(b: &[u8], at: usize) -> bool {
    if member_at(b, at) {
        return true;
    }
    match b.get(at) {
        Some(b'"') => quoted_end(b, at).is_some_and(|end| solid_at(b, end) == Some(b',')),
        Some(b't' | b'f' | b'n') => ["true", "false", "null"].iter().any(|k| {
            b.get(at..at + k.len()) == Some(k.as_bytes()) && solid_at(b, at + k.len()) == Some(b',')
        }),
        Some(c) if c.is_ascii_digit() || *c == b'-' => {
            let rest = b.get(at + 1..).unwrap_or_default();
            let len = rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+'))
                .count();
            len < 32 && solid_at(b, at + 1 + len) == Some(b',')
        }
        _ => false,
    }
}

/// True when a member of an object starts at `at`: `"key":` or `key":` (a key whose opening
/// quote is missing).
pub(crate) fn member_at(b: &[u8], at: usize) -> bool {
    match b.get(at) {
        Some(b'"') => quoted_end(b, at).is_some_and(|end| solid_at(b, end) == Some(b':')),
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let rest = b.get(at..).unwrap_or_default();
            let len = rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
                .count();
            len <= 64 && b.get(at + len) == Some(&b'"') && solid_at(b, at + len + 1) == Some(b':')
        }
        _ => false,
    }
}

/// One past the closing quote of the one-line string opened at `at` (within 256 bytes).
fn quoted_end(b: &[u8], at: usize) -> Option<usize> {
    let rest = b.get(at + 1..(at + 257).min(b.len()))?;
    let i = rest.iter().position(|&c| matches!(c, b'"' | b'\n'))?;
    (rest.get(i) == Some(&b'"')).then_some(at + 2 + i)
}

/// The first byte at or after `at` that is not ASCII whitespace.
fn solid_at(b: &[u8], at: usize) -> Option<u8> {
    b.get(at..)?
        .iter()
        .copied()
        .find(|c| !c.is_ascii_whitespace())
}

/// The content of the one code fence that is the whole of `text` (blank lines around it
/// aside): `None` when there is none, several, or text outside it.
pub(crate) fn lone_fence(text: &str) -> Option<&str> {
    let t = text.trim();
    if !t.starts_with("```") {
        return None;
    }
    let [region] = fences(t).try_into().ok()?;
    let before = t.get(..region.start)?;
    let after = t.get(region.end..)?.trim();
    let opening_line = !before.trim_end().contains('\n');
    (opening_line && (after.is_empty() || after == "```"))
        .then(|| t.get(region.start..region.end))?
}

/// Every non-empty code fence, in order; an unclosed fence runs to the end of the text.
fn fences(text: &str) -> Vec<Region> {
    let b = text.as_bytes();
    let finder = memmem::Finder::new(b"```");
    let mut closers = Closers::new(b, &finder);
    let mut out = Vec::new();
    let mut at = 0;
    // Outer fences still open around the one being read (see `nested_opener`).
    let mut outer = 0;
    while let Some(i) = finder.find(&b[at..]).map(|i| at + i) {
        let mut j = i;
        while b.get(j) == Some(&b'`') {
            j += 1;
        }
        let info_end = j + b[j..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'_'))
            .count();
        let info = text.get(j..info_end).unwrap_or("").to_ascii_lowercase();
        if outer > 0 && info.is_empty() && alone_on_line(b, i, j) {
            // The closing fence of an outer fence: what follows is prose again.
            outer -= 1;
            at = j;
            continue;
        }
        let close = closers.close(info_end);
        let end = close.unwrap_or(b.len());
        if let Some(inner) = nested_opener(text, info_end, end) {
            // A fence whose prose holds a labelled fence: the inner fence holds the payload,
            // and the outer one closes at the next backticks alone on a line after it.
            outer += 1;
            at = inner;
            continue;
        }
        if let Some(start) = text
            .get(info_end..end)
            .and_then(|s| s.find(|c: char| !c.is_whitespace()))
        {
            out.push(Region {
                start: info_end + start,
                end,
                fence: Some(info),
            });
        }
        let Some(close) = close else { break };
        at = close + b[close..].iter().take_while(|&&c| c == b'`').count();
    }
    out
}

/// True when the backticks `b[start..end]` are alone on their line (blanks around them).
fn alone_on_line(b: &[u8], start: usize, end: usize) -> bool {
    let before = b[..start].iter().rev().take_while(|&&c| c != b'\n');
    let after = b[end..].iter().take_while(|&&c| c != b'\n');
    before.chain(after).all(u8::is_ascii_whitespace)
}

/// A labelled fence (` ```json `) opening at the start of a line inside the content
/// `text[start..end]` of another fence, whose content before it holds no bracket: the
/// outer fence wraps prose around the payload's fence. Where the inner fence starts.
fn nested_opener(text: &str, start: usize, end: usize) -> Option<usize> {
    let content = text.get(start..end)?;
    let mut line_start = 0;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let labelled = trimmed
            .strip_prefix("```")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()));
        if labelled && line_start > 0 {
            let indent = line.len() - trimmed.len();
            return Some(start + line_start + indent);
        }
        if line.contains(['{', '[']) {
            return None;
        }
        line_start += line.len();
    }
    None
}

/// Finds where fences close: the first ` ``` ` alone on its line (after indentation, with only
/// blanks after it) at or after a position, as in CommonMark, so that backticks inside the
/// content (`"```bar```"` in a JSON string) do not close a fence; failing that, the first
/// ` ``` ` (a fence written on one line). Positions are asked in increasing order, and the
/// last backticks alone on their line are remembered, so the text is scanned once however
/// many fences it opens.
struct Closers<'a> {
    b: &'a [u8],
    finder: &'a memmem::Finder<'a>,
    /// The backticks alone on their line found last, or `None` when there are none from
    /// `scanned` on.
    alone: Option<usize>,
    scanned: usize,
}

impl<'a> Closers<'a> {
    fn new(b: &'a [u8], finder: &'a memmem::Finder<'a>) -> Self {
        Closers {
            b,
            finder,
            alone: None,
            scanned: 0,
        }
    }

    /// Where the fence whose content starts at `from` closes.
    fn close(&mut self, from: usize) -> Option<usize> {
        let first = self.finder.find(self.b.get(from..)?).map(|k| from + k)?;
        if self.alone.is_none_or(|a| a < from) {
            // Scanning resumes where it stopped: no byte is looked at twice.
            let rest = self.b.get(self.scanned..).unwrap_or_default();
            let start = if self.scanned <= first {
                Some(first)
            } else {
                self.finder.find(rest).map(|k| self.scanned + k)
            };
            self.alone = start.and_then(|at| self.next_alone(at));
        }
        Some(self.alone.unwrap_or(first))
    }

    /// The first backticks alone on their line at or after `at` (which starts backticks).
    fn next_alone(&mut self, mut at: usize) -> Option<usize> {
        let b = self.b;
        loop {
            let indent = b[..at]
                .iter()
                .rev()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            let line_start = at == indent || b[at - indent - 1] == b'\n';
            let run = b[at..].iter().take_while(|&&c| c == b'`').count();
            let line_end = b[at + run..]
                .iter()
                .take_while(|&&c| c != b'\n')
                .all(u8::is_ascii_whitespace);
            self.scanned = at + run;
            if line_start && line_end {
                return Some(at);
            }
            let Some(k) = self.finder.find(&b[at + run..]) else {
                self.scanned = b.len();
                return None;
            };
            at = at + run + k;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lone_fence_is_its_content() {
        use super::lone_fence;
        assert_eq!(
            lone_fence("\n```python\nprint(1)\n```\n").map(str::trim),
            Some("print(1)")
        );
        assert_eq!(lone_fence("```\ntext").map(str::trim), Some("text"));
        assert_eq!(lone_fence("Code:\n```\nx\n```"), None);
        assert_eq!(lone_fence("```\nx\n```\nmore"), None);
        assert_eq!(lone_fence("```\nx\n```\n```\ny\n```"), None);
    }

    #[test]
    fn reasoning_blocks_hold_no_payload() {
        use super::{answer_start, regions};
        let text = "<think>The user wants {name}.</think>\n <thinking>x</thinking>{\"a\": 1}";
        let start = text.find("{\"a").unwrap_or(0);
        assert_eq!(answer_start(text), start);
        assert_eq!(regions(text)[0].start, start);
        assert_eq!(answer_start("<think>cut off {\"a\": 1}"), 0);
        assert_eq!(answer_start("<thinker>x</thinker>{}"), 0);
    }

    #[test]
    fn doubled_braces_are_made_single() {
        use super::doubled_braces;
        assert_eq!(
            doubled_braces(r#"{{"a": {{"b": "}"}}, "c": [{{}}]}}"#).as_deref(),
            Some(r#"{"a": {"b": "}"}, "c": [{}]}"#)
        );
        assert_eq!(
            doubled_braces(r#"{{"a": "x\"{"}}"#).as_deref(),
            Some(r#"{"a": "x\"{"}"#)
        );
        assert_eq!(doubled_braces(r#"{{"a": {"b": 1}}}"#), None);
        assert_eq!(doubled_braces(r#"{"a": 1}"#), None);
        assert_eq!(doubled_braces("{{\"a\": 1"), Some("{\"a\": 1".to_owned()));
    }

    use super::*;

    fn texts(text: &str) -> Vec<&str> {
        regions(text)
            .iter()
            .map(|r| &text[r.start..r.end])
            .collect()
    }

    #[test]
    fn bare_payload_is_the_whole_text() {
        assert_eq!(texts("  {\"a\": \"```\"}"), vec!["{\"a\": \"```\"}"]);
        assert!(texts("   ").is_empty());
        assert!(texts("no json here").is_empty());
    }

    #[test]
    fn backticks_inside_a_fenced_document_do_not_close_it() {
        let t = "```json\n{\"foo\": \"```bar```\"}\n```\nmore";
        assert_eq!(texts(t), vec!["{\"foo\": \"```bar```\"}\n"]);
        let indented = "  ```json\n  {\"name\": \"```code```\"}\n  ```  \n";
        assert_eq!(texts(indented), vec!["{\"name\": \"```code```\"}\n  "]);
    }

    #[test]
    fn a_fence_opened_after_another_closes_at_the_next_backticks_alone_on_a_line() {
        // `y` is read as the second fence's info string; it would close at the last line,
        // but its prose holds a labelled fence, which holds the payload.
        let t = "```json\n{\"a\": \"```x```\"}\n```\nsee ```y``` and\n```json\n[1]\n```\n";
        assert_eq!(texts(t), vec!["{\"a\": \"```x```\"}\n", "[1]\n"]);
    }

    #[test]
    fn a_labelled_fence_inside_an_unlabelled_one_holds_the_payload() {
        let t =
            "Outer\n```\nInner start\n```json\n{\"level\": 1}\n```\nInner end\n```\nOuter end\n";
        assert_eq!(texts(t), vec!["{\"level\": 1}\n"]);
        // An unlabelled fence whose content starts with the payload is not looked into.
        let t = "```\n{\"a\": \"x\"}\n```json\n```\n";
        assert_eq!(texts(t), vec!["{\"a\": \"x\"}\n```json\n"]);
    }

    #[test]
    fn fences_labelled_unlabelled_several_and_unclosed() {
        let t = "lorem ```json {\"a\":1} ``` ipsum ```\n[1]\n``` and ```yaml\nx: 1";
        assert_eq!(texts(t), vec!["{\"a\":1} ", "[1]\n", "x: 1"]);
        let r = regions(t);
        assert_eq!(r[0].fence.as_deref(), Some("json"));
        assert_eq!(r[1].fence.as_deref(), Some(""));
        assert_eq!(texts("````{ \"k\": 1 }```"), vec!["{ \"k\": 1 }"]);
    }

    #[test]
    fn prose_before_the_first_bracket_and_leading_tuples() {
        assert_eq!(
            texts("Sure! <json>{\"a\":1}</json>"),
            vec!["{\"a\":1}</json>"]
        );
        assert_eq!(texts("cb([1]);"), vec!["[1]);"]);
        assert_eq!(texts("(1, 2)"), vec!["(1, 2)"]);
    }
}
