//! Arguments of `rectify check`.

use std::path::PathBuf;

use clap::Args;
use rectify::Format;

use super::{Output, RefArg, parse_ref};

/// Arguments of `rectify check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The document to check, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub file: String,
    /// A JSON Schema (JSON or YAML) the document must satisfy; repeat to require several.
    #[arg(long, value_name = "SCHEMA")]
    pub schema: Vec<PathBuf>,
    /// Let the schema's `$ref`s read any local file (default: only files under the schema's
    /// own directory; remote references are never fetched).
    #[arg(long)]
    pub refs_anywhere: bool,
    /// A rules file (YAML) with cross-document and structure rules.
    #[arg(long, value_name = "RULES")]
    pub rules: Option<PathBuf>,
    /// A document the rules refer to by name; overrides the rules file's `documents`.
    #[arg(long = "ref", value_name = "NAME=FILE", value_parser = parse_ref)]
    pub refs: Vec<RefArg>,
    /// The document's format (default: from the extension, else guessed from the content).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t)]
    pub output: Output,
}
