//! The tools' structured output: the wire formats of `--output json` (`rectify::wire`,
//! docs/output.md), and their JSON Schemas (docs/output/), which `tools/list` shows as each
//! tool's output schema.

use std::sync::Arc;

use rmcp::model::JsonObject;

use crate::tools::{ToolError, ToolResult, to_value};

/// `rectify run`, `resume` and `status RUN --output json`; `workdir` goes into the commands
/// that continue a waiting run.
pub fn run(summary: &rectify::flow::RunSummary, workdir: &std::path::Path) -> ToolResult {
    to_value(&rectify::wire::RunWire::new(
        summary,
        &workdir.to_string_lossy(),
    ))
}

/// `rectify report RUN --output json`.
pub fn report(report: &rectify::flow::Report) -> ToolResult {
    rectify::wire::report(report).map_err(|e| ToolError::new(format!("cannot serialise: {e}")))
}

/// The output schemas of the tools whose answer has one shape.
pub mod schemas {
    /// `check`.
    pub const CHECK: &str = include_str!("../../../docs/output/check.schema.json");
    /// `repair`.
    pub const REPAIR: &str = include_str!("../../../docs/output/repair.schema.json");
    /// `ask`.
    pub const ASK: &str = include_str!("../../../docs/output/ask.schema.json");
    /// `resume` (and `run` when it waits, `status` of one run).
    pub const RUN: &str = include_str!("../../../docs/output/run.schema.json");
    /// `report`.
    pub const REPORT: &str = include_str!("../../../docs/output/report.schema.json");
}

/// A schema of [`schemas`] as a tool's output schema (without `$schema`: clients compile it
/// with their own draft). An unreadable one is empty, which accepts anything (the unit test
/// below reads them all).
pub fn output_schema(text: &str) -> Arc<JsonObject> {
    let mut schema: JsonObject = serde_json::from_str(text).unwrap_or_default();
    schema.remove("$schema");
    Arc::new(schema)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn every_output_schema_is_an_object_schema() {
        for text in [
            schemas::CHECK,
            schemas::REPAIR,
            schemas::ASK,
            schemas::RUN,
            schemas::REPORT,
        ] {
            let schema = output_schema(text);
            assert_eq!(schema["type"], "object", "{text}");
            assert!(!schema.contains_key("$schema"));
        }
    }
}
