//! Turning a `jsonschema` error into diagnostics: code `schema.<keyword>`, a location in the
//! document, a short message in the feedback style and `expected`/`received`.

use std::borrow::Cow;
use std::fmt::Write as _;

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};
use rectify_core::{Diagnostic, Document, push_pointer, truncate_received};
use serde_json::Value;

use super::compile::lowercase_first;

/// What one error says, before it is located.
struct Described {
    message: String,
    expected: Option<String>,
    received: Option<String>,
}

impl Described {
    fn new(message: String) -> Described {
        Described {
            message,
            expected: None,
            received: None,
        }
    }

    fn expected(mut self, expected: impl Into<String>) -> Described {
        self.expected = Some(expected.into());
        self
    }

    fn received(mut self, value: &Value) -> Described {
        self.received = Some(received_text(value));
        self
    }
}

/// Appends the diagnostics for `error` (usually one; one per field for `additionalProperties`).
pub(super) fn push_diagnostics(
    error: &ValidationError<'_>,
    doc: &Document,
    out: &mut Vec<Diagnostic>,
) {
    let code = code_of(error.kind().keyword());
    let pointer = error.instance_path().as_str();
    let instance = error.instance().as_ref();
    let mut emit = |pointer: &str, d: Described| {
        let mut diag = Diagnostic::error(&*code, doc.locate(pointer), d.message);
        diag.expected = d.expected;
        diag.received = d.received;
        out.push(diag);
    };
    match error.kind() {
        Kind::Required { property } => {
            let name: Cow<'_, str> = property
                .as_str()
                .map_or_else(|| Cow::Owned(property.to_string()), Cow::Borrowed);
            let mut child = String::with_capacity(pointer.len() + name.len() + 1);
            child.push_str(pointer);
            push_pointer(&mut child, &name);
            let d = Described::new(format!("missing required field {property}"))
                .expected(format!("field {property}"));
            emit(&child, d);
        }
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                let mut child = pointer.to_owned();
                push_pointer(&mut child, name);
                let mut d = Described::new(format!(
                    "field {} is not allowed here",
                    Value::String(name.clone())
                ))
                .expected("only the fields the schema declares");
                if let Some(v) = instance.get(name) {
                    d = d.received(v);
                }
                emit(&child, d);
            }
        }
        Kind::UniqueItems => {
            let (pointer, d) = duplicate_item(pointer, instance);
            emit(&pointer, d);
        }
        kind => emit(pointer, describe(kind, instance)),
    }
}

fn describe(kind: &Kind, instance: &Value) -> Described {
    match kind {
        Kind::Type { kind } => describe_type(kind, instance),
        Kind::Enum { options } => describe_enum(options, instance),
        Kind::Constant { expected_value } => {
            let expected = truncate_received(expected_value);
            Described::new(format!(
                "expected {expected}, got {}",
                truncate_received(instance)
            ))
            .expected(expected)
            .received(instance)
        }
        Kind::MinLength { limit } => size(
            "at least",
            *limit,
            "character",
            string_len(instance),
            instance,
        ),
        Kind::MaxLength { limit } => size(
            "at most",
            *limit,
            "character",
            string_len(instance),
            instance,
        ),
        Kind::MinItems { limit } => size("at least", *limit, "item", array_len(instance), instance),
        Kind::MaxItems { limit } => size("at most", *limit, "item", array_len(instance), instance),
        Kind::AdditionalItems { limit } => size(
            "at most",
            *limit as u64,
            "item",
            array_len(instance),
            instance,
        ),
        Kind::MinProperties { limit } => {
            size("at least", *limit, "field", object_len(instance), instance)
        }
        Kind::MaxProperties { limit } => {
            size("at most", *limit, "field", object_len(instance), instance)
        }
        Kind::Minimum { limit } => bound(">=", limit, instance),
        Kind::Maximum { limit } => bound("<=", limit, instance),
        Kind::ExclusiveMinimum { limit } => bound(">", limit, instance),
        Kind::ExclusiveMaximum { limit } => bound("<", limit, instance),
        Kind::MultipleOf { multiple_of } => {
            let expected = format!("a multiple of {multiple_of}");
            Described::new(format!(
                "expected {expected}, got {}",
                truncate_received(instance)
            ))
            .expected(expected)
            .received(instance)
        }
        kind => describe_structural(kind, instance),
    }
}

