//! Loading what commands are configured with: schemas, rules files and their reference
//! documents. Anything wrong here is a configuration error (exit 2).

use std::path::Path;

use anyhow::{Context, Result};

use crate::exit::Hint;
use rectify::check::{CompiledSchema, RefAccess, References, RuleSet};
use rectify::parse::Limits;
use serde_json::Value;

use crate::args::RefArg;
use crate::input;

/// Reads and compiles the schema at `path`; returns its value too. Its `$ref`s read only
/// files under its directory unless `refs_anywhere`.
pub fn schema(
    path: &Path,
    limits: &Limits,
    refs_anywhere: bool,
) -> Result<(Value, CompiledSchema)> {
    let doc = input::read_config_document(path, "schema", limits)?;
    let name = path.display().to_string();
    let access = if refs_anywhere {
        RefAccess::Anywhere
    } else {
        RefAccess::SchemaDir
    };
    let compiled = CompiledSchema::compile_named_with(&doc.value, &name, Some(path), access)
        .map_err(|e| {
            let text = e.to_string();
            let err = if text.contains("outside the schema's directory") {
                // The hint goes last in the chain, under the cause it is about.
                anyhow::Error::new(Hint(
                    "`--refs-anywhere` lets the schema's `$ref`s read any local file".to_owned(),
                ))
                .context(text)
            } else {
                anyhow::Error::new(e)
            };
            err.context(format!("cannot use the schema `{name}`"))
        })?;
    Ok((doc.value, compiled))
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
    builder.build().map_err(|e| match &e {
        rectify::check::ConfigError::MissingDocument { name, .. } => {
            let hint = format!("`--ref {name}=FILE` gives it");
            anyhow::Error::new(Hint(hint)).context(e.to_string())
        }
        _ => e.into(),
    })
}

/// Reads the rules file at `path` and the documents it names, overridden by `--ref`.
pub fn rules(path: &Path, refs: &[RefArg], limits: &Limits) -> Result<(RuleSet, References)> {
    let doc = input::read_config_document(path, "rules file", limits)?;
    let rules = RuleSet::from_document(&doc, path.parent())
        .with_context(|| format!("the rules file `{}` is not valid", path.display()))?;
    let mut documents = References::new();
    for (name, doc_path) in rules.documents() {
        if !refs.iter().any(|r| &r.name == name) {
            documents.insert(name.clone(), reference(name, doc_path, limits)?);
        }
    }
    for r in refs {
        documents.insert(r.name.clone(), reference(&r.name, &r.path, limits)?);
    }
    Ok((rules, documents))
}

fn reference(name: &str, path: &Path, limits: &Limits) -> Result<rectify::Document> {
    input::read_config_document(path, &format!("reference document `{name}`"), limits)
}
