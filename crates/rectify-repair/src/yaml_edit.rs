//! A repaired YAML document written back as a minimal edit of the text it was read from: the
//! payload as the model wrote it (after the line repairs), with only the scalars the schema
//! coercion changed rewritten in place. Used when the edited text reads back to the repaired
//! value; otherwise the value is written in block style.

use rectify_core::{Diagnostic, Format, push_pointer};
use rectify_parse::{Limits, read};
use serde_json::Value;

use crate::yaml_write::{block, scalar};

/// `value` as YAML text ending with a line break: `source` (the YAML it was read from) edited
/// in place when that reads back to `value`, else `value` in block style.
pub(crate) fn write(source: Option<&str>, value: &Value) -> String {
    source
        .and_then(|s| edited(s, value))
        .unwrap_or_else(|| block(value))
}

/// `source` with the scalars that differ from `value` rewritten, when the two have the same
/// shape and the result reads back to `value`.
fn edited(source: &str, value: &Value) -> Option<String> {
    let doc = read_clean(source)?;
    let mut edits = Vec::new();
    differences(&doc.value, value, &mut String::new(), &mut edits)?;
    let mut text = source.to_owned();
    let mut spans = Vec::with_capacity(edits.len());
    for (pointer, new) in edits {
        let (start, end) = doc.spans.find(&doc.source, &pointer)?;
        spans.push((start, end, scalar(new)));
    }
    spans.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
    for (start, end, new) in spans {
        text.replace_range(start..end, &new);
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    (read_clean(&text)?.value == *value).then_some(text)
}

/// The document `text` reads as, when it reads without error.
fn read_clean(text: &str) -> Option<rectify_core::Document> {
    let parsed = read(text.to_owned(), Format::Yaml, &Limits::default());
    if parsed.diagnostics.iter().any(Diagnostic::is_error) {
        return None;
    }
    parsed.document
}

/// The pointers of the scalars where `old` and `new` differ, with the new scalar; `None` when
/// they differ in shape (a key added or removed, a scalar become a collection, ...).
fn differences<'a>(
    old: &Value,
    new: &'a Value,
    pointer: &mut String,
    out: &mut Vec<(String, &'a Value)>,
) -> Option<()> {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            if a.len() != b.len() {
                return None;
            }
            for (key, item) in b {
                let len = pointer.len();
                push_pointer(pointer, key);
                differences(a.get(key)?, item, pointer, out)?;
                pointer.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return None;
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = pointer.len();
                push_pointer(pointer, &i.to_string());
                differences(x, y, pointer, out)?;
                pointer.truncate(len);
            }
        }
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => {
            return None;
        }
        (a, b) if a != b => out.push((pointer.clone(), b)),
        _ => {}
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::write;

    #[test]
    fn coerced_scalars_are_rewritten_in_place_and_the_rest_is_kept() {
        let source = "# the spec\ntitle: Login   # short\ncount: \"3\"\nflags: {a: \"true\"}\n";
        let value = json!({"title": "Login", "count": 3, "flags": {"a": true}});
        assert_eq!(
            write(Some(source), &value),
            "# the spec\ntitle: Login   # short\ncount: 3\nflags: {a: true}\n"
        );
    }

    #[test]
    fn a_value_of_another_shape_is_written_in_block_style() {
        let source = "tags: urgent\n";
        let value = json!({"tags": ["urgent"]});
        assert_eq!(write(Some(source), &value), "tags:\n  - urgent\n");
        assert_eq!(write(None, &json!({"a": 1})), "a: 1\n");
    }
}
