//! The answer's text itself as the value, where the schema's root wants a scalar, an array
//! of scalars or an object of one such property and the JSON repair found nothing that fits:
//! `$1,250.00` for a number, a Markdown list for an array of enum values, `Hello` for
//! `{"answer": string}`. Reasoning blocks before the answer are no part of it, and a string
//! answer in a code fence is the fence's content.

use rectify_core::{Location, Repair, truncate_received};
use serde_json::Value;

use super::schema::{self, resolve, types};
use super::{comma_list, list, shape, text};
use crate::rules::RepairRule;
use crate::{RepairOptions, Repaired};

/// When the schema's root wants a scalar (`string`, `number`, `integer`, `boolean`, an
/// `enum` or a `const`), an array of scalars or an object of one such property, and `out` has
/// no value that fits it, the text itself read as that (see [`read_text`]), when it fits: the
/// result then holds that value and the repairs that read it (true).
pub(crate) fn text_as_root(out: &mut Repaired, text: &str, options: &RepairOptions) -> bool {
    let Some(schema) = options.schema.as_ref() else {
        return false;
    };
    // Reasoning blocks before the answer are no part of it (`<think>…</think>8.5`).
    let skip = crate::extract::answer_start(text);
    let (thinking, answer) = text.split_at(skip);
    // A string answer in a code fence is the fence's content (code, not a document to
    // repair), unless the fence holds a JSON string.
    let fenced = string_target(schema)
        .then(|| crate::extract::lone_fence(answer))
        .flatten()
        .filter(|content| serde_json::from_str::<String>(content.trim()).is_err());
    if fenced.is_none() && !reads_text(out, text, schema) {
        return false;
    }
    let text = answer;
    let read = match fenced {
        Some(content) => text::read(schema, schema, content).map(|(v, r)| (v, vec![r])),
        None => read_text(schema, schema, text, true),
    };
    let Some((value, reading)) = read else {
        return false;
    };
    if !options
        .validator()
        .and_then(Result::ok)
        .is_some_and(|validator| validator.is_valid(&value))
    {
        return false;
    }
    let mut repairs = around(thinking, fenced.is_some());
    repairs.extend(reading);
    *out = Repaired {
        value: Some(value),
        repairs,
        format: out.format,
        ..Repaired::default()
    };
    true
}

/// The repairs of what surrounds the answer read as text: the reasoning blocks dropped
/// before it (`thinking`), the code fence taken off it (`fenced`).
fn around(thinking: &str, fenced: bool) -> Vec<Repair> {
    let record = |rule: RepairRule, before: &str| {
        let before = crate::log::snippet(before.trim());
        Repair::new(
            rule.code(),
            Location::root(),
            before,
            "",
            rule.applicability(),
        )
    };
    let mut repairs = Vec::new();
    if !thinking.trim().is_empty() {
        repairs.push(record(RepairRule::Prose, thinking));
    }
    if fenced {
        repairs.push(record(RepairRule::CodeFence, ""));
    }
    repairs
}

/// The value `text` stands for under `schema` (resolved in `root`), with the repairs that
/// read it: a scalar ([`text::read`]), a list ([`list::read`], [`comma_list::read`]), or,
/// where `wrap` allows, an object of one property whose value the text is
/// (`coerce.wrap_object`).
fn read_text(root: &Value, schema: &Value, text: &str, wrap: bool) -> Option<(Value, Vec<Repair>)> {
    if scalar_schema(root, schema, 0) {
        return text::read(root, schema, text).map(|(v, r)| (v, vec![r]));
    }
    if list::list_target(root, schema) {
        return list::read(root, schema, text)
            .or_else(|| {
                let items = comma_list::items(text)?;
                list::typed(root, schema, RepairRule::CommaList, text.trim(), items)
            })
            .map(|(v, r)| (v, vec![r]));
    }
    let (key, property) = shape::single_property(resolve(root, schema)).filter(|_| wrap)?;
    let (inner, mut repairs) = read_text(root, property, text, false)?;
    let before = truncate_received(&inner);
    let wrapped = Value::Object(serde_json::Map::from_iter([(key.to_owned(), inner)]));
    let rule = RepairRule::WrapObject;
    let after = truncate_received(&wrapped);
    repairs.push(Repair::new(
        rule.code(),
        Location::root(),
        before,
        after,
        rule.applicability(),
    ));
    Some((wrapped, repairs))
}

/// Whether the text itself is read for `schema`, given what the JSON repair found (`out`):
/// when that does not fit, is no JSON, or is an object or list where a string is wanted.
fn reads_text(out: &Repaired, text: &str, schema: &Value) -> bool {
    let fits = out.value.is_some()
        && !out
            .diagnostics
            .iter()
            .any(|d| d.code == "repair.schema_mismatch");
    // Valid JSON is read as JSON: coercion, not the text, decides whether it fits. A number
    // written with thousands separators (`1,234.5`) is one number, not the candidates `1`
    // and `234.5`, even though the first fits.
    let written_number = scalar_target(schema) && text::thousands_separated(text);
    let container = out.value.as_ref().filter(|v| v.is_object() || v.is_array());
    // For a string, an object or list written as the answer is the answer's text.
    if string_target(schema) && container.is_some() {
        return true;
    }
    // A number, boolean or enum value inside an object or list found in the text is a
    // member of it, not the answer (`{"b": 2}` holds no number 2 for a number schema).
    if container.is_some_and(|v| !crate::select::is_empty(v)) {
        return false;
    }
    !((fits && !written_number) || crate::strict::is_json(text))
}

/// True when `schema` (at its root) wants a string and nothing else.
fn string_target(schema: &Value) -> bool {
    let schema = resolve(schema, schema);
    types(schema) == ["string"] && schema.get("enum").is_none() && schema.get("const").is_none()
}

/// True when `schema` (at its root) wants a scalar: every branch of an `anyOf`/`oneOf`
/// does.
fn scalar_target(schema: &Value) -> bool {
    scalar_schema(schema, schema, 0)
}

/// True when `schema` (resolved in `root`) wants a scalar.
pub(in crate::coerce) fn scalar_schema(root: &Value, schema: &Value, depth: usize) -> bool {
    let schema = resolve(root, schema);
    if let Some(branches) = schema::branches(schema) {
        return depth < 8
            && !branches.is_empty()
            && branches.iter().all(|b| scalar_schema(root, b, depth + 1));
    }
    let types = types(schema);
    schema.get("enum").is_some()
        || schema.get("const").is_some()
        || (!types.is_empty()
            && types
                .iter()
                .all(|t| matches!(*t, "string" | "number" | "integer" | "boolean" | "null")))
}

/// The repair that reads the whole (trimmed) `text` as `value` under `rule`, for the
/// readings of the text itself ([`text::read`], [`list::read`], [`comma_list::read`]).
pub(in crate::coerce) fn text_reading(
    rule: RepairRule,
    text: &str,
    value: Value,
) -> (Value, Repair) {
    let repair = Repair::new(
        rule.code(),
        Location::root(),
        truncate_received(&Value::String(text.to_owned())),
        truncate_received(&value),
        rule.applicability(),
    );
    (value, repair)
}
