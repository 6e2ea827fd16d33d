//! One file per command.

mod ask;
#[cfg(feature = "workflow")]
mod backend;
mod check;
#[cfg(feature = "mcp")]
mod mcp;
mod repair;
#[cfg(feature = "workflow")]
mod report;
#[cfg(feature = "workflow")]
mod run;
#[cfg(feature = "workflow")]
mod runs;
#[cfg(feature = "workflow")]
mod serve;
#[cfg(feature = "workflow")]
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
        #[cfg(feature = "workflow")]
        Command::Run(args) => run::run(&args),
        #[cfg(feature = "workflow")]
        Command::Resume(args) => run::resume(&args),
        #[cfg(feature = "workflow")]
        Command::Status(args) => status::run(&args),
        #[cfg(feature = "workflow")]
        Command::Report(args) => report::run(&args),
        #[cfg(feature = "workflow")]
        Command::Runs(args) => runs::run(&args),
        #[cfg(feature = "workflow")]
        Command::Serve(args) => serve::run(&args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => mcp::run(&args),
    }
}

/// Waits for SIGINT or SIGTERM; returns the exit code for it (130 or 143).
pub(crate) async fn interrupted() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => 130,
        _ = term.recv() => 143,
    }
}
