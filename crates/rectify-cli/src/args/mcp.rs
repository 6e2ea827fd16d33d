//! Arguments of `rectify mcp`.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `rectify mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The directory the tools may read and run workflows in: every path a client names is
    /// resolved beneath it (symbolic links followed) and refused if it leaves it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of standard input and output:
    /// `PORT` (on 127.0.0.1) or `HOST:PORT`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// The agent command the `ask` tool uses (after `--`); without one, the provider the
    /// environment chooses, as for `rectify ask`.
    #[arg(last = true, value_name = "AGENT_CMD")]
    pub agent: Vec<String>,
}
