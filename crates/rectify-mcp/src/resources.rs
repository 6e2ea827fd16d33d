//! Resources: the diagnostic-code catalogue, and the runs of the root's store with their
//! reports.

use rectify::flow::{Report, RunSummary, Store};
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};

use crate::Root;

/// The catalogue of diagnostic codes (docs/diagnostics.md), built in.
pub const DIAGNOSTICS: &str = include_str!("../../../docs/diagnostics.md");

const CATALOGUE: &str = "rectify://diagnostics";
const RUNS: &str = "rectify://runs/";

/// The catalogue and every run of the root's store.
pub fn list(root: &Root) -> Vec<Resource> {
    let mut out = vec![
        Resource::new(CATALOGUE, "diagnostics")
            .with_description("Every diagnostic code rectify reports, with its meaning")
            .with_mime_type("text/markdown"),
    ];
    let runs = Store::open_existing(root.path())
        .ok()
        .flatten()
        .and_then(|store| store.runs().ok())
        .unwrap_or_default();
    for run in runs {
        out.push(
            Resource::new(format!("{RUNS}{}", run.id), format!("run {}", run.id))
                .with_description(format!(
                    "The run `{}` of `{}`: its steps and what it waits for",
                    run.id, run.workflow
                ))
                .with_mime_type("application/json"),
        );
        out.push(
            Resource::new(
                format!("{RUNS}{}/report", run.id),
                format!("report of {}", run.id),
            )
            .with_description("The run's whole record: attempts, raw answers, diagnostics, repairs")
            .with_mime_type("application/json"),
        );
    }
    out
}

/// The run resources, by id.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{RUNS}{{id}}"), "run")
            .with_description(
                "A run of the root's store: its steps and what it waits for (as the `status` tool)",
            )
            .with_mime_type("application/json"),
        ResourceTemplate::new(format!("{RUNS}{{id}}/report"), "run report")
            .with_description("A run's whole record (as the `report` tool)")
            .with_mime_type("application/json"),
    ]
}

/// Reads `uri`.
pub fn read(root: &Root, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri == CATALOGUE {
        return Ok(text(DIAGNOSTICS.to_owned(), uri, "text/markdown"));
    }
    let Some(rest) = uri.strip_prefix(RUNS) else {
        return Err(ErrorData::resource_not_found(
            format!("no resource `{uri}`"),
            None,
        ));
    };
    let (id, report) = match rest.strip_suffix("/report") {
        Some(id) => (id, true),
        None => (rest, false),
    };
    let value = run_value(root, id, report)?;
    Ok(text(value.to_string(), uri, "application/json"))
}

fn run_value(root: &Root, id: &str, report: bool) -> Result<serde_json::Value, ErrorData> {
    let missing = || ErrorData::resource_not_found(format!("no run `{id}`"), None);
    let internal = |e: &dyn std::fmt::Display| ErrorData::internal_error(e.to_string(), None);
    let store = Store::open_existing(root.path())
        .map_err(|e| internal(&e))?
        .ok_or_else(missing)?;
    let value = if report {
        let report = Report::load(&store, id)
            .map_err(|e| internal(&e))?
            .ok_or_else(missing)?;
        crate::wire::report(&report)
    } else {
        let summary = RunSummary::find(&store, id)
            .map_err(|e| internal(&e))?
            .ok_or_else(missing)?;
        crate::wire::run(&summary, root.path())
    };
    value.map_err(|e| internal(&e.message()))
}

fn text(body: String, uri: &str, mime: &str) -> ReadResourceResult {
    ReadResourceResult::new(vec![ResourceContents::text(body, uri).with_mime_type(mime)])
}
