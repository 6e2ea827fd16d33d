//! An unfenced YAML answer, read for a schema: with no format given and no JSON found, an
//! answer written as YAML lines (`name: Ada`) whose keys are the schema's properties is read
//! as YAML — a mapping for an object schema, a sequence of mappings (`- name: Ada`) for an
//! array of objects. Lines of prose before and after the YAML (`Here is the result:`, `Let
//! me know...`) and reasoning blocks before it are dropped, recorded. Lines written as
//! Markdown (`**Name:** Ada`, `- name: Ada` for an object) are read once the Markdown around
//! their keys is taken off (`yaml.markdown_keys`), when they do not read as they are.

use rectify_core::{Document, Format, Repair, SpanMap};
use serde_json::{Map, Value};

use crate::coerce::{fold, item_properties, object_properties};
use crate::rules::RepairRule;
use crate::yaml::{repair, strict};
use crate::{RepairOptions, Repaired};

/// The YAML answer in `text` read for the schema of `options`, when there is one: its lines
/// read without error, and its keys (perhaps in another case or style: `Name: Ada`) include
/// one of the schema's properties. Prose with a colon (`Note: ...`) shares no key with it.
pub(crate) fn read(text: &str, options: &RepairOptions) -> Option<Repaired> {
    let schema = options.schema.as_ref()?;
    let (properties, list) = match object_properties(schema) {
        Some(properties) => (properties, false),
        None => (item_properties(schema)?, true),
    };
    let skip = crate::extract::answer_start(text);
    // A flow mapping (`{a: b}`) is JSON the JSON repair read or refused.
    if options.format.is_some() || text[skip..].trim_start().starts_with(['{', '[']) {
        return None;
    }
    let names: Vec<String> = properties.keys().map(|k| fold(k)).collect();
    let (start, end) = block(text, skip, &names)?;
    let fits = |out: &Repaired| shares_keys(out.value.as_ref(), list, &names);
    let (mut out, markdown) = if let Some(out) = strict(text, (start, end), options).filter(fits) {
        (out, None)
    } else {
        let plain = plain_lines(&text[start..end], !list)?;
        let out = strict(&plain, (0, plain.len()), options).filter(fits)?;
        let before = crate::log::snippet(text[start..end].trim());
        let rule = RepairRule::MarkdownKeys;
        (
            out,
            Some(repair(
                &document(text),
                rule,
                start,
                end,
                before,
                String::new(),
            )),
        )
    };
    out.repairs = prose_around(text, start, end);
    out.repairs.extend(markdown);
    Some(out)
}

/// True when `value` is a mapping (a sequence of mappings, for a `list`) whose keys include
/// one of the schema's (`names`, folded).
fn shares_keys(value: Option<&Value>, list: bool, names: &[String]) -> bool {
    let maps: Vec<&Map<String, Value>> = match (value, list) {
        (Some(Value::Object(map)), false) => vec![map],
        (Some(Value::Array(items)), true) => items.iter().filter_map(Value::as_object).collect(),
        _ => return false,
    };
    !maps.is_empty()
        && maps
            .iter()
            .all(|m| m.keys().any(|k| names.contains(&fold(k))))
}

/// Where the YAML lines of `text` (from `skip`) are: from the first line that holds one of
/// the schema's keys (`names`, folded), perhaps as a sequence item (`- name: Ada`), to the
/// last line before a blank line followed by a line that does not continue the YAML
/// (unindented, and neither one of those keys nor a sequence item).
fn block(text: &str, skip: usize, names: &[String]) -> Option<(usize, usize)> {
    let mut start = None;
    let mut end = text.len();
    let mut blank_at = None;
    let mut at = skip;
    for line in text[skip..].split_inclusive('\n') {
        let here = at;
        at += line.len();
        let content = line.trim_end();
        if start.is_none() {
            if key_line(content, names) {
                start = Some(here);
            }
            continue;
        }
        if content.is_empty() {
            blank_at.get_or_insert(here);
            continue;
        }
        let continues = content.starts_with([' ', '\t', '-']) || key_line(content, names);
        if let Some(blank) = blank_at.take()
            && !continues
        {
            end = blank;
            break;
        }
    }
    Some((start?, end))
}

/// True when `line` holds one of the schema's keys (`names`, folded) before a colon,
/// perhaps as a sequence item or written as Markdown (see [`plain_line`]).
fn key_line(line: &str, names: &[String]) -> bool {
    let plain = plain_line(line, true);
    let line = plain.as_deref().unwrap_or(line).trim_start();
    let line = line.strip_prefix("- ").unwrap_or(line).trim_start();
    line.split_once(':').is_some_and(|(key, _)| {
        let key = key.trim().trim_matches(['"', '\'']);
        names.contains(&fold(key))
    })
}

/// `block` with each line's Markdown key written plainly (see [`plain_line`]); `None` when
/// no line has one.
fn plain_lines(block: &str, object: bool) -> Option<String> {
    let mut changed = false;
    let out: String = block
        .split_inclusive('\n')
        .map(|line| {
            let content = line.trim_end_matches(['\n', '\r']);
            match plain_line(content, object) {
                Some(plain) => {
                    changed = true;
                    plain + &line[content.len()..]
                }
                None => line.to_owned(),
            }
        })
        .collect();
    changed.then_some(out)
}

/// `**Name:** Ada`, `**Name**: Ada`, `*name*: Ada`, and for an `object` a list item
/// `- name: Ada`: the line as YAML (`Name: Ada`); `None` when it has no such Markdown.
/// Underscores are no emphasis here: they belong to keys (`__init__`, `_id`).
fn plain_line(line: &str, object: bool) -> Option<String> {
    let body = line.trim_start();
    let bullet = object
        .then(|| body.strip_prefix("- ").or_else(|| body.strip_prefix("* ")))
        .flatten();
    let (indent, body) = match bullet {
        Some(rest) => ("", rest.trim_start()),
        None => (&line[..line.len() - body.len()], body),
    };
    let emphasised = ["**", "*"].iter().find_map(|mark| {
        let inner = body.strip_prefix(mark)?;
        let end = inner.find(mark)?;
        let (key, after) = (&inner[..end], &inner[end + mark.len()..]);
        let (key, after) = match key.strip_suffix(':') {
            Some(key) => (key, after),
            None => (key, after.strip_prefix(':')?),
        };
        (!key.trim().is_empty()).then(|| format!("{}: {}", key.trim(), after.trim_start()))
    });
    match (emphasised, bullet) {
        (Some(plain), _) => Some(format!("{indent}{plain}")),
        (None, Some(_)) => Some(body.to_owned()),
        (None, None) => None,
    }
}

/// The `extract.prose` repairs for the text around the YAML lines `start..end`.
fn prose_around(text: &str, start: usize, end: usize) -> Vec<Repair> {
    let doc = document(text);
    [(0, start), (end, text.len())]
        .into_iter()
        .filter(|&(a, b)| !text[a..b].trim().is_empty())
        .map(|(a, b)| {
            let dropped = crate::log::snippet(text[a..b].trim());
            repair(&doc, RepairRule::Prose, a, b, dropped, String::new())
        })
        .collect()
}

/// `text` as a document, to locate repairs in.
fn document(text: &str) -> Document {
    Document::new(
        Format::Yaml,
        text.to_owned(),
        Value::Null,
        SpanMap::default(),
    )
}
