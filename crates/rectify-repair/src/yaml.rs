//! YAML payloads: fenced YAML (or any text when the format is given as YAML). The payload is
//! read strictly first: valid YAML comes back as `rectify_parse`'s reader reads it, with no
//! repair. Only when that fails does a line-based pre-pass fix two common model mistakes —
//! tabs used for indentation (`yaml.tabs`) and plain values containing `: `
//! (`yaml.colon_in_value`, quoted values left alone) — skipping block scalars. A payload the
//! reader fails on that starts like JSON goes to the JSON repair. Deeper YAML repair
//! (unbalanced flow collections, broken block scalars) is not attempted: the reader's
//! diagnostics are passed on.

use rectify_core::{Diagnostic, Document, Format, Location, Repair, SpanMap};
use rectify_parse::{Limits, read};
use serde_json::Value;

use crate::extract::regions;
use crate::rules::RepairRule;
use crate::{RepairOptions, Repaired};

/// The YAML payload of `text`, when the options or a fence say it is YAML.
pub(crate) fn payload(text: &str, options: &RepairOptions) -> Option<(usize, usize)> {
    match options.format {
        Some(Format::Yaml) => {}
        Some(_) => return None,
        None => {
            let fenced = regions(text)
                .into_iter()
                .find(|r| matches!(r.fence.as_deref(), Some("yaml" | "yml")))?;
            return Some((fenced.start, fenced.end));
        }
    }
    match regions(text).into_iter().find(|r| r.fence.is_some()) {
        Some(r) => Some((r.start, r.end)),
        None => Some((0, text.len())),
    }
}

/// The YAML in `text[start..end]` read as it is, when the reader reads it without error:
/// valid YAML is never rewritten. `None` when it must be repaired.
pub(crate) fn strict(
    text: &str,
    (start, end): (usize, usize),
    options: &RepairOptions,
) -> Option<Repaired> {
    let body = text.get(start..end).unwrap_or("");
    let parsed = read(body.to_owned(), Format::Yaml, &limits(options));
    if parsed.diagnostics.iter().any(Diagnostic::is_error) {
        return None;
    }
    let value = parsed.document?.value;
    let doc = Document::new(
        Format::Yaml,
        text.to_owned(),
        Value::Null,
        SpanMap::default(),
    );
    Some(Repaired {
        value: Some(value),
        repairs: fence(&doc, text, start, end).into_iter().collect(),
        diagnostics: parsed.diagnostics,
        format: Some(Format::Yaml),
        yaml_source: Some(body.to_owned()),
        ..Repaired::default()
    })
}

fn limits(options: &RepairOptions) -> Limits {
    Limits {
        max_depth: options.max_depth,
        ..Limits::default()
    }
}

/// The `extract.code_fence` repair when the payload is not the whole text.
fn fence(doc: &Document, text: &str, start: usize, end: usize) -> Option<Repair> {
    (start > 0 || end < text.len()).then(|| {
        repair(
            doc,
            RepairRule::CodeFence,
            start,
            start,
            String::new(),
            String::new(),
        )
    })
}

/// Repairs and reads the YAML in `text[start..end]`.
pub(crate) fn run(text: &str, (start, end): (usize, usize), options: &RepairOptions) -> Repaired {
    let body = text.get(start..end).unwrap_or("");
    let doc = Document::new(
        Format::Yaml,
        text.to_owned(),
        Value::Null,
        SpanMap::default(),
    );
    let mut repairs: Vec<Repair> = fence(&doc, text, start, end).into_iter().collect();
    let mut fixed = String::with_capacity(body.len() + 16);
    let mut at = start;
    let mut block: Option<usize> = None;
    for line in body.split_inclusive('\n') {
        if in_block_scalar(&mut block, line) {
            fixed.push_str(line);
        } else {
            fixed.push_str(&fix_line(&doc, line, at, &mut repairs));
        }
        at += line.len();
    }
    let parsed = read(fixed.clone(), Format::Yaml, &limits(options));
    Repaired {
        value: parsed.document.map(|d| d.value),
        repairs,
        diagnostics: parsed.diagnostics,
        format: Some(Format::Yaml),
        yaml_source: Some(fixed),
        ..Repaired::default()
    }
}

