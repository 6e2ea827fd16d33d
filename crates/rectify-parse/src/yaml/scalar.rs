//! Scalars resolved by the YAML 1.2 core schema.
//!
//! Plain scalars: `null`, `Null`, `NULL`, `~` and the empty scalar are null; `true`/`false`
//! (also capitalised or upper case) are booleans; integers (decimal, `0x`, `0o`) and floats
//! are numbers (see [`super::number`]); anything else is a string. Quoted and block scalars are
//! strings. `!!str` and the non-specific tag `!` force a string; `!!null`, `!!bool`, `!!int`
//! and `!!float` resolve the text as that type even when quoted (a mismatch keeps the string
//! and is reported). Other tags, including local ones such as `!Ref`, are ignored.

use saphyr_parser::{ScalarStyle, Tag};
use serde_json::Value;

use super::number::{Numeric, numeric};

/// Why a scalar did not become the value its text or tag suggests.
#[derive(Debug, PartialEq)]
pub(crate) enum Note {
    /// `.inf` or `.nan`: kept as a string.
    NonFinite,
    /// A hexadecimal or octal integer beyond 128 bits: kept as a string.
    OutOfRange,
    /// The text does not match its `!!null`/`!!bool`/`!!int`/`!!float` tag.
    TagMismatch(&'static str),
}

#[derive(Clone, Copy)]
enum TagKind {
    Str,
    Null,
    Bool,
    Number(&'static str),
    Ignored,
}

/// The value of a scalar, and a note when it was kept as a string for a reason worth telling.
pub(crate) fn resolve(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> (Value, Option<Note>) {
    match tag.map_or(TagKind::Ignored, tag_kind) {
        TagKind::Str => (string(text), None),
        TagKind::Ignored if style != ScalarStyle::Plain => (string(text), None),
        TagKind::Ignored => plain(text),
        kind => typed(text, kind),
    }
}

fn tag_kind(tag: &Tag) -> TagKind {
    if tag.handle.is_empty() && tag.suffix == "!" {
        return TagKind::Str;
    }
    if !tag.is_yaml_core_schema() {
        return TagKind::Ignored;
    }
    match tag.suffix.as_str() {
        "str" => TagKind::Str,
        "null" => TagKind::Null,
        "bool" => TagKind::Bool,
        "int" => TagKind::Number("!!int"),
        "float" => TagKind::Number("!!float"),
        _ => TagKind::Ignored,
    }
}

fn plain(text: &str) -> (Value, Option<Note>) {
    if is_null(text) {
        return (Value::Null, None);
    }
    if let Some(b) = boolean(text) {
        return (Value::Bool(b), None);
    }
    match numeric(text) {
        Some(Numeric::Finite(n)) => (Value::Number(n), None),
        Some(Numeric::NonFinite) => (string(text), Some(Note::NonFinite)),
        Some(Numeric::OutOfRange) => (string(text), Some(Note::OutOfRange)),
        None => (string(text), None),
    }
}

fn typed(text: &str, kind: TagKind) -> (Value, Option<Note>) {
    let (value, note) = plain(text);
    let fits = match kind {
        TagKind::Null => value.is_null(),
        TagKind::Bool => value.is_boolean(),
        TagKind::Number(_) => value.is_number() || note.is_some(),
        TagKind::Str | TagKind::Ignored => true,
    };
    if fits {
        return (value, note);
    }
    let name = match kind {
        TagKind::Null => "!!null",
        TagKind::Bool => "!!bool",
        TagKind::Number(name) => name,
        TagKind::Str | TagKind::Ignored => "!!str",
    };
    (string(text), Some(Note::TagMismatch(name)))
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

fn boolean(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn string(text: &str) -> Value {
    Value::String(text.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn core(suffix: &str) -> Tag {
        Tag {
            handle: "tag:yaml.org,2002:".into(),
            suffix: suffix.into(),
        }
    }

    #[test]
    fn plain_scalars_follow_the_core_schema() {
        let plain = |t| resolve(t, ScalarStyle::Plain, None).0;
        assert_eq!(plain("~"), Value::Null);
        assert_eq!(plain(""), Value::Null);
        assert_eq!(plain("NULL"), Value::Null);
        assert_eq!(plain("True"), json!(true));
        assert_eq!(plain("yes"), json!("yes"), "YAML 1.1 booleans are strings");
        assert_eq!(plain("0x10"), json!(16));
        assert_eq!(plain("1.5"), json!(1.5));
        assert_eq!(plain("1_000"), json!("1_000"));
        assert_eq!(
            resolve(".inf", ScalarStyle::Plain, None).1,
            Some(Note::NonFinite)
        );
    }

    #[test]
    fn quoted_scalars_and_tags() {
        assert_eq!(resolve("1", ScalarStyle::DoubleQuoted, None).0, json!("1"));
        assert_eq!(
            resolve("1", ScalarStyle::Plain, Some(&core("str"))).0,
            json!("1")
        );
        let bang = Tag {
            handle: String::new(),
            suffix: "!".into(),
        };
        assert_eq!(
            resolve("true", ScalarStyle::Plain, Some(&bang)).0,
            json!("true")
        );
        assert_eq!(
            resolve("12", ScalarStyle::SingleQuoted, Some(&core("int"))).0,
            json!(12)
        );
        assert_eq!(
            resolve("abc", ScalarStyle::Plain, Some(&core("int"))),
            (json!("abc"), Some(Note::TagMismatch("!!int")))
        );
        let local = Tag {
            handle: "!".into(),
            suffix: "Ref".into(),
        };
        assert_eq!(resolve("7", ScalarStyle::Plain, Some(&local)).0, json!(7));
        assert_eq!(
            resolve("x", ScalarStyle::Plain, Some(&core("binary"))).0,
            json!("x")
        );
    }
}
