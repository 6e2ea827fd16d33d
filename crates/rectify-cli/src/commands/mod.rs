//! One file per command.

mod ask;
mod backend;
mod check;
mod mcp;
mod repair;
mod report;
mod run;
mod runs;
mod serve;
mod status;

use anyhow::Result;

use crate::args::{Cli, Command};
use crate::exit::ExitStatus;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitStatus> {
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Repair(args) => repair::run(&args),
        Command::Ask(args) => ask::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Resume(args) => run::resume(&args),
        Command::Status(args) => status::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Runs(args) => runs::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Mcp(args) => mcp::run(&args),
    }
}
