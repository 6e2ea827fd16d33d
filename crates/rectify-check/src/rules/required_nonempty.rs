//! `required_nonempty`: every listed JSONPath must match, and every match must be non-empty.
//!
//! Why: models leave fields out or fill them with `""` or `[]`. With `each`, the paths are
//! relative to every match. Example: `required_nonempty: ["$.goal", "$.tasks"]` reports
//! `goal: missing a value for $.goal` or `tasks: $.tasks must not be empty`.

use super::config::Spec;
use super::path::{Query, is_nonempty, scopes};
use super::{Context, Finding};

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["query"];

#[derive(Debug, Clone)]
pub(super) struct RequiredNonempty {
    scope: Option<Query>,
    paths: Vec<Query>,
}

impl RequiredNonempty {
    pub(super) fn parse(spec: &Spec<'_>, scope: Option<Query>) -> Result<RequiredNonempty, String> {
        Ok(RequiredNonempty {
            scope,
            paths: spec.queries("required_nonempty")?,
        })
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        scopes(self.scope.as_ref(), &cx.doc.value)
            .into_iter()
            .flat_map(|(base, node)| self.run_scope(&base, node))
            .collect()
    }

    /// The matches of `each` the rule holds in, if it has one.
    pub(super) fn scope(&self) -> Option<&Query> {
        self.scope.as_ref()
    }

    /// The findings in one match of `each` (`node`, at `base`).
    pub(super) fn run_scope(&self, base: &str, node: &serde_json::Value) -> Vec<Finding> {
        let mut out = Vec::new();
        for query in &self.paths {
            Self::check_one(query, node, base, &mut out);
        }
        out
    }

    fn check_one(query: &Query, node: &serde_json::Value, base: &str, out: &mut Vec<Finding>) {
        let found = query.matches(node, base);
        let text = query.text();
        if found.is_empty() {
            let pointer = query
                .expected_pointer(base)
                .unwrap_or_else(|| base.to_owned());
            out.push(
                Finding::at(pointer, format!("missing a value for {text}"))
                    .expected(format!("a non-empty value at {text}"))
                    .var("query", text),
            );
            return;
        }
        for (pointer, value) in found.into_iter().filter(|(_, v)| !is_nonempty(v)) {
            out.push(
                Finding::at(pointer, format!("{text} must not be empty"))
                    .expected(format!("a non-empty value at {text}"))
                    .received(value)
                    .var("query", text),
            );
        }
    }
}
