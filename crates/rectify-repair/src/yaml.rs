//! YAML payloads: fenced YAML (or any text when the format is given as YAML), with a
//! line-based pre-pass for two common model mistakes — tabs used for indentation
//! (`yaml.tabs`) and plain values containing `: ` (`yaml.colon_in_value`) — before the
//! document is read by `rectify_parse`'s YAML reader. A YAML answer that is really JSON goes
//! to the JSON repair. Deeper YAML repair (unbalanced flow collections, broken block
//! scalars) is not attempted: the reader's diagnostics are passed on.

use rectify_core::{Document, Format, Location, Repair, SpanMap};
use rectify_parse::{Limits, read};
use serde_json::Value;

use crate::extract::regions;
use crate::rules::Rule;
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

/// Repairs and reads the YAML in `text[start..end]`.
pub(crate) fn run(text: &str, (start, end): (usize, usize), options: &RepairOptions) -> Repaired {
    let body = text.get(start..end).unwrap_or("");
    let doc = Document::new(
        Format::Yaml,
        text.to_owned(),
        Value::Null,
        SpanMap::default(),
    );
    let mut repairs = Vec::new();
    if start > 0 || end < text.len() {
        repairs.push(repair(
            &doc,
            Rule::CodeFence,
            start,
            start,
            String::new(),
            String::new(),
        ));
    }
    let mut fixed = String::with_capacity(body.len() + 16);
    let mut at = start;
    for line in body.split_inclusive('\n') {
        fixed.push_str(&fix_line(&doc, line, at, &mut repairs));
        at += line.len();
    }
    let limits = Limits {
        max_depth: options.max_depth,
        ..Limits::default()
    };
    let parsed = read(fixed, Format::Yaml, &limits);
    Repaired {
        value: parsed.document.map(|d| d.value),
        repairs,
        diagnostics: parsed.diagnostics,
        format: Some(Format::Yaml),
        ..Repaired::default()
    }
}

fn repair(
    doc: &Document,
    rule: Rule,
    start: usize,
    end: usize,
    before: String,
    after: String,
) -> Repair {
    let location = Location::from_span(doc.span(start, end));
    Repair::new(rule.code(), location, before, after, rule.applicability())
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
            Rule::YamlTabs,
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
                Rule::YamlColonValue,
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
