//! A value written as YAML in block style, so a repaired YAML document is written back as
//! YAML and not as JSON: mappings as `key: value` lines, sequences as `- item` lines, indented
//! by two spaces; scalars plain when they cannot be read as anything but the same string, else
//! double-quoted with escapes (so every scalar stays on one line). Numbers keep their text.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// `value` as a YAML document in block style, ending with a line break.
pub(crate) fn block(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(map, 0, &mut out),
        Value::Array(items) if !items.is_empty() => sequence(items, 0, &mut out),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn mapping(map: &Map<String, Value>, indent: usize, out: &mut String) {
    for (key, value) in map {
        push_indent(out, indent);
        out.push_str(&string(key));
        out.push(':');
        child(value, indent + 2, out);
    }
}

/// Each item after `- `; a mapping's first member (or a sequence's first item) on the
/// dash's line, the rest under it.
fn sequence(items: &[Value], indent: usize, out: &mut String) {
    for item in items {
        push_indent(out, indent);
        out.push_str("- ");
        let mut nested = String::new();
        match item {
            Value::Object(map) if !map.is_empty() => mapping(map, indent + 2, &mut nested),
            Value::Array(inner) if !inner.is_empty() => sequence(inner, indent + 2, &mut nested),
            other => {
                out.push_str(&scalar(other));
                out.push('\n');
                continue;
            }
        }
        out.push_str(nested.get(indent + 2..).unwrap_or_default());
    }
}

/// The value of a mapping member: on the key's line when it is a scalar (or empty), else on
/// the lines under it at `indent`.
fn child(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            mapping(map, indent, out);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            sequence(items, indent, out);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A scalar (or an empty collection, `[]` or `{}`) as one line of YAML.
pub(crate) fn scalar(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

/// A string: plain when that reads back as the same string in any YAML reader, else
/// double-quoted.
fn string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// Words some YAML readers (1.1 or 1.2) read as null or a boolean.
const KEYWORDS: &[&str] = &["null", "true", "false", "yes", "no", "on", "off", "y", "n"];

/// A letter or `_` first, then letters, digits, spaces and `_-./()`, no space at the end and
/// not a keyword: never a number, null, boolean, indicator or comment.
fn plain_is_safe(s: &str) -> bool {
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || " _-./()".contains(c))
        && !s.ends_with(' ')
        && !KEYWORDS.contains(&s.to_ascii_lowercase().as_str())
}

/// `s` in double quotes; quotes, backslashes, line breaks, tabs and every character YAML does
/// not allow raw (controls, byte order marks, Unicode line separators) escaped.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control()
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rectify_core::{Diagnostic, Format};
    use rectify_parse::{Limits, read};
    use serde_json::{Value, json};

    use super::block;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter_map("finite", serde_json::Number::from_f64)
                .prop_map(Value::Number),
            any::<String>().prop_map(Value::String),
            "[a-z0-9 :#'\"{}\\[\\],&*!|>%@`-]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((any::<String>(), inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn block_yaml_reads_back_to_the_value(v in value()) {
            let text = block(&v);
            let parsed = read(text.clone(), Format::Yaml, &Limits::default());
            prop_assert!(
                !parsed.diagnostics.iter().any(Diagnostic::is_error),
                "{:?}: {:?}", text, parsed.diagnostics
            );
            prop_assert_eq!(parsed.document.map(|d| d.value), Some(v), "{:?}", text);
        }
    }

    #[test]
    fn values_are_written_in_block_style() {
        let v = json!({
            "title": "Fix: the login",
            "count": 3,
            "tags": ["a b", "yes", "1.5"],
            "tasks": [{"id": "t1", "deps": []}, [1, [2]]],
            "none": null,
            "empty": {}
        });
        assert_eq!(
            block(&v),
            "title: \"Fix: the login\"\ncount: 3\ntags:\n  - a b\n  - \"yes\"\n  - \"1.5\"\ntasks:\n  - id: t1\n    deps: []\n  - - 1\n    - - 2\nnone: null\nempty: {}\n"
        );
        assert_eq!(block(&json!("a\tb\u{7f}")), "\"a\\tb\\u007f\"\n");
    }
}
