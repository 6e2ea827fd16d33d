//! Arguments of `rectify run` and `rectify status`.

use std::path::PathBuf;

use clap::Args;

use super::Output;

/// Arguments of `rectify run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The workflow file (YAML).
    #[arg(value_name = "WORKFLOW")]
    pub workflow: PathBuf,
    /// An input of the workflow, `KEY=VALUE`; repeat for several.
    #[arg(long = "input", short = 'i', value_name = "KEY=VALUE", value_parser = parse_input)]
    pub inputs: Vec<(String, String)>,
    /// The run's id (default: the workflow's name and a unique suffix).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Independent steps run at once.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_parallel: u32,
    /// The working directory: outputs are written there and agents run there; the run store
    /// is its `.rectify/rectify.db`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workdir: PathBuf,
    /// Check the workflow and print the order of its steps without running anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Run it on a Restate server instead of in this process: the ingress address,
    /// `restate://HOST:PORT`. Endpoints started with `rectify serve --restate` run it, with
    /// every model and agent call journaled; the workflow and working directory must be where
    /// they can read them.
    #[arg(long, value_name = "restate://HOST:PORT", conflicts_with = "dry_run")]
    pub on: Option<String>,
    /// `human`: progress and a summary on stderr; `json`: the run's summary on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub output: Output,
}

/// Arguments of `rectify serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve the workflow service to a Restate server (the only kind of endpoint so far).
    #[arg(long, required = true)]
    pub restate: bool,
    /// The address to listen on; register it with Restate's admin API
    /// (`POST /deployments {"uri": "http://ADDR"}`).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9080")]
    pub bind: std::net::SocketAddr,
}

/// Arguments of `rectify resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The run.
    #[arg(value_name = "RUN")]
    pub run: String,
    /// Approve what the run waits for (a human step passes; an exhausted step is accepted as
    /// it is and recorded as accepted by a person with its errors, never as valid).
    #[arg(long, conflicts_with = "reject")]
    pub approve: bool,
    /// Send the work back to its producer with `--feedback`, counters kept.
    #[arg(long, requires = "feedback")]
    pub reject: bool,
    /// What the person wants changed (with `--reject`).
    #[arg(long, value_name = "TEXT", requires = "reject")]
    pub feedback: Option<String>,
    /// Replace an output with your version, `PATH=FILE` (repeatable): at an exhausted step,
    /// its outputs; at a human step, the outputs of a step it needs (the gate then passes).
    /// The edit is checked like any output; an invalid edit is shown and put back.
    #[arg(long = "edit", value_name = "PATH=FILE", value_parser = parse_edit, conflicts_with_all = ["approve", "reject"])]
    pub edits: Vec<(String, PathBuf)>,
    /// The waiting step the decision is about (needed when several wait).
    #[arg(long, value_name = "STEP")]
    pub step: Option<String>,
    /// Independent steps run at once.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_parallel: u32,
    /// The working directory whose `.rectify/rectify.db` holds the run.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workdir: PathBuf,
    /// The run is on a Restate server (started with `rectify run --on`): its ingress,
    /// `restate://HOST:PORT`. `--edit` files are read here and sent with the decision.
    #[arg(long, value_name = "restate://HOST:PORT")]
    pub on: Option<String>,
    /// `human` or `json`.
    #[arg(long, value_enum, default_value_t)]
    pub output: Output,
}

/// Arguments of `rectify status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The run (default: list every run).
    #[arg(value_name = "RUN")]
    pub run: Option<String>,
    /// The working directory whose `.rectify/rectify.db` holds the runs.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workdir: PathBuf,
    /// The run is on a Restate server: its ingress, `restate://HOST:PORT` (needs RUN).
    #[arg(long, value_name = "restate://HOST:PORT", requires = "run")]
    pub on: Option<String>,
    /// `human` or `json`.
    #[arg(long, value_enum, default_value_t)]
    pub output: Output,
}

fn parse_edit(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.is_empty() => {
            Ok((k.trim().to_owned(), PathBuf::from(v)))
        }
        _ => Err(format!("expected PATH=FILE, got `{s}`")),
    }
}

fn parse_input(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got `{s}`")),
    }
}
