//! Rules judged on a part of a document before the rest of it exists: an answer still
//! arriving, whose completed array items are final (issue 40).
//!
//! A finding here is one the whole document's check gives too, whatever follows:
//! - `each` + `in` a **named** document: a value `each` matches inside the part that is not
//!   one of the allowed values (they come from the other document, complete already);
//! - `unique`: a value inside the part equal to one seen in an earlier part;
//! - `required_nonempty` and `any_nonempty` with `each`: a match of `each` inside the part
//!   (the whole of it is there) that breaks the rule.
//!
//! Only rules whose `each` (or `unique`) query is structural are judged (names, wildcards,
//! descendants: which values match depends on their path alone); only errors, not warnings.
//! Not judged early: references into the same document (its allowed values may still
//! arrive), rules over the whole document and the Markdown and length rules.

use std::collections::{HashMap, HashSet};

use rectify_core::{Diagnostic, Document, Seg, Severity};
use serde_json::Value;

use super::reference::Allowed;
use super::structural::Structural;
use super::{Check, Finding, References, Rule, RuleSet};

/// The rules of a [`RuleSet`] that can be judged on parts of a document.
///
/// ```
/// use std::collections::BTreeMap;
/// use rectify_check::RuleSet;
/// use rectify_check::rules::{PartMemory, PartRules};
/// use rectify_core::Seg;
/// use serde_json::json;
///
/// let rules = RuleSet::from_value(&json!({"rules": [{"id": "ids", "unique": "$.tasks[*].id"}]}), None)?;
/// let parts = PartRules::new(&rules, &BTreeMap::new());
/// let mut memory = PartMemory::default();
/// let first = [Seg::Key("tasks"), Seg::Index(0)];
/// assert!(parts.judge(&mut memory, &first, &json!({"id": "T1"})).is_empty());
/// let second = [Seg::Key("tasks"), Seg::Index(1)];
/// let found = parts.judge(&mut memory, &second, &json!({"id": "T1"}));
/// assert_eq!(found[0].location.pointer, "/tasks/1/id");
/// assert_eq!(found[0].code, "rule.unique");
/// # Ok::<(), rectify_check::ConfigError>(())
/// ```
#[derive(Debug)]
pub struct PartRules {
    rules: Vec<(Rule, PartCheck)>,
    /// What diagnostics are located in (a part has no source text of its own).
    empty: Document,
}

/// What one document's parts have shown so far: the places judged and, for `unique`, the
/// first place of each value.
#[derive(Debug, Default)]
pub struct PartMemory {
    judged: HashSet<(usize, String)>,
    first: HashMap<(usize, String), String>,
}

/// How a rule is judged on a part.
#[derive(Debug)]
enum PartCheck {
    Reference { each: Structural, allowed: Allowed },
    Unique { path: Structural },
    Scoped { scope: Structural },
}

impl PartRules {
    /// The rules of `rules` that can be judged on parts, with the named documents of
    /// `refs` (a reference into a document missing there is not judged early).
    pub fn new(rules: &RuleSet, refs: &References) -> PartRules {
        let rules = rules
            .rules()
            .iter()
            .filter(|rule| rule.severity == Severity::Error)
            .filter_map(|rule| Some((rule.clone(), PartCheck::of(rule, refs)?)))
            .collect();
        PartRules {
            rules,
            empty: Document::from_value(Value::Null),
        }
    }

    /// True when no rule can be judged on a part.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The errors found in the final part `value` at `at`; `memory` holds what the
    /// document's earlier parts showed. A place judged once (as part of an inner part, say)
    /// is not judged again.
    pub fn judge(&self, memory: &mut PartMemory, at: &[Seg<'_>], value: &Value) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (index, (rule, check)) in self.rules.iter().enumerate() {
            for finding in check.judge(&rule.check, index, memory, at, value) {
                out.push(rule.diagnostic(&self.empty, finding));
            }
        }
        out
    }
}

impl PartCheck {
    /// How `rule` is judged on a part, if it can be.
    fn of(rule: &Rule, refs: &References) -> Option<PartCheck> {
        match &rule.check {
            Check::Reference(reference) => {
                let target = refs.get(reference.document()?)?;
                Some(PartCheck::Reference {
                    each: Structural::parse(reference.each().text())?,
                    allowed: reference.allowed(&target.value),
                })
            }
            Check::Unique(unique) => Some(PartCheck::Unique {
                path: Structural::parse(unique.path().text())?,
            }),
            Check::RequiredNonempty(check) => Some(PartCheck::Scoped {
                scope: Structural::parse(check.scope()?.text())?,
            }),
            Check::AnyNonempty(check) => Some(PartCheck::Scoped {
                scope: Structural::parse(check.scope()?.text())?,
            }),
            _ => None,
        }
    }

