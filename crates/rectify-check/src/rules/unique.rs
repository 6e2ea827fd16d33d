//! `unique`: the values matched by a JSONPath must all differ.
//!
//! Why: duplicate task ids make references ambiguous. Example: `unique: "$.tasks[*].id"`
//! reports `tasks[2].id: duplicate value "T1" (first at tasks[0].id)`. Objects are compared
//! without regard to key order.

use std::collections::HashMap;

use rectify_core::pointer_to_path;
use serde_json::Value;

use super::config::Spec;
use super::path::Query;
use super::{Context, Finding};

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
                let earlier = pointer_to_path(earlier);
                out.push(
                    Finding::at(
                        pointer,
                        format!(
                            "duplicate value {} (first at {earlier})",
                            rectify_core::truncate_received(value)
                        ),
                    )
                    .expected(format!("a value unique among {}", self.path.text()))
                    .received(value)
                    .var("first", earlier),
                );
            } else {
                first.insert(key, pointer);
            }
        }
        out
    }
}

/// A text that is equal for equal values, whatever the key order of objects.
fn canonical(value: &Value) -> String {
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
