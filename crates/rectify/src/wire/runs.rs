//! The run list and the dry run on the wire: typed, so what is printed is what
//! `docs/output/status.schema.json` and `dry-run.schema.json` describe, whatever the store's
//! records carry.
use crate::flow::store::RunRecord;
use serde::Serialize;
use serde_json::Value;

/// `rectify status --output json` without a run id: every run, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct RunListWire<'a> {
    /// The runs.
    pub runs: Vec<RunEntry<'a>>,
}

/// One run of the list.
#[derive(Debug, Clone, Serialize)]
pub struct RunEntry<'a> {
    id: &'a str,
    workflow: &'a str,
    workflow_path: &'a str,
    workflow_hash: &'a str,
    workdir: &'a str,
    inputs: &'a Value,
    status: &'static str,
    created_ms: i64,
    updated_ms: i64,
}

impl<'a> RunListWire<'a> {
    /// The list of `runs` (their status as a reader should see it).
    pub fn new(runs: &'a [RunRecord]) -> RunListWire<'a> {
        let runs = runs
            .iter()
            .map(|r| RunEntry {
                id: &r.id,
                workflow: &r.workflow,
                workflow_path: &r.workflow_path,
                workflow_hash: &r.workflow_hash,
                workdir: &r.workdir,
                inputs: &r.inputs,
                status: r.status.as_str(),
                created_ms: r.created_ms,
                updated_ms: r.updated_ms,
            })
            .collect();
        RunListWire { runs }
    }
}

/// `rectify run --dry-run --output json`: the workflow is valid, and its levels (the steps of
/// one level may run in parallel).
#[derive(Debug, Clone, Serialize)]
pub struct DryRunWire<'a> {
    /// The workflow's name.
    pub workflow: &'a str,
    /// Always `true`: an invalid workflow is a configuration error (exit 2), not this.
    pub valid: bool,
    /// The steps in order, level by level.
    pub levels: Vec<Vec<&'a str>>,
}
