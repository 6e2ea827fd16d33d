//! The JSONPath queries whose matches depend on where a value sits only: member names,
//! wildcards and descendant segments (`$.tasks[*].id`, `$..id`, `$['a b'].*`), with no
//! index, slice or filter selector.
//!
//! For such a query, whether a value matches is decided by its path alone, so the matches
//! inside a part of a document are known as soon as that part is, whatever the rest holds.
//! Anything else (`$.tasks[0]`, `$.tasks[-1:]`, `$.tasks[?@.done]`) is not structural, and
//! the rules that use it are judged on the whole document only.

use rectify_core::{Seg, push_pointer};
use serde_json::Value;

/// Most steps a structural query may have (its states fit one `u64`).
const MAX_STEPS: usize = 63;

/// What one step of a query selects.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Select {
    /// A member of this name.
    Name(String),
    /// Any member or item.
    Any,
}

/// One step: a child segment, or a descendant segment (any depth below, then the select).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Child(Select),
    Descendant(Select),
}

/// A structural query, as the positions of a small automaton over a value's path.
#[derive(Debug, Clone)]
pub(crate) struct Structural {
    steps: Vec<Step>,
}

/// The set of steps matched so far, one bit per position (bit `i`: the first `i` steps).
type States = u64;

impl Structural {
    /// `text` read as a structural query, or `None` when it is not one (or has more than
    /// [`MAX_STEPS`] steps).
    pub(crate) fn parse(text: &str) -> Option<Structural> {
        let mut rest = text.strip_prefix('$')?;
        let mut steps = Vec::new();
        while !rest.is_empty() {
            let (step, after) = step(rest)?;
            steps.push(step);
            rest = after;
        }
        (steps.len() <= MAX_STEPS).then_some(Structural { steps })
    }

    /// Every match inside the value at `at` (whose value is `value`), as `(pointer, value)`,
    /// in document order; the value itself included when it matches.
    pub(crate) fn matches_within<'v>(
        &self,
        at: &[Seg<'_>],
        value: &'v Value,
    ) -> Vec<(String, &'v Value)> {
        let mut states: States = 1;
        for &seg in at {
            states = self.advance(states, seg);
            if states == 0 {
                return Vec::new();
            }
        }
        let mut out = Vec::new();
        let pointer = rectify_core::pointer_of(at.iter().copied());
        self.walk(states, &pointer, value, &mut out);
        out
    }

    fn walk<'v>(
        &self,
        states: States,
        pointer: &str,
        value: &'v Value,
        out: &mut Vec<(String, &'v Value)>,
    ) {
        if states & (1 << self.steps.len()) != 0 {
            out.push((pointer.to_owned(), value));
        }
        let children: Vec<(Seg<'_>, &'v Value)> = match value {
            Value::Object(map) => map.iter().map(|(k, v)| (Seg::Key(k), v)).collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (Seg::Index(i), v))
                .collect(),
            _ => return,
        };
        for (seg, child) in children {
            let next = self.advance(states, seg);
            if next == 0 {
                continue;
            }
            let mut below = pointer.to_owned();
            match seg {
                Seg::Key(key) => push_pointer(&mut below, key),
                Seg::Index(i) => push_pointer(&mut below, &i.to_string()),
            }
            self.walk(next, &below, child, out);
        }
    }

    /// The states after one more segment.
    fn advance(&self, states: States, seg: Seg<'_>) -> States {
        let mut next = 0;
        for (i, step) in self.steps.iter().enumerate() {
            if states & (1 << i) == 0 {
                continue;
            }
            match step {
                Step::Child(select) => {
                    if selects(select, seg) {
                        next |= 1 << (i + 1);
                    }
                }
                Step::Descendant(select) => {
                    next |= 1 << i; // `seg` is one of the levels skipped
                    if selects(select, seg) {
                        next |= 1 << (i + 1);
                    }
                }
            }
        }
        next
    }
}

fn selects(select: &Select, seg: Seg<'_>) -> bool {
    match (select, seg) {
        (Select::Any, _) => true,
        (Select::Name(name), Seg::Key(key)) => name == key,
        (Select::Name(_), Seg::Index(_)) => false,
    }
}

