//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

mod ask;
mod check;
#[cfg(feature = "mcp")]
mod mcp;
mod repair;
#[cfg(feature = "workflow")]
mod report;
#[cfg(feature = "workflow")]
mod run;

pub use ask::AskArgs;
pub use check::CheckArgs;
#[cfg(feature = "mcp")]
pub use mcp::McpArgs;
pub use repair::{RepairArgs, RepairOutput};
#[cfg(feature = "workflow")]
pub use report::{ReportArgs, ReportFormat, RunsArgs, RunsCommand};
#[cfg(feature = "workflow")]
pub use run::{ResumeArgs, RunArgs, ServeArgs, StatusArgs};

/// Validate, repair and retry the structured output of language models and agents.
#[derive(Debug, Parser)]
#[command(name = "rectify", version, about, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a document against schemas and rules without changing it.
    ///
    /// Exit status: 0 valid, 1 invalid content, 2 usage or configuration error.
    Check(CheckArgs),
    /// Extract and repair the structured payload of model output, recording every repair.
    ///
    /// Prints the repaired JSON on stdout and the repairs on stderr. Exit status: 0 a value was
    /// recovered, 1 none could be (or `--strict` and a repair was needed), 2 usage error.
    Repair(RepairArgs),
    /// Ask a model for JSON that satisfies a schema (and rules); repair, check, feed the
    /// problems back and retry.
    ///
    /// Prints the valid JSON on stdout. Exit status: 0 valid, 2 usage or configuration error,
    /// 3 no valid answer within the attempts or budget (escalate to a human) or a refusal,
    /// 4 provider error after transport retries.
    Ask(Box<AskArgs>),
    /// Run a workflow: its steps as a DAG, every output repaired and checked, failures sent
    /// to a repair agent or back to the producer, validators, human pauses.
    ///
    /// Exit status: 0 completed, 1 failed, 2 configuration error (located, before any model
    /// is called), 3 waiting for a person, 4 provider error after transport retries.
    #[cfg(feature = "workflow")]
    Run(RunArgs),
    /// Continue a run: finished steps are not run again, answers already recorded are not
    /// asked again, and a person's decision on what it waits for is applied.
    ///
    /// Exit status as for `run`; 2 when the run does not exist, is finished, or is being run
    /// by another live process.
    #[cfg(feature = "workflow")]
    Resume(ResumeArgs),
    /// Show a run (or list the runs): its steps, counters, and what it waits for.
    ///
    /// Exit status: 0, or 2 when the run does not exist.
    #[cfg(feature = "workflow")]
    Status(StatusArgs),
    /// Report a run: every step with its attempts and raw answers, the diagnostics each was
    /// sent back for, repairs, verdicts, tokens, cost and timings, and what it waits for —
    /// as one self-contained HTML page (default) or JSON.
    ///
    /// Exit status: 0, or 2 when the run does not exist.
    #[cfg(feature = "workflow")]
    Report(ReportArgs),
    /// Manage the stored runs (`rectify runs prune --older-than 30d`).
    #[cfg(feature = "workflow")]
    Runs(RunsArgs),
    /// Serve workflow runs to a Restate server (`--restate`): an endpoint that runs the runs
    /// `rectify run --on restate://…` starts, every model and agent call journaled, so a run
    /// survives the endpoint's death without repeating a finished call.
    ///
    /// Runs until Ctrl-C or SIGTERM. Exit status: 0, or 2 when it cannot listen.
    #[cfg(feature = "workflow")]
    Serve(ServeArgs),
    /// Serve rectify to coding agents over the Model Context Protocol: the tools `check`,
    /// `repair`, `ask`, `run`, `status`, `resume` and `report`, the runs as resources, and a
    /// "fix these diagnostics" prompt, confined to `--root`.
    ///
    /// Standard input and output by default (the agent starts `rectify mcp`), or Streamable
    /// HTTP with `--http ADDR` (loopback unless a host is given). Exit status: 0 when the client
    /// closes the connection, 2 when the root or the address cannot be used.
    #[cfg(feature = "mcp")]
    Mcp(McpArgs),
}

/// How results are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Diagnostics with code frames on stderr.
    #[default]
    Human,
    /// One JSON document on stdout.
    Json,
}

/// A named reference document, `NAME=FILE`.
#[derive(Clone, Debug)]
pub struct RefArg {
    /// The name rules use (`plan` in `plan:$.phases[*].id`).
    pub name: String,
    /// The file.
    pub path: PathBuf,
}

pub fn parse_ref(s: &str) -> Result<RefArg, String> {
    match s.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => Ok(RefArg {
            name: name.to_owned(),
            path: PathBuf::from(path),
        }),
        _ => Err(format!("expected NAME=FILE, got `{s}`")),
    }
}
