//! JSONPath (RFC 9535) queries that report where each match is, as a JSON Pointer.

use rectify_core::push_pointer;
use serde_json::Value;
use serde_json_path::JsonPath;

/// A parsed JSONPath and the text it was written as.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    text: String,
    path: JsonPath,
    /// The pointer the path names when it is singular (`$.a.b[0]`), for reporting a missing
    /// value where it should have been.
    singular: Option<String>,
}

impl Query {
    /// Parses `text`; the error says where in the path it went wrong.
    pub(crate) fn parse(text: &str) -> Result<Query, String> {
        let path = JsonPath::parse(text)
            .map_err(|e| format!("invalid JSONPath `{text}`: {}", e.to_string().trim()))?;
        Ok(Query {
            text: text.to_owned(),
            path,
            singular: singular_pointer(text),
        })
    }

    /// The path as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Every match in `root`, as `(pointer, value)`, with pointers prefixed by `base` (the
    /// pointer of `root` in its document).
    pub(crate) fn matches<'a>(&self, root: &'a Value, base: &str) -> Vec<(String, &'a Value)> {
        self.path
            .query_located(root)
            .into_iter()
            .map(|node| {
                let mut pointer = base.to_owned();
                pointer.push_str(&node.location().to_json_pointer());
                (pointer, node.node())
            })
            .collect()
    }

    /// The values matched in `root`.
    pub(crate) fn values<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        self.path.query(root).all()
    }

    /// Where the path would point under `base` if it is singular.
    pub(crate) fn expected_pointer(&self, base: &str) -> Option<String> {
        self.singular.as_ref().map(|p| format!("{base}{p}"))
    }
}

/// The nodes a rule applies to: every match of `scope`, or the whole document.
pub(crate) fn scopes<'a>(scope: Option<&Query>, root: &'a Value) -> Vec<(String, &'a Value)> {
    match scope {
        Some(q) => q.matches(root, ""),
        None => vec![(String::new(), root)],
    }
}

/// True unless the value is null, an empty or blank string, or an empty array or object.
pub(crate) fn is_nonempty(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Bool(_) | Value::Number(_) => true,
    }
}

/// A text that is equal for equal values, whatever the key order of objects.
pub(crate) fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, String)> =
                map.iter().map(|(k, v)| (k, canonical(v))).collect();
            entries.sort();
            let body: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
                .collect();
            format!("{{{}}}", body.join(","))
        }
        Value::Array(items) => {
            let body: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", body.join(","))
        }
        other => other.to_string(),
    }
}

/// `$.a['b c'][0]` → `/a/b c/0`; `None` for anything with wildcards, slices or filters.
fn singular_pointer(text: &str) -> Option<String> {
    let mut rest = text.strip_prefix('$')?;
    let mut pointer = String::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            push_pointer(&mut pointer, &after[..end]);
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            push_pointer(&mut pointer, &bracket_segment(&after[..end])?);
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(pointer)
}

fn bracket_segment(inner: &str) -> Option<String> {
    let inner = inner.trim();
    if inner.bytes().all(|b| b.is_ascii_digit()) && !inner.is_empty() {
        return Some(inner.to_owned());
    }
    let quoted = (inner.starts_with('\'') && inner.ends_with('\''))
        || (inner.starts_with('"') && inner.ends_with('"'));
    let name = inner.get(1..inner.len().checked_sub(1)?)?;
    (quoted && inner.len() >= 2 && !name.contains(['\\', '\'', '"'])).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn matches_carry_pointers() {
        let q = Query::parse("$.tasks[*]['phase id']").unwrap();
        let v = json!({"tasks": [{"phase id": 1}, {}, {"phase id": 3}]});
        let m = q.matches(&v, "/base");
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].0, "/base/tasks/2/phase id");
        assert_eq!(m[1].1, &json!(3));
    }

    #[test]
    fn singular_paths_have_pointers() {
        assert_eq!(singular_pointer("$.a.b[0]").as_deref(), Some("/a/b/0"));
        assert_eq!(singular_pointer("$['a/b'].c").as_deref(), Some("/a~1b/c"));
        assert_eq!(singular_pointer("$"), Some(String::new()));
        assert_eq!(singular_pointer("$.a[*]"), None);
        assert_eq!(singular_pointer("$..a"), None);
    }

    #[test]
    fn invalid_paths_say_why() {
        let err = Query::parse("$.tasks[").unwrap_err();
        assert!(
            err.starts_with("invalid JSONPath `$.tasks[`: at position"),
            "{err}"
        );
    }

    #[test]
    fn emptiness() {
        assert!(!is_nonempty(&json!("  ")));
        assert!(!is_nonempty(&json!([])));
        assert!(!is_nonempty(&json!(null)));
        assert!(is_nonempty(&json!(0)));
        assert!(is_nonempty(&json!(false)));
        assert!(is_nonempty(&json!({"a": 1})));
    }
}
