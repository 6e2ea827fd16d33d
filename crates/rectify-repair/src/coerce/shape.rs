//! Shape coercions: JSON text inside a string where the schema wants an object or array, a
//! comma-separated string where it wants a list of numbers or enum values, a single value
//! where it wants an array, a one-element array where it wants a scalar or an object, a
//! one-member wrapper around the value it wants (and the value alone where it wants that
//! wrapper), and a value for a member whose value was missing.

use serde_json::Value;

use rectify_core::truncate_received as truncate;

use super::Coercer;
use super::schema::{has_type, type_of, types};
use crate::rules::RepairRule;

impl Coercer<'_> {
    /// A string holding JSON of a wanted container type, parsed.
    pub(super) fn embedded(&mut self, v: &Value, types: &[&str], pointer: &str) -> Option<Value> {
        let Value::String(s) = v else { return None };
        let trimmed = s.trim();
        let container = types.contains(&"object") || types.contains(&"array");
        if !container || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
            return None;
        }
        // JSON a model wrote loosely (`"{'a': 1}"`) is read with safe repairs only.
        let parsed: Value = if let Ok(parsed) = serde_json::from_str(trimmed) {
            parsed
        } else {
            let out = crate::repair(trimmed, &crate::RepairOptions::default());
            if !out.is_valid() {
                return None;
            }
            out.value?
        };
        if !types.contains(&type_of(&parsed)) {
            return None;
        }
        self.record(RepairRule::EmbeddedJson, pointer, v, &parsed);
        Some(parsed)
    }

    /// `"1, 2, 3"` → `["1", "2", "3"]` where the schema wants an array of numbers, booleans or
    /// enum values and every item then fits (a string item could hold a comma itself).
    pub(super) fn split_list(&mut self, v: &Value, schema: &Value, pointer: &str) -> Option<Value> {
        let Value::String(s) = v else { return None };
        let items = super::schema::resolve(self.root, schema.get("items")?);
        if !s.contains(',')
            || super::schema::any_string(items)
            || !super::scalar_schema(self.root, items, 0)
        {
            return None;
        }
        let (list, _) = super::comma_list::read(s)?;
        let mut trial = self.trial();
        let out = trial.coerce(list.clone(), schema, pointer);
        if !super::schema::fits(self.root, schema, &out, 0) {
            return None;
        }
        self.record(RepairRule::CommaList, pointer, v, &list);
        Some(list)
    }

    /// `x` → `[x]` where the schema wants an array.
    pub(super) fn wrap(&mut self, v: Value, pointer: &str) -> Value {
        let before = truncate(&v);
        let out = Value::Array(vec![v]);
        self.record_text(RepairRule::WrapArray, pointer, before, &out);
        out
    }

    /// `[x]` → `x` where the schema wants one of the scalar `types` (or an enum value, whose
    /// schema may declare none), or `[{...}]` → `{...}` where it wants an object.
    pub(super) fn unwrap(&mut self, v: &Value, types: &[&str], pointer: &str) -> Option<Value> {
        let Value::Array(items) = v else { return None };
        let [only] = items.as_slice() else {
            return None;
        };
        let scalar = types
            .iter()
            .all(|t| matches!(*t, "string" | "number" | "integer" | "boolean" | "null"));
        let fits = match only {
            Value::Array(_) => false,
            Value::Object(_) => types == ["object"],
            _ => scalar,
        };
        if !fits {
            return None;
        }
        self.record(RepairRule::UnwrapArray, pointer, v, only);
        Some(only.clone())
    }

    /// `42` → `{"value": 42}` where the schema's root wants an object of one property and
    /// `v` (no object) fits that property: a model that answered with the value alone. The
    /// key is the schema's (recorded, unsafe). Inside the answer, such a value is a mismatch
    /// to report, not an answer to reshape.
    pub(super) fn wrap_member(
        &mut self,
        v: &Value,
        schema: &Value,
        pointer: &str,
    ) -> Option<Value> {
        if v.is_object() || v.is_null() || !pointer.is_empty() {
            return None;
        }
        let (key, property) = single_property(schema)?;
        // A list goes into a list property, a scalar into a scalar one: never a list turned
        // into text, nor a value wrapped twice.
        let wants_list = types(super::schema::resolve(self.root, property)) == ["array"];
        if v.is_array() != wants_list
            || !(v.is_array() || super::scalar_schema(self.root, property, 0))
        {
            return None;
        }
        let mut child = pointer.to_owned();
        rectify_core::push_pointer(&mut child, key);
        let out = self.trial().coerce(v.clone(), property, &child);
        if !super::schema::fits(self.root, property, &out, 0) {
            return None;
        }
        let wrapped = Value::Object(serde_json::Map::from_iter([(key.to_owned(), v.clone())]));
        self.record(RepairRule::WrapObject, pointer, v, &wrapped);
        Some(wrapped)
    }

    /// `{"result": {...}}` → `{...}` where the schema wants properties the wrapper does not
    /// have and the inner object does: a model that wrapped its answer in one more object.
    pub(super) fn unwrap_object(&mut self, v: Value, schema: &Value, pointer: &str) -> Value {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return v;
        };
        // A wrapper the schema allows (no required property missing, extra keys allowed)
        // already fits: it is left alone.
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let required = schema.get("required").and_then(Value::as_array);
        let inner = match &v {
            Value::Object(map) if map.len() == 1 => match map.iter().next() {
                Some((key, Value::Object(inner)))
                    if !properties.contains_key(key)
                        && (closed
                            || required
                                .is_some_and(|r| r.iter().any(|p| p.as_str() != Some(key))))
                        && inner.keys().any(|k| properties.contains_key(k)) =>
                {
                    Value::Object(inner.clone())
                }
                _ => return v,
            },
            _ => return v,
        };
        self.record(RepairRule::UnwrapObject, pointer, &v, &inner);
        inner
    }

    /// `{"answer": "TWO"}` → `"TWO"` where the schema wants a scalar other than any string
    /// (a number, a boolean, an enum value), `{"tags": [...]}` → `[...]` where it wants an
    /// array: a model that wrapped
    /// its one answer in an object (the key is dropped, recorded).
    pub(super) fn unwrap_member(&mut self, v: Value, schema: &Value, pointer: &str) -> Value {
        let inner = match &v {
            Value::Object(map) if map.len() == 1 => match map.values().next() {
                Some(inner) if !inner.is_object() => inner.clone(),
                _ => return v,
            },
            _ => return v,
        };
        let wanted = if inner.is_array() {
            // `{"tags": [...]}` where the schema wants the list itself, and its items do not
            // take the object (then the object is an item: `coerce.wrap_array`).
            super::schema::types(schema) == ["array"] && !self.item_takes(&v, schema)
        } else {
            // Any string takes the object's JSON text instead (`coerce.json_as_string`).
            !super::schema::any_string(schema) && super::scalar_schema(self.root, schema, 0)
        };
        if !wanted {
            return v;
        }
        self.record(RepairRule::UnwrapObject, pointer, &v, &inner);
        inner
    }

    /// The value for a member whose value was missing in the text: the schema's `default`,
    /// else the empty value of its first type.
    pub(super) fn fill_missing(
        &mut self,
        schema: &Value,
        types: &[&str],
        pointer: &str,
    ) -> Option<Value> {
        if has_type(&Value::Null, types) && !types.is_empty() {
            return None;
        }
        let out = match schema.get("default") {
            Some(d) => d.clone(),
            None => match types.first().copied()? {
                "string" => Value::String(String::new()),
                "integer" | "number" => Value::from(0),
                "boolean" => Value::Bool(false),
                "array" => Value::Array(Vec::new()),
                "object" => Value::Object(serde_json::Map::new()),
                _ => return None,
            },
        };
        self.record(RepairRule::SchemaDefault, pointer, &Value::Null, &out);
        Some(out)
    }
}

/// The one property of the object `schema` wants, with its schema: `None` when it has
/// several or none, or requires another.
pub(super) fn single_property(schema: &Value) -> Option<(&str, &Value)> {
    let properties = schema.get("properties")?.as_object()?;
    let mut iter = properties.iter();
    let (key, property) = iter.next().filter(|_| iter.next().is_none())?;
    let others_required = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|p| p.as_str() != Some(key)));
    (!others_required && types(schema) == ["object"]).then_some((key.as_str(), property))
}
