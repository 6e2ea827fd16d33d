//! Schema-guided coercion: with a JSON Schema, values are nudged towards the types, enums
//! and keys it asks for, and the candidate that fits best is chosen. Every change is a
//! recorded repair; a value that still does not fit gets a `repair.schema_mismatch` error.

mod comma_list;
mod enums;
mod list;
mod object;
mod scalar;
mod schema;
mod shape;
mod text;

pub(crate) use enums::fold;

use std::cell::Cell;
use std::collections::HashSet;
use std::rc::Rc;

use rectify_core::{Diagnostic, Location, Repair, truncate_received};
use serde_json::Value;

use crate::rules::RepairRule;
use crate::{RepairOptions, Repaired};
use schema::{has_type, resolve, types};

/// Deepest value nesting coercion descends into.
const MAX_DEPTH: usize = 128;

/// Most values coerced for one repair, branches tried included: `anyOf` branches nested in
/// a deep value would otherwise multiply without bound. Past it, values are left as read.
const MAX_STEPS: usize = 100_000;

pub(crate) struct Coercer<'a> {
    root: &'a Value,
    /// Pointers of members whose value was missing in the text.
    missing: HashSet<String>,
    pub repairs: Vec<Repair>,
    pub diagnostics: Vec<Diagnostic>,
    depth: usize,
    /// Values coerced so far, shared with the trial coercers of `anyOf` branches.
    steps: Rc<Cell<usize>>,
    /// Whether unsafe repairs are allowed. A coercion whose refusal would tell the model
    /// less than the plain mismatch (`coerce.json_as_string`) is tried only then.
    allow_unsafe: bool,
}

impl<'a> Coercer<'a> {
    fn new(root: &'a Value, missing: HashSet<String>, allow_unsafe: bool) -> Self {
        Coercer {
            root,
            missing,
            repairs: Vec::new(),
            diagnostics: Vec::new(),
            depth: 0,
            steps: Rc::default(),
            allow_unsafe,
        }
    }

    fn record(&mut self, rule: RepairRule, pointer: &str, before: &Value, after: &Value) {
        self.record_text(rule, pointer, truncate_received(before), after);
    }

    fn record_text(&mut self, rule: RepairRule, pointer: &str, before: String, after: &Value) {
        self.repairs.push(Repair::new(
            rule.code(),
            Location::from_pointer(pointer),
            before,
            truncate_received(after),
            rule.applicability(),
        ));
    }

    /// Coerces `v` towards `schema`.
    fn coerce(&mut self, v: Value, schema: &Value, pointer: &str) -> Value {
        let root = self.root;
        let schema = resolve(root, schema);
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if self.depth > MAX_DEPTH || steps > MAX_STEPS || !schema.is_object() {
            return v;
        }
        self.depth += 1;
        let out = self.coerce_resolved(v, schema, pointer);
        self.depth -= 1;
        out
    }

    fn coerce_resolved(&mut self, v: Value, schema: &Value, pointer: &str) -> Value {
        if let Some(branches) = schema::branches(schema) {
            return self.branch(v, branches, pointer);
        }
        let types = types(schema);
        if v.is_null()
            && self.missing.contains(pointer)
            && let Some(filled) = self.fill_missing(schema, &types, pointer)
        {
            return filled;
        }
        // A `const` is matched as an enum of one value (`"HI"` for `"hi"`).
        let allowed = match (schema.get("enum"), schema.get("const")) {
            (Some(Value::Array(e)), _) => Some(e.as_slice()),
            (None, Some(c)) => Some(std::slice::from_ref(c)),
            _ => None,
        };
        let v = self.unwrap_member(v, schema, pointer);
        let v = match allowed {
            Some(allowed) if v.is_array() && !allowed.contains(&v) => {
                self.unwrap(&v, &types, pointer).unwrap_or(v)
            }
            _ => v,
        };
        if let Some(allowed) = allowed
            && let Some(hit) = self.enum_match(&v, allowed, pointer)
        {
            return hit;
        }
        let v = self.unwrap_object(v, schema, pointer);
        let v = if has_type(&v, &types) {
            v
        } else {
            self.convert(v, schema, &types, pointer)
        };
        match v {
            Value::Object(map) => self.object(map, schema, pointer),
            Value::Array(items) => self.items(items, schema, pointer),
            v => v,
        }
    }

