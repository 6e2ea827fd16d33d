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
        scopes(self.scope.as_ref(), &cx.doc.value)
            .into_iter()
            .filter_map(|(base, node)| self.run_scope(base, node))
            .collect()
    }

    /// The matches of `each` the rule holds in, if it has one.
    pub(super) fn scope(&self) -> Option<&Query> {
        self.scope.as_ref()
    }

    /// The finding in one match of `each` (`node`, at `base`), if none of the paths has a
    /// non-empty value there.
    pub(super) fn run_scope(&self, base: String, node: &serde_json::Value) -> Option<Finding> {
        let found: Vec<(String, &serde_json::Value)> = self
            .paths
            .iter()
            .flat_map(|q| q.matches(node, &base))
            .collect();
        if found.iter().any(|(_, v)| is_nonempty(v)) {
            return None;
        }
        let names: Vec<&str> = self.paths.iter().map(Query::text).collect();
        let names = names.join(", ");
        // Point at the scope for `each`, else at the first (empty) value that exists.
        let mut finding = match (&self.scope, found.first()) {
            (None, Some((pointer, value))) => {
                Finding::at(pointer.clone(), String::new()).received(value)
            }
            _ => Finding::at(base, String::new()),
        };
        finding.message = format!("at least one of {names} must be non-empty");
        Some(
            finding
                .expected(format!("a non-empty value at one of {names}"))
                .var("paths", names),
        )
    }
}
