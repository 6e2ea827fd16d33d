//! Reading a JSON Schema for coercion: `$ref` resolution, declared types, and a quick
//! structural fit test used to pick a branch of `anyOf`/`oneOf`.

use serde_json::Value;

/// Most `$ref` hops followed before giving up (guards against reference cycles).
const MAX_REFS: usize = 32;

/// The schema `schema` stands for after following local `$ref`s into `root`.
pub(crate) fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_REFS {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            return schema;
        };
        let Some(target) = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
        else {
            return schema;
        };
        schema = target;
    }
    schema
}

/// The branches of an `anyOf` or `oneOf`, if `schema` has them.
pub(crate) fn branches(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
}

/// The types `schema` declares (`type`, or implied by `const`/`enum`); empty when any.
pub(crate) fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// True when `schema` takes any string: it declares `string` and no `enum` or `const`.
pub(crate) fn any_string(schema: &Value) -> bool {
    types(schema).contains(&"string")
        && schema.get("enum").is_none()
        && schema.get("const").is_none()
}

/// True when `schema` names `null` among its values: a `null` type, a `null` branch of
/// `anyOf`/`oneOf`, or `null` in its `enum`/`const` (a schema that takes anything does not).
pub(crate) fn names_null(root: &Value, schema: &Value, depth: usize) -> bool {
    let schema = resolve(root, schema);
    if depth > 16 {
        return false;
    }
    types(schema).contains(&"null")
        || schema.get("const").is_some_and(Value::is_null)
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.iter().any(Value::is_null))
        || branches(schema).is_some_and(|b| b.iter().any(|b| names_null(root, b, depth + 1)))
}

/// The JSON type name of a value; integers are `integer`.
pub(crate) fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// True when `v` has one of the `types` (any type when the list is empty).
pub(crate) fn has_type(v: &Value, types: &[&str]) -> bool {
    let t = type_of(v);
    types.is_empty()
        || types.contains(&t)
        || (t == "integer" && types.contains(&"number"))
        || (t == "number" && types.contains(&"integer") && is_integral(v))
}

fn is_integral(v: &Value) -> bool {
    v.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A quick structural fit: types, `const`, `enum` and required properties, recursively
/// through `properties` and `items`.
pub(crate) fn fits(root: &Value, schema: &Value, v: &Value, depth: usize) -> bool {
    let schema = resolve(root, schema);
    if depth > 64 || schema.as_bool() == Some(true) {
        return true;
    }
    if !has_type(v, &types(schema))
        || schema.get("const").is_some_and(|c| c != v)
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.contains(v))
    {
        return false;
    }
    match v {
        Value::Object(map) => {
            let required = schema.get("required").and_then(Value::as_array);
            let has_all = required.is_none_or(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .all(|k| map.contains_key(k))
            });
            has_all
                && map.iter().all(|(k, item)| {
                    schema
                        .get("properties")
                        .and_then(|p| p.get(k))
                        .is_none_or(|s| fits(root, s, item, depth + 1))
                })
        }
        Value::Array(items) => schema
            .get("items")
            .is_none_or(|s| items.iter().all(|item| fits(root, s, item, depth + 1))),
        _ => true,
    }
}