    /// Converts `v` to one of `types` where a rule applies; otherwise returns it unchanged.
    fn convert(&mut self, v: Value, schema: &Value, types: &[&str], pointer: &str) -> Value {
        if let Some(out) = self.embedded(&v, types, pointer) {
            return out;
        }
        if let Some(out) = self.unwrap(&v, types, pointer) {
            return self.convert(out, schema, types, pointer);
        }
        if let Some(out) = self.scalar(&v, types, pointer) {
            return out;
        }
        if types.contains(&"array")
            && let Some(list) = self.split_list(&v, schema, pointer)
        {
            return list;
        }
        if types.contains(&"array") && !v.is_array() && !v.is_null() && self.item_takes(&v, schema)
        {
            return self.wrap(v, pointer);
        }
        if types == ["object"]
            && let Some(out) = self.wrap_member(&v, schema, pointer)
        {
            return out;
        }
        v
    }

    /// True when the items of the array `schema` take `v` as it is (any value, without
    /// `items`): wrapping it then ends. A recursive schema (`items` referring back to an
    /// array) would otherwise wrap without end.
    pub(super) fn item_takes(&self, v: &Value, schema: &Value) -> bool {
        schema
            .get("items")
            .is_none_or(|items| takes(self.root, items, v, 0))
    }

    fn items(&mut self, items: Vec<Value>, schema: &Value, pointer: &str) -> Value {
        let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) else {
            return Value::Array(items);
        };
        let out = items
            .into_iter()
            .enumerate()
            .map(|(i, item)| self.coerce(item, item_schema, &format!("{pointer}/{i}")))
            .collect();
        Value::Array(out)
    }

    /// A coercer for a trial whose repairs may be discarded, sharing this one's depth and
    /// step budget.
    fn trial(&self) -> Coercer<'a> {
        let mut trial = Coercer::new(self.root, self.missing.clone(), self.allow_unsafe);
        trial.depth = self.depth;
        trial.steps = Rc::clone(&self.steps);
        trial
    }

    /// `anyOf`/`oneOf`: the first branch that takes the value as it is, else the first
    /// branch the value fits after coercion (repairs of the other branches are discarded).
    /// A value that fits is never reshaped for another branch.
    fn branch(&mut self, v: Value, branches: &[Value], pointer: &str) -> Value {
        let root = self.root;
        let as_is = branches.iter().filter(|b| takes(root, b, &v, 0));
        let chosen: Vec<&Value> = match as_is.clone().next() {
            Some(_) => as_is.collect(),
            None => branches.iter().collect(),
        };
        for branch in chosen {
            let mut trial = self.trial();
            let out = trial.coerce(v.clone(), branch, pointer);
            if schema::fits(self.root, branch, &out, 0) {
                self.repairs.extend(trial.repairs);
                self.diagnostics.extend(trial.diagnostics);
                return out;
            }
        }
        v
    }
}

/// True when `schema` takes `v` as it is (see [`schema::fits`]), through `anyOf`/`oneOf`
/// branches too.
fn takes(root: &Value, schema: &Value, v: &Value, depth: usize) -> bool {
    let schema = resolve(root, schema);
    match schema::branches(schema) {
        Some(branches) => depth < 8 && branches.iter().any(|b| takes(root, b, v, depth + 1)),
        None => schema::fits(root, schema, v, 0),
    }
}

