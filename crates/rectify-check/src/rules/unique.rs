//! `unique`: the values matched by a JSONPath must all differ.
//!
//! Why: duplicate task ids make references ambiguous. Example: `unique: "$.tasks[*].id"`
//! reports `tasks[2].id: duplicate value "T1" (first at tasks[0].id)`. Objects are compared
//! without regard to key order.

use std::collections::HashMap;

use super::config::Spec;
use super::path::{Query, canonical};
use super::{Context, Finding};
use rectify_core::pointer_to_path;
use serde_json::Value;

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["first"];

#[derive(Debug, Clone)]
pub(super) struct Unique {
    path: Query,
}

impl Unique {
    pub(super) fn parse(spec: &Spec<'_>) -> Result<Unique, String> {
        Ok(Unique {
            path: spec.query("unique")?,
        })
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        let mut first: HashMap<String, String> = HashMap::new();
        let mut out = Vec::new();
        for (pointer, value) in self.path.matches(&cx.doc.value, "") {
            let key = canonical(value);
            if let Some(earlier) = first.get(&key) {
                out.push(self.duplicate(pointer, value, earlier));
            } else {
                first.insert(key, pointer);
            }
        }
        out
    }

    /// The values that must differ.
    pub(super) fn path(&self) -> &Query {
        &self.path
    }

    /// The finding for `value` at `pointer`, equal to the one at `earlier`.
    pub(super) fn duplicate(&self, pointer: String, value: &Value, earlier: &str) -> Finding {
        let earlier = pointer_to_path(earlier);
        Finding::at(
            pointer,
            format!(
                "duplicate value {} (first at {earlier})",
                rectify_core::truncate_received(value)
            ),
        )
        .expected(format!("a value unique among {}", self.path.text()))
        .received(value)
        .var("first", earlier)
    }
}