fn describe_structural(kind: &Kind, instance: &Value) -> Described {
    let got = truncate_received(instance);
    match kind {
        Kind::Pattern { pattern } => Described::new(format!(
            "{got} does not match the pattern {}",
            quoted(pattern)
        ))
        .expected(format!("a string matching {}", quoted(pattern)))
        .received(instance),
        Kind::Format { format } => Described::new(format!("{got} is not a valid {format}"))
            .expected(format!("a valid {format}"))
            .received(instance),
        Kind::AnyOf { context } => alternatives("anyOf", context, instance),
        Kind::OneOfNotValid { context } => alternatives("oneOf", context, instance),
        Kind::OneOfMultipleValid { .. } => {
            Described::new("matches more than one alternative of \"oneOf\"".to_owned())
                .expected("exactly one matching alternative")
                .received(instance)
        }
        Kind::Not { schema } => {
            Described::new("matches a schema it must not match (\"not\")".to_owned())
                .expected(format!("not {}", truncate_received(schema)))
                .received(instance)
        }
        Kind::Contains => Described::new("no item matches the schema of \"contains\"".to_owned())
            .expected("at least one matching item")
            .received(instance),
        Kind::FalseSchema => Described::new("no value is allowed here".to_owned())
            .expected("nothing")
            .received(instance),
        Kind::PropertyNames { error } => Described::new(format!(
            "field name {got} is invalid: {}",
            describe(error.kind(), error.instance().as_ref()).message
        ))
        .received(instance),
        Kind::UnevaluatedItems { unexpected } => Described::new(format!(
            "items {} are not allowed here",
            unexpected.join(", ")
        ))
        .expected("only the items the schema declares")
        .received(instance),
        Kind::Referencing(err) => Described::new(format!(
            "cannot resolve a reference in the schema: {}",
            lowercase_first(&err.to_string())
        )),
        Kind::Custom { message, .. } | Kind::RegexEngineFailure { message } => {
            Described::new(lowercase_first(message)).received(instance)
        }
        other => {
            Described::new(lowercase_first(&other_message(other, instance))).received(instance)
        }
    }
}

fn other_message(kind: &Kind, instance: &Value) -> String {
    match kind {
        Kind::ContentEncoding { content_encoding } => {
            format!("not valid {content_encoding} content")
        }
        Kind::ContentMediaType { content_media_type } => {
            format!("not valid {content_media_type} content")
        }
        Kind::FromUtf8 { error } => format!("decoded content is not UTF-8: {error}"),
        Kind::BacktrackLimitExceeded { error } => {
            format!("the pattern could not be evaluated: {error}")
        }
        other => format!(
            "{} is invalid ({})",
            truncate_received(instance),
            other.keyword()
        ),
    }
}

fn describe_type(kind: &TypeKind, instance: &Value) -> Described {
    let expected = match kind {
        TypeKind::Single(t) => t.to_string(),
        TypeKind::Multiple(set) => {
            let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
            join_or(&names)
        }
    };
    Described::new(format!("expected {expected}, got {}", type_name(instance)))
        .expected(expected)
        .received(instance)
}

fn describe_enum(options: &Value, instance: &Value) -> Described {
    let list = options
        .as_array()
        .map(|items| render_list(items, 10))
        .unwrap_or_default();
    Described::new(format!(
        "{} is not one of the allowed values ({list})",
        truncate_received(instance)
    ))
    .expected(format!("one of {list}"))
    .received(instance)
}

fn size(
    relation: &str,
    limit: u64,
    unit: &str,
    actual: Option<usize>,
    instance: &Value,
) -> Described {
    let plural = |n: u64| {
        if n == 1 {
            unit.to_owned()
        } else {
            format!("{unit}s")
        }
    };
    let expected = format!("{relation} {limit} {}", plural(limit));
    let message = match actual {
        Some(n) => format!("expected {expected}, got {n}"),
        None => format!("expected {expected}"),
    };
    Described::new(message)
        .expected(expected)
        .received(instance)
}

fn bound(op: &str, limit: &Value, instance: &Value) -> Described {
    let expected = format!("a number {op} {limit}");
    Described::new(format!(
        "expected {expected}, got {}",
        truncate_received(instance)
    ))
    .expected(expected)
    .received(instance)
}

