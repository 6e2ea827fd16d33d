//! Loading what commands are configured with: schemas, rules files and their reference
//! documents. Anything wrong here is a configuration error (exit 2).

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::exit::Hint;
use rectify::check::{CompiledSchema, RefAccess, References, RuleSet};
use rectify::parse::Limits;
use rectify::setup::{SetupError, SetupErrorKind};
use serde_json::Value;

use crate::args::RefArg;

/// Reads and compiles the schema at `path` ([`rectify::setup::schema`]); returns its value
/// too. Its `$ref`s read only files under its directory unless `refs_anywhere`.
pub fn schema(
    path: &Path,
    limits: &Limits,
    refs_anywhere: bool,
) -> Result<(Value, CompiledSchema)> {
    let access = if refs_anywhere {
        RefAccess::Anywhere
    } else {
        RefAccess::SchemaDir
    };
    rectify::setup::schema(path, limits, access).map_err(with_hint)
}

/// A setup error with the hint a command-line user needs (the flag that would help).
fn with_hint(e: SetupError) -> anyhow::Error {
    let hint = match &e.kind {
        SetupErrorKind::RefOutside => {
            Some("`--refs-anywhere` lets the schema's `$ref`s read any local file".to_owned())
        }
        SetupErrorKind::MissingDocument { name } => Some(format!("`--ref {name}=FILE` gives it")),
        _ => None,
    };
    match hint {
        // The hint goes last in the chain, under the cause it is about.
        Some(hint) => anyhow::Error::new(Hint(hint)).context(e.message),
        None => anyhow::Error::new(e),
    }
}

/// Builds the judge of `schemas` and `rules` (files: located, not repaired), with the hint a
/// CLI user needs when a rule names a document that was not given.
pub fn judge(
    schemas: rectify::check::SchemaSet,
    rules: Option<(RuleSet, References)>,
) -> Result<rectify::Validator> {
    let mut builder = rectify::Validator::builder()
        .schemas(schemas)
        .repair(rectify::RepairPolicy::Off)
        .reading(rectify::Reading::File);
    if let Some((rules, references)) = rules {
        builder = builder.rules(rules, references);
    }
    builder
        .build()
        .map_err(|e| with_hint(rectify::setup::config_error(&e)))
}

/// Reads the rules file at `path` and the documents it names, overridden by `--ref`
/// ([`rectify::setup::rules`]).
pub fn rules(path: &Path, refs: &[RefArg], limits: &Limits) -> Result<(RuleSet, References)> {
    let refs: Vec<(String, PathBuf)> = refs
        .iter()
        .map(|r| (r.name.clone(), r.path.clone()))
        .collect();
    rectify::setup::rules(path, &refs, limits).map_err(with_hint)
}
