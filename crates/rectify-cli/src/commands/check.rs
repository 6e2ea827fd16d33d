//! `rectify check`: validate a document against schemas and rules without changing it.

use anyhow::Result;
use rectify_check::{Checker, SchemaSet};
use rectify_core::{Diagnostic, Document};
use rectify_parse::Limits;

use crate::args::{CheckArgs, Output};
use crate::exit::ExitStatus;
use crate::printer::human::HumanPrinter;
use crate::printer::json::{CheckOutput, print};
use crate::{config, input};

/// Runs `rectify check`.
pub fn run(args: &CheckArgs) -> Result<ExitStatus> {
    let limits = Limits::default();
    let checker = build_checker(args, &limits)?;
    let source = input::read_source(&args.file, &limits)?;
    let format = input::format_of(&source, args.format);
    let parsed = rectify_parse::read_bytes(source.bytes, format, &limits);
    let mut diagnostics = parsed.diagnostics;
    if let Some(doc) = &parsed.document {
        diagnostics.extend(checker.check(doc));
    }
    let valid = parsed.document.is_some() && !diagnostics.iter().any(Diagnostic::is_error);
    emit(args, &diagnostics, valid, parsed.document.as_ref())?;
    Ok(if valid {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// Compiles the schemas, reads the rules and their reference documents: everything that can
/// be wrong with the configuration fails here, before the document is read.
fn build_checker(args: &CheckArgs, limits: &Limits) -> Result<Checker> {
    let mut schemas = SchemaSet::new();
    for path in &args.schema {
        schemas.push(config::schema(path, limits, args.refs_anywhere)?.1);
    }
    let rules = match &args.rules {
        Some(path) => Some(config::rules(path, &args.refs, limits)?),
        None => None,
    };
    config::checker(schemas, rules)
}

fn emit(
    args: &CheckArgs,
    diagnostics: &[Diagnostic],
    valid: bool,
    doc: Option<&Document>,
) -> Result<()> {
    match args.output {
        Output::Json => print(&CheckOutput::new(valid, diagnostics, &[]))?,
        Output::Human => {
            let name = if args.file == "-" {
                "<stdin>"
            } else {
                &args.file
            };
            HumanPrinter::stderr().print(diagnostics, name, doc)?;
        }
    }
    Ok(())
}