pub(crate) fn repair(
    doc: &Document,
    rule: RepairRule,
    start: usize,
    end: usize,
    before: String,
    after: String,
) -> Repair {
    let location = Location::from_span(doc.span(start, end));
    Repair::new(rule.code(), location, before, after, rule.applicability())
}

/// True when `line` is content of a block scalar (`key: |` or `key: >` and the lines
/// indented deeper than that key): left as it is, tabs included. `block` holds the
/// indentation of the line that opened the scalar.
fn in_block_scalar(block: &mut Option<usize>, line: &str) -> bool {
    let content = line.trim_end_matches(['\n', '\r']);
    let indent = content.len() - content.trim_start_matches([' ', '\t']).len();
    if let Some(opener) = *block {
        if content.trim().is_empty() || indent > opener {
            return true;
        }
        *block = None;
    }
    if opens_block(content) {
        *block = Some(indent);
    }
    false
}

/// True when a line ends with a block scalar indicator (`|`, `>-`, `|2+` ...) after a key,
/// a `-`, a tag or an anchor, or alone.
fn opens_block(content: &str) -> bool {
    let head = content.split(" #").next().unwrap_or("").trim();
    let (before, last) = head.rsplit_once(' ').unwrap_or(("", head));
    let indicator = last
        .strip_prefix(['|', '>'])
        .is_some_and(|rest| rest.bytes().all(|b| matches!(b, b'-' | b'+' | b'1'..=b'9')));
    let prop = before
        .rsplit(' ')
        .next()
        .is_some_and(|t| t.starts_with(['!', '&']));
    indicator && (before.is_empty() || before.ends_with([':', '-']) || prop)
}

/// One line with leading tabs expanded and a plain value containing `: ` quoted.
fn fix_line(doc: &Document, line: &str, at: usize, repairs: &mut Vec<Repair>) -> String {
    let tabs = line.len() - line.trim_start_matches([' ', '\t']).len();
    let indent = &line[..tabs];
    let mut out = String::new();
    if indent.contains('\t') {
        out.push_str(&indent.replace('\t', "  "));
        repairs.push(repair(
            doc,
            RepairRule::YamlTabs,
            at,
            at + tabs,
            "\\t".into(),
            "  ".into(),
        ));
    } else {
        out.push_str(indent);
    }
    let rest = &line[tabs..];
    match quoted_value(rest) {
        Some((key, value, newline)) => {
            let quoted = Value::String(value.to_owned()).to_string();
            let value_at = at + tabs + key.len();
            repairs.push(repair(
                doc,
                RepairRule::YamlColonValue,
                value_at,
                value_at + value.len(),
                value.to_owned(),
                quoted.clone(),
            ));
            out.push_str(key);
            out.push_str(&quoted);
            out.push_str(newline);
        }
        None => out.push_str(rest),
    }
    out
}

/// For `key: value: more`, the `key: ` prefix and the value to quote.
fn quoted_value(rest: &str) -> Option<(&str, &str, &str)> {
    let content = rest.trim_end_matches(['\n', '\r']);
    let newline = &rest[content.len()..];
    let body = content.strip_prefix("- ").unwrap_or(content);
    let lead = content.len() - body.len();
    if body.starts_with(['#', '"', '\'', '{', '[', '-', '?', '|', '>']) {
        return None;
    }
    let colon = body.find(": ")?;
    let key_end = lead + colon + 2;
    let value = content[key_end..].trim_end();
    let first = value.chars().next()?;
    let plain = !matches!(
        first,
        '"' | '\'' | '{' | '[' | '|' | '>' | '&' | '*' | '!' | '#'
    );
    (plain && value.contains(": ") && !value.contains(" #"))
        .then(|| (&content[..key_end], value, newline))
}

#[cfg(test)]
mod tests {
    use super::quoted_value;

    #[test]
    fn only_plain_values_with_colons_are_quoted() {
        assert_eq!(
            quoted_value("a: b: c\n").map(|(k, v, _)| (k, v)),
            Some(("a: ", "b: c"))
        );
        assert_eq!(
            quoted_value("- a: b: c").map(|(k, v, _)| (k, v)),
            Some(("- a: ", "b: c"))
        );
        assert_eq!(quoted_value("a: b"), None);
        assert_eq!(quoted_value("a: \"b: c\""), None);
        assert_eq!(quoted_value("a:"), None);
        assert_eq!(quoted_value("# a: b: c"), None);
    }
}
