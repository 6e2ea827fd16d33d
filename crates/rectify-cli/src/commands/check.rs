//! `rectify check`: validate a document against schemas and rules without changing it.

use anyhow::{Context, Result};
use rectify_check::{Checker, CompiledSchema, References, RuleSet, SchemaSet};
use rectify_core::{Diagnostic, Document};
use rectify_parse::Limits;

use crate::args::{CheckArgs, Output};
use crate::exit::ExitStatus;
use crate::input;
use crate::printer::human::HumanPrinter;
use crate::printer::json::{CheckOutput, print};

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
    let mut builder = Checker::builder().schemas(load_schemas(args, limits)?);
    if let Some(path) = &args.rules {
        let doc = input::read_config_document(path, "rules file", limits)?;
        let rules = RuleSet::from_document(&doc, path.parent())
            .with_context(|| format!("the rules file `{}` is not valid", path.display()))?;
        builder = builder
            .references(load_references(&rules, args, limits)?)
            .rules(rules);
    }
    Ok(builder.build()?)
}

/// The documents named in the rules file, overridden by `--ref NAME=FILE`.
fn load_references(rules: &RuleSet, args: &CheckArgs, limits: &Limits) -> Result<References> {
    let mut refs = References::new();
    for (name, path) in rules.documents() {
        if !args.refs.iter().any(|r| &r.name == name) {
            let what = format!("reference document `{name}`");
            refs.insert(
                name.clone(),
                input::read_config_document(path, &what, limits)?,
            );
        }
    }
    for r in &args.refs {
        let what = format!("reference document `{}`", r.name);
        refs.insert(
            r.name.clone(),
            input::read_config_document(&r.path, &what, limits)?,
        );
    }
    Ok(refs)
}

fn load_schemas(args: &CheckArgs, limits: &Limits) -> Result<SchemaSet> {
    let mut set = SchemaSet::new();
    for path in &args.schema {
        let doc = input::read_config_document(path, "schema", limits)?;
        let name = path.display().to_string();
        let schema = CompiledSchema::compile_named(&doc.value, &name, Some(path))
            .with_context(|| format!("cannot use the schema `{name}`"))?;
        set.push(schema);
    }
    Ok(set)
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
