//! `rectify check`: validate a document against schemas and rules without changing it.

use anyhow::Result;
use rectify::check::SchemaSet;
use rectify::parse::Limits;
use rectify::{Diagnostic, Document, Repair};

use crate::args::{CheckArgs, Output};
use crate::exit::ExitStatus;
use crate::printer::human::HumanPrinter;
use crate::printer::json::print;
use crate::{config, input};

/// Runs `rectify check`.
pub fn run(args: &CheckArgs) -> Result<ExitStatus> {
    let limits = Limits::default();
    let judge = build_judge(args, &limits)?;
    let source = input::read_source(&args.file, &limits)?;
    let format = input::format_of(&source, args.format);
    // The MCP server's `check` tool makes the same call: the same answer, lines included.
    let checked = rectify::check_file(&judge, source.bytes, format, &limits);
    emit(
        args,
        &checked.diagnostics,
        &checked.repairs,
        checked.valid,
        checked.document.as_ref(),
    )?;
    Ok(if checked.valid {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// Compiles the schemas, reads the rules and their reference documents: everything that can
/// be wrong with the configuration fails here, before the document is read.
fn build_judge(args: &CheckArgs, limits: &Limits) -> Result<rectify::Validator> {
    let mut schemas = SchemaSet::new();
    for path in &args.schema {
        schemas.push(config::schema(path, limits, args.refs_anywhere)?.1);
    }
    let rules = match &args.rules {
        Some(path) => Some(config::rules(path, &args.refs, limits)?),
        None => None,
    };
    config::judge(schemas, rules)
}

fn emit(
    args: &CheckArgs,
    diagnostics: &[Diagnostic],
    repairs: &[Repair],
    valid: bool,
    doc: Option<&Document>,
) -> Result<()> {
    match args.output {
        Output::Json => print(&rectify::wire::CheckWire::new(valid, diagnostics, repairs))?,
        Output::Human => {
            let name = if args.file == "-" {
                "<stdin>"
            } else {
                &args.file
            };
            super::repair::write_repairs(repairs)?;
            HumanPrinter::stderr().print(diagnostics, name, doc)?;
        }
    }
    Ok(())
}
