//! `rectify check`: validate a document against schemas and rules without changing it.

use anyhow::Result;
use rectify::check::SchemaSet;
use rectify::parse::{Limits, Parsed};
use rectify::repair::UnwrappedMarkdown;
use rectify::{Diagnostic, Document, Format, Repair, SpanMap};

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
    let (parsed, unfenced) = read(source.bytes, format, &limits);
    let mut diagnostics = parsed.diagnostics;
    if let Some(doc) = &parsed.document {
        diagnostics.extend(judge.check_document(doc));
    }
    let valid = parsed.document.is_some() && !diagnostics.iter().any(Diagnostic::is_error);
    let (repairs, shown) = match unfenced {
        Some((found, original)) => {
            relocate(&mut diagnostics, &found);
            (found.repairs, Some(original))
        }
        None => (Vec::new(), parsed.document),
    };
    emit(args, &diagnostics, &repairs, valid, shown.as_ref())?;
    Ok(if valid {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// Reads the document. A Markdown document wrapped whole in a ```` ```markdown ```` fence
/// (with a line of prose around it) is read as the fence's content; the unwrapping and the
/// whole text (which the diagnostics are moved back into) come with it.
fn read(
    bytes: Vec<u8>,
    format: Format,
    limits: &Limits,
) -> (Parsed, Option<(UnwrappedMarkdown, Document)>) {
    if format == Format::Markdown
        && let Ok(text) = std::str::from_utf8(&bytes)
        && let Some(found) = rectify::repair::unwrap_markdown(text)
    {
        let parsed = rectify::parse::read(found.document(text).to_owned(), format, limits);
        let original = Document::new(
            format,
            text.to_owned(),
            serde_json::Value::Null,
            SpanMap::default(),
        );
        return (parsed, Some((found, original)));
    }
    (rectify::parse::read_bytes(bytes, format, limits), None)
}

/// Moves the diagnostics' spans from the unwrapped document into the whole text.
fn relocate(diagnostics: &mut [Diagnostic], found: &UnwrappedMarkdown) {
    for d in diagnostics {
        d.location.span = d.location.span.map(|s| found.relocate(s));
    }
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
