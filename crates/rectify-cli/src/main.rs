//! The `rectify` binary: parses arguments, runs one command, maps the result to an exit code.

mod args;
mod commands;
mod config;
mod exit;
mod input;
mod printer;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Agents run as this user: they must not read this process's keys through `/proc`.
    #[cfg(target_os = "linux")]
    if let Err(e) = rectify::provider::hide_environment() {
        eprintln!("warning: this process could not hide its environment from agents: {e}");
    }
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => exit::report_error(&err).into(),
    }
}