/// Coerces `out.value` towards the schema, then reports whether it fits.
pub(crate) fn apply_to(out: &mut Repaired, options: &RepairOptions) {
    let Some(schema) = &options.schema else {
        return;
    };
    let Some(value) = out.value.take() else {
        return;
    };
    let validator = match options.validator() {
        Some(Ok(v)) => v,
        Some(Err(err)) => {
            out.diagnostics.push(invalid_schema(&err));
            return;
        }
        None => return,
    };
    let missing = out
        .repairs
        .iter()
        .filter(|r| r.code == RepairRule::MissingValue.code())
        .map(|r| r.location.pointer.clone())
        .collect();
    let mut c = Coercer::new(schema, missing, options.allow_unsafe);
    let value = c.coerce(value, schema, "");
    out.repairs.extend(c.repairs);
    out.diagnostics.extend(c.diagnostics);
    out.diagnostics.extend(mismatches(&validator, &value));
    out.value = Some(value);
}

/// When the schema's root wants a scalar (`string`, `number`, `integer`, `boolean`, an
/// `enum` or a `const`) or an array of strings, and `out` has no value that fits it, the text
/// itself read as that scalar ([`text::read`]), as a Markdown list ([`list::read`]) or as one
/// line of comma-separated items ([`comma_list::read`]), when it
/// fits: the result then holds that value and the one repair that read it (true).
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
    let around = |rule: RepairRule, before: &str| {
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
        repairs.push(around(RepairRule::Prose, thinking));
    }
    if fenced.is_some() {
        repairs.push(around(RepairRule::CodeFence, ""));
    }
    repairs.extend(reading);
    *out = Repaired {
        value: Some(value),
        repairs,
        format: out.format,
        ..Repaired::default()
    };
    true
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
pub(super) fn scalar_schema(root: &Value, schema: &Value, depth: usize) -> bool {
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
pub(super) fn text_reading(rule: RepairRule, text: &str, value: Value) -> (Value, Repair) {
    let repair = Repair::new(
        rule.code(),
        Location::root(),
        truncate_received(&Value::String(text.to_owned())),
        truncate_received(&value),
        rule.applicability(),
    );
    (value, repair)
}

/// The properties of the schema's root, when it wants an object (and nothing else).
pub(crate) fn object_properties(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    let root = resolve(schema, schema);
    if types(root) != ["object"] {
        return None;
    }
    root.get("properties")?.as_object()
}

/// True when the schema's root wants an array (and nothing else).
pub(crate) fn array_target(schema: &Value) -> bool {
    types(resolve(schema, schema)) == ["array"]
}

/// How well each candidate fits `schema` after coercion: the errors left, then the
/// coercions made (fewer is better in both).
pub(crate) fn candidate_scores(
    values: &[Value],
    options: &RepairOptions,
) -> Option<Vec<(usize, usize)>> {
    let schema = options.schema.as_ref()?;
    let validator = options.validator()?.ok()?;
    let scores = values
        .iter()
        .map(|v| {
            let mut c = Coercer::new(schema, HashSet::new(), options.allow_unsafe);
            let coerced = c.coerce(v.clone(), schema, "");
            (validator.iter_errors(&coerced).count(), c.repairs.len())
        })
        .collect();
    Some(scores)
}

/// The index of the best of `scores` (see [`candidate_scores`]), and whether several that
/// fit are tied.
pub(crate) fn best_candidate(scores: &[(usize, usize)]) -> Option<(usize, bool)> {
    let best = *scores.iter().min()?;
    let first = scores.iter().position(|&s| s == best)?;
    let tied = scores.iter().filter(|&&s| s == best).count() > 1;
    Some((first, tied && best.0 == 0))
}

fn mismatches(validator: &jsonschema::Validator, value: &Value) -> Vec<Diagnostic> {
    validator
        .iter_errors(value)
        .take(20)
        .map(|e| {
            let pointer = e.instance_path().as_str().to_owned();
            Diagnostic::error(
                "repair.schema_mismatch",
                Location::from_pointer(&pointer),
                format!("the repaired value does not fit the schema: {e}"),
            )
            .source("repair")
        })
        .collect()
}

fn invalid_schema(message: &str) -> Diagnostic {
    Diagnostic::error(
        "repair.invalid_schema",
        Location::root(),
        format!("the schema given for repair is invalid: {message}"),
    )
    .source("repair")
}
