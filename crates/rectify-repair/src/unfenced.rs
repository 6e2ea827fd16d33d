//! An unfenced YAML answer, read for a schema: with no format given and no JSON found, an
//! answer written as YAML lines (`name: Ada`) whose keys are the schema's properties is read
//! as YAML — a mapping for an object schema, a sequence of mappings (`- name: Ada`) for an
//! array of objects. Lines of prose before and after the YAML (`Here is the result:`, `Let
//! me know...`) and reasoning blocks before it are dropped, recorded.

use rectify_core::{Document, Format, SpanMap};
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
    let mut out = strict(text, (start, end), options)?;
    let value = out.value.as_ref()?;
    let maps: Vec<&Map<String, Value>> = match (value, list) {
        (Value::Object(map), false) => vec![map],
        (Value::Array(items), true) => items.iter().filter_map(Value::as_object).collect(),
        _ => return None,
    };
    let shares = !maps.is_empty()
        && maps
            .iter()
            .all(|m| m.keys().any(|k| names.contains(&fold(k))));
    if !shares {
        return None;
    }
    out.repairs = prose_around(text, start, end);
    Some(out)
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
/// perhaps as a sequence item.
fn key_line(line: &str, names: &[String]) -> bool {
    let line = line.trim_start();
    let line = line.strip_prefix("- ").unwrap_or(line).trim_start();
    line.split_once(':').is_some_and(|(key, _)| {
        let key = key.trim().trim_matches(['"', '\'']);
        names.contains(&fold(key))
    })
}

/// The `extract.prose` repairs for the text around the YAML lines `start..end`.
fn prose_around(text: &str, start: usize, end: usize) -> Vec<rectify_core::Repair> {
    let doc = Document::new(
        Format::Yaml,
        text.to_owned(),
        Value::Null,
        SpanMap::default(),
    );
    [(0, start), (end, text.len())]
        .into_iter()
        .filter(|&(a, b)| !text[a..b].trim().is_empty())
        .map(|(a, b)| {
            let dropped = crate::log::snippet(text[a..b].trim());
            repair(&doc, RepairRule::Prose, a, b, dropped, String::new())
        })
        .collect()
}