    fn judge(
        &self,
        check: &Check,
        index: usize,
        memory: &mut PartMemory,
        at: &[Seg<'_>],
        value: &Value,
    ) -> Vec<Finding> {
        let query = match self {
            PartCheck::Reference { each, .. } => each,
            PartCheck::Unique { path } => path,
            PartCheck::Scoped { scope } => scope,
        };
        let mut out = Vec::new();
        for (pointer, found) in query.matches_within(at, value) {
            if !memory.judged.insert((index, pointer.clone())) {
                continue;
            }
            match (self, check) {
                (PartCheck::Reference { allowed, .. }, Check::Reference(reference)) => {
                    out.extend(reference.finding(allowed, pointer, found));
                }
                (PartCheck::Unique { .. }, Check::Unique(unique)) => {
                    let key = (index, super::path::canonical(found));
                    match memory.first.get(&key) {
                        Some(earlier) => out.push(unique.duplicate(pointer, found, earlier)),
                        None => {
                            memory.first.insert(key, pointer);
                        }
                    }
                }
                (PartCheck::Scoped { .. }, Check::RequiredNonempty(check)) => {
                    out.extend(check.run_scope(&pointer, found));
                }
                (PartCheck::Scoped { .. }, Check::AnyNonempty(check)) => {
                    out.extend(check.run_scope(pointer, found));
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rectify_core::Document;
    use serde_json::json;

    use super::*;

    fn rules() -> RuleSet {
        RuleSet::from_value(
            &json!({"rules": [
                {"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*].id"},
                {"id": "same-doc", "each": "$.tasks[*].after", "in": "$.tasks[*].id"},
                {"id": "ids", "unique": "$..tasks[*].id"},
                {"id": "files", "each": "$.tasks[*]", "any_nonempty": ["$.create", "$.modify"]},
                {"id": "title", "each": "$.tasks[*]", "required_nonempty": ["$.title"]},
                {"id": "first", "unique": "$.tasks[0].id"},
                {"id": "soft", "severity": "warning", "unique": "$.tasks[*].title"},
            ]}),
            None,
        )
        .unwrap()
    }

    fn parts() -> PartRules {
        let plan = Document::from_value(json!({"phases": [{"id": "p1"}]}));
        PartRules::new(&rules(), &BTreeMap::from([("plan".to_owned(), plan)]))
    }

    fn codes(found: &[Diagnostic]) -> Vec<(&str, &str)> {
        found
            .iter()
            .map(|d| (d.code.as_str(), d.location.pointer.as_str()))
            .collect()
    }

    #[test]
    fn judges_what_is_final_in_a_part_and_nothing_else() {
        let parts = parts();
        assert_eq!(parts.rules.len(), 4, "{:?}", parts.rules);
        let mut memory = PartMemory::default();
        let at = [Seg::Key("tasks"), Seg::Index(0)];
        let good = json!({"id": "T1", "phase": "p1", "title": "a", "create": ["x"], "after": "T9"});
        assert!(parts.judge(&mut memory, &at, &good).is_empty());
        let at = [Seg::Key("tasks"), Seg::Index(1)];
        let bad = json!({"id": "T1", "phase": "p2", "title": " ", "modify": []});
        assert_eq!(
            codes(&parts.judge(&mut memory, &at, &bad)),
            vec![
                ("rule.ref", "/tasks/1/phase"),
                ("rule.unique", "/tasks/1/id"),
                ("rule.any_nonempty", "/tasks/1"),
                ("rule.required_nonempty", "/tasks/1/title"),
            ]
        );
    }

    #[test]
    fn a_place_judged_in_an_inner_part_is_not_judged_again() {
        let parts = parts();
        let mut memory = PartMemory::default();
        let inner = [
            Seg::Key("x"),
            Seg::Index(0),
            Seg::Key("tasks"),
            Seg::Index(0),
        ];
        assert!(
            parts
                .judge(&mut memory, &inner, &json!({"id": "A"}))
                .is_empty()
        );
        let outer = [Seg::Key("x"), Seg::Index(0)];
        let found = parts.judge(&mut memory, &outer, &json!({"tasks": [{"id": "A"}]}));
        assert!(found.is_empty(), "{found:?}");
        let next = [Seg::Key("x"), Seg::Index(1)];
        let found = parts.judge(&mut memory, &next, &json!({"tasks": [{"id": "A"}]}));
        assert_eq!(codes(&found), vec![("rule.unique", "/x/1/tasks/0/id")]);
        assert!(
            found[0].message.contains("first at x[0].tasks[0].id"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn a_reference_into_a_missing_document_is_not_judged() {
        let parts = PartRules::new(&rules(), &BTreeMap::new());
        assert_eq!(parts.rules.len(), 3);
    }
}
