//! Choosing the value when the text held several top-level candidates.

use serde_json::Value;

use crate::log::Log;
use crate::rules::RepairRule;

/// How several candidates are turned into one value.
#[derive(Debug, PartialEq)]
pub(crate) enum Choice {
    /// One candidate stands (its index).
    One(usize),
    /// The candidates form a list (`a, b` at the top level, or values of different kinds):
    /// their indices, in increasing order.
    List(Vec<usize>),
}

impl Choice {
    /// True when candidate `i` is part of the value.
    pub(crate) fn keeps(&self, i: usize) -> bool {
        match self {
            Choice::One(one) => *one == i,
            // Sorted: a linear search made keeping each of n candidates quadratic.
            Choice::List(ix) => ix.binary_search(&i).is_ok(),
        }
    }
}

/// Records `rule` (`extract.multiple_values`, or `extract.schema_choice` when the schema
/// alone decided) for a choice among the candidates of `text` at `spans`: once for the whole
/// text when no candidate that carries something is left out, otherwise once for each such
/// candidate, with its text as the snippet.
pub(crate) fn record_choice(
    log: &mut Log,
    rule: RepairRule,
    text: &str,
    spans: &[(usize, usize)],
    kept: impl Fn(usize) -> bool,
    empty: impl Fn(usize) -> bool,
) {
    let mut dropped = false;
    crate::work::add(spans.len());
    for (i, &(start, end)) in spans.iter().enumerate() {
        if !kept(i) && !empty(i) {
            log.dropped(rule, text, start, end);
            dropped = true;
        }
    }
    if !dropped {
        log.outside(rule, 0, 0);
    }
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

/// Chooses without a schema. Empty candidates are ignored; comma-separated values form a
/// list; adjacent values of one kind are successive versions, so the last one stands; values
/// of different kinds form a list.
pub(crate) fn choose(values: &[Value], comma_separated: bool) -> Choice {
    let kinds: Vec<Kind> = values.iter().map(kind).collect();
    choose_kinds(&kinds, comma_separated)
}

/// [`choose`] for candidates written as JSON text.
pub(crate) fn choose_texts(texts: &[&str], comma_separated: bool) -> Choice {
    let kinds: Vec<Kind> = texts.iter().map(|t| text_kind(t)).collect();
    choose_kinds(&kinds, comma_separated)
}

/// What choosing looks at in a candidate: its JSON type and whether it is empty.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Kind {
    type_byte: u8,
    empty: bool,
}

fn kind(v: &Value) -> Kind {
    let type_byte = match v {
        Value::Null => b'n',
        Value::Bool(_) => b't',
        Value::Number(_) => b'0',
        Value::String(_) => b'"',
        Value::Array(_) => b'[',
        Value::Object(_) => b'{',
    };
    Kind {
        type_byte,
        empty: is_empty(v),
    }
}

/// The kind of a value from its JSON text (compact or indented).
/// True for the JSON text of a candidate that carries nothing (see [`is_empty`]).
pub(crate) fn is_empty_text(text: &str) -> bool {
    text_kind(text).empty
}

fn text_kind(text: &str) -> Kind {
    let type_byte = match text.as_bytes().first() {
        Some(b'f') => b't',
        Some(b'-' | b'0'..=b'9') => b'0',
        Some(&b) => b,
        None => b'n',
    };
    Kind {
        type_byte,
        empty: matches!(text, "{}" | "[]" | "\"\""),
    }
}

fn choose_kinds(kinds: &[Kind], comma_separated: bool) -> Choice {
    let full: Vec<usize> = (0..kinds.len()).filter(|&i| !kinds[i].empty).collect();
    match full.as_slice() {
        [] if comma_separated => Choice::List((0..kinds.len()).collect()),
        [] => Choice::One(0),
        [one] => Choice::One(*one),
        _ if comma_separated => Choice::List(full),
        [.., last]
            if full
                .iter()
                .all(|&i| kinds[i].type_byte == kinds[*last].type_byte) =>
        {
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

    #[test]
    fn texts_are_chosen_as_their_values() {
        let values = [
            json!({}),
            json!({"a": 1}),
            json!([]),
            json!(""),
            json!("x"),
            json!(-1),
            json!(2.5),
            json!(true),
            json!(false),
            json!(null),
            json!([1]),
        ];
        let texts: Vec<String> = values.iter().map(Value::to_string).collect();
        for i in 0..values.len() {
            for j in 0..values.len() {
                let v = [values[i].clone(), values[j].clone()];
                let t = [texts[i].as_str(), texts[j].as_str()];
                for comma in [false, true] {
                    assert_eq!(choose(&v, comma), choose_texts(&t, comma), "{t:?}");
                }
            }
        }
    }
}
