//! Schema-guided coercion: with a JSON Schema, values are nudged towards the types, enums
//! and keys it asks for, and the candidate that fits best is chosen. Every change is a
//! recorded repair; a value that still does not fit gets a `repair.schema_mismatch` error.

mod comma_list;
mod enums;
mod key_typo;
mod list;
mod object;
mod root;
mod scalar;
mod schema;
mod shape;
mod text;

pub(crate) use enums::fold;
pub(crate) use root::text_as_root;
use root::{scalar_schema, text_reading};

use std::cell::Cell;
use std::collections::HashSet;
use std::rc::Rc;

use rectify_core::{Applicability, Diagnostic, Location, Repair, truncate_received};
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
        crate::work::add(1);
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

    /// `anyOf`/`oneOf`: among the branches that take the value as it is (else all of them),
    /// the first the value fits after a coercion with no unsafe repair; failing that, the
    /// one it fits with the fewest unsafe repairs (the first of a tie). `3.14` for
    /// `integer | string` is `"3.14"`, not a rounded `3`. Repairs of the other branches are
    /// discarded. A value that fits is never reshaped for another branch. A trial that ran
    /// out of the step budget counts for nothing, and none is started after it.
    fn branch(&mut self, v: Value, branches: &[Value], pointer: &str) -> Value {
        let root = self.root;
        let as_is = branches.iter().filter(|b| takes(root, b, &v, 0));
        let chosen: Vec<&Value> = match as_is.clone().next() {
            Some(_) => as_is.collect(),
            None => branches.iter().collect(),
        };
        let mut best: Option<(usize, Value, Coercer<'a>)> = None;
        for branch in chosen {
            let mut trial = self.trial();
            let out = trial.coerce(v.clone(), branch, pointer);
            if self.steps.get() > MAX_STEPS {
                break;
            }
            if !schema::fits(self.root, branch, &out, 0) {
                continue;
            }
            let risky = trial
                .repairs
                .iter()
                .filter(|r| r.applicability == Applicability::Unsafe)
                .count();
            if best.as_ref().is_none_or(|(least, ..)| risky < *least) {
                best = Some((risky, out, trial));
            }
            if risky == 0 {
                break;
            }
        }
        let Some((_, out, trial)) = best else {
            return v;
        };
        self.repairs.extend(trial.repairs);
        self.diagnostics.extend(trial.diagnostics);
        out
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

/// The properties of the schema's root, when it wants an object (and nothing else).
pub(crate) fn object_properties(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    let root = resolve(schema, schema);
    if types(root) != ["object"] {
        return None;
    }
    root.get("properties")?.as_object()
}

/// The properties of the objects the schema's root wants as the items of an array.
pub(crate) fn item_properties(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    let root = resolve(schema, schema);
    if types(root) != ["array"] {
        return None;
    }
    let items = resolve(schema, root.get("items")?);
    (types(items) == ["object"]).then(|| items.get("properties")?.as_object())?
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
