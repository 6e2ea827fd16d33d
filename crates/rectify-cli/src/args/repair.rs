//! Arguments of `rectify repair`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rectify::Format;

/// What `rectify repair` prints on stdout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum RepairOutput {
    /// The repaired document as JSON; repairs and problems on stderr.
    #[default]
    Value,
    /// One JSON document: `valid`, `value`, `diagnostics`, `repairs`.
    Json,
}

/// Arguments of `rectify repair`.
#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The model output to repair, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub file: String,
    /// A JSON Schema that guides coercion and the choice between several candidates.
    #[arg(long, value_name = "SCHEMA")]
    pub schema: Option<PathBuf>,
    /// The payload's format (default: detected).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Also apply repairs that may change meaning (dropping text, coercing across types).
    #[arg(long = "unsafe")]
    pub allow_unsafe: bool,
    /// Fail (exit 1) if any repair was needed.
    #[arg(long, conflicts_with = "allow_unsafe")]
    pub strict: bool,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub output: RepairOutput,
}