fn alternatives(
    keyword: &str,
    context: &[Vec<ValidationError<'static>>],
    instance: &Value,
) -> Described {
    let closest = context
        .iter()
        .filter(|branch| !branch.is_empty())
        .min_by_key(|branch| branch.len())
        .and_then(|branch| branch.first());
    let mut message = format!(
        "does not match any of the {} alternatives of \"{keyword}\"",
        context.len()
    );
    if let Some(err) = closest {
        let path = rectify_core::pointer_to_path(err.instance_path().as_str());
        let inner = describe(err.kind(), err.instance().as_ref()).message;
        let _ = write!(message, " (closest: {path}: {inner})");
    }
    Described::new(message)
        .expected(format!("a value matching one alternative of \"{keyword}\""))
        .received(instance)
}

/// The first item equal to an earlier one, as the location of a `uniqueItems` error.
fn duplicate_item(pointer: &str, instance: &Value) -> (String, Described) {
    let items = instance.as_array().map(Vec::as_slice).unwrap_or_default();
    for (j, item) in items.iter().enumerate() {
        if let Some(i) = items.iter().take(j).position(|earlier| earlier == item) {
            let mut child = pointer.to_owned();
            push_pointer(&mut child, &j.to_string());
            let d = Described::new(format!("duplicate item (same as item [{i}])"))
                .expected("unique items")
                .received(item);
            return (child, d);
        }
    }
    let d = Described::new("items are not unique".to_owned())
        .expected("unique items")
        .received(instance);
    (pointer.to_owned(), d)
}

/// [`truncate_received`] without its second allocation for the common short value.
fn received_text(value: &Value) -> String {
    let small = match value {
        Value::Array(items) => items.len() <= 20,
        Value::Object(map) => map.len() <= 20,
        _ => true,
    };
    if small {
        let text = value.to_string();
        if text.len() <= 80 {
            return text;
        }
    }
    truncate_received(value)
}

/// JSON type name of a value, telling integers from other numbers.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            let text = n.to_string();
            if text.contains(['.', 'e', 'E']) {
                "number"
            } else {
                "integer"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Values as a short comma-separated list, capped at `max` items.
pub(crate) fn render_list(items: &[Value], max: usize) -> String {
    let mut parts: Vec<String> = items.iter().take(max).map(truncate_received).collect();
    if items.len() > max {
        parts.push(format!("… {} more", items.len() - max));
    }
    parts.join(", ")
}

fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn string_len(v: &Value) -> Option<usize> {
    v.as_str().map(|s| s.chars().count())
}

fn array_len(v: &Value) -> Option<usize> {
    v.as_array().map(Vec::len)
}

fn object_len(v: &Value) -> Option<usize> {
    v.as_object().map(serde_json::Map::len)
}

/// `schema.<keyword in snake case>`, without allocating for the standard keywords.
fn code_of(keyword: &str) -> Cow<'static, str> {
    match keyword {
        "additionalItems" => Cow::Borrowed("schema.additional_items"),
        "additionalProperties" => Cow::Borrowed("schema.additional_properties"),
        "anyOf" => Cow::Borrowed("schema.any_of"),
        "pattern" => Cow::Borrowed("schema.pattern"),
        "const" => Cow::Borrowed("schema.const"),
        "contains" => Cow::Borrowed("schema.contains"),
        "contentEncoding" => Cow::Borrowed("schema.content_encoding"),
        "contentMediaType" => Cow::Borrowed("schema.content_media_type"),
        "enum" => Cow::Borrowed("schema.enum"),
        "exclusiveMaximum" => Cow::Borrowed("schema.exclusive_maximum"),
        "exclusiveMinimum" => Cow::Borrowed("schema.exclusive_minimum"),
        "falseSchema" => Cow::Borrowed("schema.false_schema"),
        "format" => Cow::Borrowed("schema.format"),
        "maxItems" => Cow::Borrowed("schema.max_items"),
        "maximum" => Cow::Borrowed("schema.maximum"),
        "maxLength" => Cow::Borrowed("schema.max_length"),
        "maxProperties" => Cow::Borrowed("schema.max_properties"),
        "minItems" => Cow::Borrowed("schema.min_items"),
        "minimum" => Cow::Borrowed("schema.minimum"),
        "minLength" => Cow::Borrowed("schema.min_length"),
        "minProperties" => Cow::Borrowed("schema.min_properties"),
        "multipleOf" => Cow::Borrowed("schema.multiple_of"),
        "not" => Cow::Borrowed("schema.not"),
        "oneOf" => Cow::Borrowed("schema.one_of"),
        "propertyNames" => Cow::Borrowed("schema.property_names"),
        "required" => Cow::Borrowed("schema.required"),
        "type" => Cow::Borrowed("schema.type"),
        "unevaluatedItems" => Cow::Borrowed("schema.unevaluated_items"),
        "unevaluatedProperties" => Cow::Borrowed("schema.unevaluated_properties"),
        "uniqueItems" => Cow::Borrowed("schema.unique_items"),
        "$ref" => Cow::Borrowed("schema.ref"),
        other => Cow::Owned(format!("schema.{}", snake_case(other))),
    }
}

/// `additionalProperties` → `additional_properties`, `$ref` → `ref`.
fn snake_case(keyword: &str) -> String {
    let mut out = String::with_capacity(keyword.len() + 4);
    for c in keyword.chars().filter(char::is_ascii_alphanumeric) {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_type_names() {
        assert_eq!(snake_case("additionalProperties"), "additional_properties");
        assert_eq!(snake_case("$ref"), "ref");
        assert_eq!(snake_case("falseSchema"), "false_schema");
        assert_eq!(
            code_of("additionalProperties"),
            "schema.additional_properties"
        );
        assert_eq!(code_of("$ref"), "schema.ref");
        assert_eq!(code_of("dependentSchemas"), "schema.dependent_schemas");
        assert_eq!(type_name(&serde_json::json!(1)), "integer");
        let long = serde_json::json!("x".repeat(100));
        assert_eq!(received_text(&long), truncate_received(&long));
        assert_eq!(received_text(&serde_json::json!([1, 2])), "[1,2]");
        assert_eq!(type_name(&serde_json::json!(1.5)), "number");
        assert_eq!(join_or(&["a".into(), "b".into(), "c".into()]), "a, b or c");
    }
}
