//! `any_nonempty`: at least one of several JSONPaths must match a non-empty value.
//!
//! Why: "a task changes at least one file" — either `filesToCreate` or `filesToModify` has
//! entries. With `each`, the paths are relative to every match (`$` is the match), so the
//! rule holds per task. Example:
//! `each: "$.tasks[*]"`, `any_nonempty: ["$.filesToCreate", "$.filesToModify"]` reports
//! `tasks[1]: at least one of $.filesToCreate, $.filesToModify must be non-empty`.

use super::config::Spec;
use super::path::{Query, is_nonempty, scopes};
use super::{Context, Finding};

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["paths"];

#[derive(Debug, Clone)]
pub(super) struct AnyNonempty {
    scope: Option<Query>,
    paths: Vec<Query>,
}

impl AnyNonempty {
    pub(super) fn parse(spec: &Spec<'_>, scope: Option<Query>) -> Result<AnyNonempty, String> {
        Ok(AnyNonempty {
            scope,
            paths: spec.queries("any_nonempty")?,
        })
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        let names: Vec<&str> = self.paths.iter().map(Query::text).collect();
        let names = names.join(", ");
        let mut out = Vec::new();
        for (base, node) in scopes(self.scope.as_ref(), &cx.doc.value) {
            let found: Vec<(String, &serde_json::Value)> = self
                .paths
                .iter()
                .flat_map(|q| q.matches(node, &base))
                .collect();
            if found.iter().any(|(_, v)| is_nonempty(v)) {
                continue;
            }
            // Point at the scope for `each`, else at the first (empty) value that exists.
            let mut finding = match (&self.scope, found.first()) {
                (None, Some((pointer, value))) => {
                    Finding::at(pointer.clone(), String::new()).received(value)
                }
                _ => Finding::at(base, String::new()),
            };
            finding.message = format!("at least one of {names} must be non-empty");
            out.push(
                finding
                    .expected(format!("a non-empty value at one of {names}"))
                    .var("paths", names.clone()),
            );
        }
        out
    }
}
