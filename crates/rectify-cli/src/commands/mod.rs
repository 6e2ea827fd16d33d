//! One file per command.

mod check;

use anyhow::Result;

use crate::args::{Cli, Command};
use crate::exit::ExitStatus;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitStatus> {
    match cli.command {
        Command::Check(args) => check::run(&args),
    }
}
