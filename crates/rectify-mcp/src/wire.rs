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
    /// `status` with no run: the list of runs.
    pub const STATUS: &str = include_str!("../../../docs/output/status.schema.json");
    /// `run` with `wait: false`: the run id of a run that goes on in the server.
    pub const STARTED: &str = r#"{
  "title": "rectify mcp: run with wait false",
  "type": "object",
  "additionalProperties": false,
  "required": ["run_id", "status"],
  "properties": {"run_id": {"type": "string"}, "status": {"const": "running"}}
}"#;
}

/// A schema of [`schemas`] as a tool's output schema (without `$schema`: clients compile it
/// with their own draft). An unreadable one is empty, which accepts anything (the unit test
/// below reads them all).
pub fn output_schema(text: &str) -> Arc<JsonObject> {
    let mut schema: JsonObject = serde_json::from_str(text).unwrap_or_default();
    schema.remove("$schema");
    Arc::new(schema)
}

/// The output schema of a tool that answers with one of several wire formats (`run`: a
/// run's summary, or [`schemas::STARTED`]; `status`: a summary or the list): an object schema
/// whose `anyOf` holds each of `texts`, their `$defs` moved to the top, where their `$ref`s
/// (`#/$defs/...`) point. Definitions of the same name are the same in every wire schema
/// (a unit test below holds them to it).
pub fn output_schema_any_of(texts: &[&str]) -> Arc<JsonObject> {
    let mut defs = JsonObject::new();
    let mut branches = Vec::with_capacity(texts.len());
    for text in texts {
        let mut schema = Arc::unwrap_or_clone(output_schema(text));
        if let Some(serde_json::Value::Object(d)) = schema.remove("$defs") {
            defs.extend(d);
        }
        branches.push(serde_json::Value::Object(schema));
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("anyOf".into(), serde_json::Value::Array(branches));
    if !defs.is_empty() {
        schema.insert("$defs".into(), serde_json::Value::Object(defs));
    }
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
            schemas::STATUS,
            schemas::STARTED,
        ] {
            let schema = output_schema(text);
            assert_eq!(schema["type"], "object", "{text}");
            assert!(!schema.contains_key("$schema"));
        }
    }

    #[test]
    fn definitions_of_the_same_name_agree_across_the_run_and_status_schemas() {
        let defs = |text: &str| output_schema(text)["$defs"].as_object().cloned().unwrap();
        let run = defs(schemas::RUN);
        for (name, def) in defs(schemas::STATUS) {
            if let Some(other) = run.get(&name) {
                assert_eq!(other, &def, "$defs/{name}");
            }
        }
    }

    /// The combined schemas accept each wire format they join and refuse what none is.
    #[test]
    fn combined_schemas_accept_each_of_their_shapes() {
        use rectify::check::CompiledSchema;
        let compile = |texts: &[&str]| {
            let schema =
                serde_json::Value::Object(Arc::unwrap_or_clone(output_schema_any_of(texts)));
            assert_eq!(schema["type"], "object");
            CompiledSchema::compile(&schema).unwrap()
        };
        let run = compile(&[schemas::RUN, schemas::STARTED]);
        assert!(run.is_valid(&serde_json::json!({"run_id": "r1", "status": "running"})));
        let waiting = serde_json::json!({
            "run_id": "r1", "workflow": "w", "status": "completed", "waiting": null, "steps": []
        });
        assert!(run.is_valid(&waiting));
        assert!(!run.is_valid(&serde_json::json!({"run_id": "r1", "status": "done"})));
        let status = compile(&[schemas::RUN, schemas::STATUS]);
        assert!(status.is_valid(&waiting));
        assert!(status.is_valid(&serde_json::json!({"runs": []})));
        assert!(!status.is_valid(&serde_json::json!({"runs": 3})));
    }
}
