//! Choosing the value when the text held several top-level candidates.

use serde_json::Value;

/// How several candidates are turned into one value.
#[derive(Debug, PartialEq)]
pub(crate) enum Choice {
    /// One candidate stands (its index).
    One(usize),
    /// The candidates form a list (`a, b` at the top level, or values of different kinds).
    List(Vec<usize>),
}

/// True for `{}`, `[]` and `""`: candidates that carry nothing.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Chooses without a schema. Empty candidates are ignored; comma-separated values form a
/// list; adjacent values of one kind are successive versions, so the last one stands; values
/// of different kinds form a list.
pub(crate) fn choose(values: &[Value], comma_separated: bool) -> Choice {
    let full: Vec<usize> = (0..values.len())
        .filter(|&i| !is_empty(&values[i]))
        .collect();
    match full.as_slice() {
        [] => Choice::One(0),
        [one] => Choice::One(*one),
        _ if comma_separated => Choice::List(full),
        [.., last] if full.iter().all(|&i| same_kind(&values[i], &values[*last])) => {
            Choice::One(*last)
        }
        _ => Choice::List(full),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_candidates_are_ignored() {
        assert_eq!(choose(&[json!([]), json!({})], false), Choice::One(0));
        assert_eq!(choose(&[json!([]), json!({"a": 1})], false), Choice::One(1));
    }

    #[test]
    fn versions_and_lists() {
        let v = [json!({"a": 1}), json!({"a": 2})];
        assert_eq!(choose(&v, false), Choice::One(1));
        assert_eq!(choose(&v, true), Choice::List(vec![0, 1]));
        assert_eq!(
            choose(&[json!({"a": 1}), json!([1])], false),
            Choice::List(vec![0, 1])
        );
    }
}
