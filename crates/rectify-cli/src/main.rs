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
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => exit::report_error(&err).into(),
    }
}
