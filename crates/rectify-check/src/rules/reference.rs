//! `each` + `in`: every value matched by `each` must be one of the values matched by `in`,
//! in the checked document (`in: "$.phases[*].id"`) or a named one (`in: "plan:$.phases[*].id"`).
//!
//! Why: tasks that name a phase the plan does not have, steps that depend on an unknown step.
//! Example: `each: "$.tasks[*].phaseId"`, `in: "plan:$.phases[*].id"` reports
//! `tasks[0].phaseId: "phase-9" is not one of the values of plan:$.phases[*].id (phase-1, phase-2)`.

use std::collections::HashSet;

use serde_json::Value;

use super::config::Spec;
use super::path::{Query, canonical};
use super::{Context, Finding};
use crate::ConfigError;

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["allowed", "in", "document"];

/// At most this many allowed values are listed in a message.
const MAX_LISTED: usize = 10;

#[derive(Debug, Clone)]
pub(super) struct Reference {
    each: Query,
    document: Option<String>,
    target: Query,
    target_text: String,
}

impl Reference {
    pub(super) fn parse(spec: &Spec<'_>, each: Option<Query>) -> Result<Reference, String> {
        let each = each.ok_or("`in` needs `each` (the values to look up)")?;
        let text = spec.string("in")?;
        let (document, path) = match text.split_once(':') {
            Some((name, path)) if !text.starts_with('$') => {
                check_name(name)?;
                (Some(name.to_owned()), path.trim())
            }
            _ => (None, text),
        };
        if !path.starts_with('$') {
            return Err(format!(
                "`in` must be `$.path` or `name:$.path`, got `{text}`"
            ));
        }
        Ok(Reference {
            each,
            document,
            target: Query::parse(path)?,
            target_text: text.to_owned(),
        })
    }

    /// The named document this rule needs, if any.
    pub(super) fn document(&self) -> Option<&str> {
        self.document.as_deref()
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Result<Vec<Finding>, ConfigError> {
        let target = match &self.document {
            None => cx.doc,
            Some(name) => cx
                .refs
                .get(name)
                .ok_or_else(|| ConfigError::MissingDocument {
                    rule: cx.rule.to_owned(),
                    name: name.clone(),
                })?,
        };
        let allowed = self.allowed(&target.value);
        let findings = self
            .each
            .matches(&cx.doc.value, "")
            .into_iter()
            .filter_map(|(pointer, value)| self.finding(&allowed, pointer, value))
            .collect();
        Ok(findings)
    }

    /// The values to look up (`each`).
    pub(super) fn each(&self) -> &Query {
        &self.each
    }

    /// The values of `in` found in `target`.
    pub(super) fn allowed(&self, target: &Value) -> Allowed {
        let mut known = HashSet::new();
        let values: Vec<&Value> = self
            .target
            .values(target)
            .into_iter()
            .filter(|v| known.insert(canonical(v)))
            .collect();
        Allowed {
            listed: list(&values),
            known,
        }
    }

    /// The finding for `value` at `pointer`, unless it is one of the allowed values.
    pub(super) fn finding(
        &self,
        allowed: &Allowed,
        pointer: String,
        value: &Value,
    ) -> Option<Finding> {
        if allowed.known.contains(&canonical(value)) {
            return None;
        }
        let listed = &allowed.listed;
        let finding = Finding::at(
            pointer,
            format!(
                "{} is not one of the values of {} ({listed})",
                rectify_core::truncate_received(value),
                self.target_text
            ),
        )
        .expected(format!("one of {listed}"))
        .received(value)
        .var("allowed", listed.clone())
        .var("in", self.target_text.clone())
        .var("document", self.document.clone().unwrap_or_default());
        Some(finding)
    }
}

/// The values a reference may take: each one's canonical text, and the list for messages.
#[derive(Debug, Clone)]
pub(super) struct Allowed {
    known: HashSet<String>,
    listed: String,
}

/// A document name: letters, digits, `_` and `-`.
pub(super) fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "invalid document name `{name}` (use letters, digits, `_` and `-`)"
        ))
    }
}

/// `phase-1, phase-2`: strings bare, other values as JSON, capped.
fn list(values: &[&Value]) -> String {
    if values.is_empty() {
        return "none".to_owned();
    }
    let mut parts: Vec<String> = values
        .iter()
        .take(MAX_LISTED)
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => rectify_core::truncate_received(other),
        })
        .collect();
    if values.len() > MAX_LISTED {
        parts.push(format!("… {} more", values.len() - MAX_LISTED));
    }
    parts.join(", ")
}