/// One segment at the start of `text`, and the text after it.
fn step(text: &str) -> Option<(Step, &str)> {
    if let Some(rest) = text.strip_prefix("..") {
        let (select, after) = match rest.strip_prefix('[') {
            Some(inner) => bracketed(inner)?,
            None => shorthand(rest)?,
        };
        return Some((Step::Descendant(select), after));
    }
    if let Some(rest) = text.strip_prefix('.') {
        let (select, after) = shorthand(rest)?;
        return Some((Step::Child(select), after));
    }
    let (select, after) = bracketed(text.strip_prefix('[')?)?;
    Some((Step::Child(select), after))
}

/// `*` or a member-name shorthand (RFC 9535: a letter, `_` or non-ASCII first, then also
/// digits).
fn shorthand(text: &str) -> Option<(Select, &str)> {
    if let Some(rest) = text.strip_prefix('*') {
        return Some((Select::Any, rest));
    }
    let first = text.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_' || !first.is_ascii()) {
        return None;
    }
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii()))
        .unwrap_or(text.len());
    Some((Select::Name(text[..end].to_owned()), &text[end..]))
}

/// The inside of `[...]` after the `[`: `*` or one quoted name, then `]`. Escapes other
/// than a quote or a backslash, unions and white space are not read (not structural).
fn bracketed(text: &str) -> Option<(Select, &str)> {
    if let Some(rest) = text.strip_prefix("*]") {
        return Some((Select::Any, rest));
    }
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut name = String::new();
    let mut chars = text[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                (_, e @ ('\'' | '"' | '\\')) => name.push(e),
                _ => return None,
            },
            c if c == quote => {
                let rest = text[1 + i + 1..].strip_prefix(']')?;
                return Some((Select::Name(name), rest));
            }
            c if (c as u32) < 0x20 => return None,
            c => name.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json_path::JsonPath;

    fn pointers(query: &str, doc: &Value) -> Vec<String> {
        Structural::parse(query)
            .unwrap()
            .matches_within(&[], doc)
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    }

    #[test]
    fn reads_names_wildcards_and_descendants_only() {
        for query in [
            "$",
            "$.a",
            "$.a[*].b",
            "$..id",
            "$..*",
            "$['a b'][\"c\"]",
            "$.é_1",
            "$..[*]",
        ] {
            assert!(Structural::parse(query).is_some(), "{query}");
        }
        for query in [
            "$[0]",
            "$.a[-1]",
            "$.a[1:]",
            "$.a[?@.b]",
            "$.a['x','y']",
            "$. a",
            "a",
            "$.1a",
            "$['\\u0041']",
        ] {
            assert!(Structural::parse(query).is_none(), "{query}");
        }
    }

    #[test]
    fn matches_inside_a_part_are_placed_at_its_path() {
        let query = Structural::parse("$.tasks[*].id").unwrap();
        let item = json!({"id": "T1", "sub": {"id": "no"}});
        let found = query.matches_within(&[Seg::Key("tasks"), Seg::Index(3)], &item);
        assert_eq!(found, vec![("/tasks/3/id".to_owned(), &json!("T1"))]);
        assert!(
            query
                .matches_within(&[Seg::Key("other"), Seg::Index(0)], &item)
                .is_empty()
        );
        // A name never selects an array item.
        let by_name = Structural::parse("$.tasks.0").is_none();
        assert!(by_name);
        assert_eq!(pointers("$['0']", &json!(["x"])), Vec::<String>::new());
    }

    proptest::proptest! {
        /// The same locations as serde_json_path, the full check's JSONPath engine, on any
        /// document, for queries of up to four steps over a small alphabet of names.
        #[test]
        fn agrees_with_serde_json_path(
            doc in doc(),
            steps in proptest::collection::vec(proptest::sample::select(vec![
                ".a", ".b", ".*", "[*]", "..a", "..*", "['b']", "..[*]",
            ]), 0..4),
        ) {
            let query = format!("${}", steps.concat());
            let mut ours = pointers(&query, &doc);
            let mut theirs: Vec<String> = JsonPath::parse(&query)
                .unwrap()
                .query_located(&doc)
                .into_iter()
                .map(|n| n.location().to_json_pointer())
                .collect();
            ours.sort();
            theirs.sort();
            theirs.dedup(); // a descendant path may reach one node twice; the set is what counts
            proptest::prop_assert_eq!(ours, theirs, "{}", query);
        }
    }

    fn doc() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![Just(json!(1)), Just(json!("x")), Just(json!(null))];
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::btree_map(
                    proptest::sample::select(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]),
                    inner,
                    0..3
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
