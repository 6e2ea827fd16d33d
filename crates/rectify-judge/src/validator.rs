//! The compiled judge: what is checked and how repair may help, built once and reused.

use std::fmt;
use std::sync::Arc;

use rectify_check::{Checker, CompiledSchema, ConfigError, References, RuleSet, SchemaSet};
use rectify_core::{Diagnostic, Format};
use serde_json::Value;

use crate::{Ending, Judgement};

/// A check of a value written as a function (a typed constraint, a business rule), named
/// for the `source` of its diagnostics (`validator:NAME`).
pub type ValueCheck = dyn Fn(&Value) -> Vec<Diagnostic> + Send + Sync;

/// A compiled schema and its value (which guides repair and is sent to providers).
#[derive(Debug)]
pub struct Schema {
    /// Compiled once (shared: a type's schema is compiled once per process).
    pub compiled: Arc<CompiledSchema>,
    /// The schema as read.
    pub value: Value,
}

impl Schema {
    /// Compiles `value`.
    pub fn compile(value: Value) -> Result<Schema, ConfigError> {
        Ok(Schema {
            compiled: Arc::new(CompiledSchema::compile(&value)?),
            value,
        })
    }
}

/// Which repairs may be applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RepairPolicy {
    /// None: the text is judged as written (`rectify check`).
    Off,
    /// The safe ones (the default).
    #[default]
    Safe,
    /// Also the unsafe ones (guesses that may change meaning, recorded as such).
    Unsafe,
}

/// What the text is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reading {
    /// A model's answer: a value, maybe inside prose or a fence, checked as a value (paths,
    /// no line numbers).
    #[default]
    Answer,
    /// A file of a known format: checked with line and column; when repair helps, the
    /// repaired text is given in the file's own format to be written back.
    File,
}

/// The one judge (see the crate docs): compiled once, then [`Validator::judge`] any number
/// of texts, from any thread.
#[derive(Clone, Default)]
pub struct Validator {
    pub(crate) format: Option<Format>,
    pub(crate) schema: Option<Arc<Schema>>,
    pub(crate) checker: Option<Arc<Checker>>,
    pub(crate) checks: Vec<(String, Arc<ValueCheck>)>,
    pub(crate) repair: RepairPolicy,
    pub(crate) reading: Reading,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.checks.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Validator")
            .field("format", &self.format)
            .field("schema", &self.schema.as_ref().map(|s| &s.value))
            .field("checker", &self.checker)
            .field("checks", &names)
            .field("repair", &self.repair)
            .field("reading", &self.reading)
            .finish()
    }
}

impl Validator {
    /// A builder with nothing to check, safe repairs, reading answers.
    pub fn builder() -> ValidatorBuilder {
        ValidatorBuilder::default()
    }

    /// A validator of parts compiled already (nothing left to fail), reading answers with
    /// safe repairs; the `with_*` methods change the rest.
    pub fn compiled(schema: Option<Arc<Schema>>, checker: Option<Arc<Checker>>) -> Validator {
        Validator {
            schema,
            checker,
            ..Validator::default()
        }
    }

    /// Adds a named function check.
    pub fn with_check(mut self, name: impl Into<String>, check: Arc<ValueCheck>) -> Validator {
        self.checks.push((name.into(), check));
        self
    }

    /// Sets which repairs may be applied.
    pub fn with_repair(mut self, policy: RepairPolicy) -> Validator {
        self.repair = policy;
        self
    }

    /// Sets what the texts are and their format.
    pub fn with_reading(mut self, reading: Reading, format: Option<Format>) -> Validator {
        self.reading = reading;
        self.format = format;
        self
    }

    /// The validator of one schema with the default policy.
    pub fn for_schema(schema: &Value) -> Result<Validator, ConfigError> {
        Validator::builder().schema_value(schema.clone()).build()
    }

    /// The schema, when there is one.
    pub fn schema(&self) -> Option<&Arc<Schema>> {
        self.schema.as_ref()
    }

    /// The checker of the further schemas and the rules, when there is one.
    pub fn checker(&self) -> Option<&Arc<Checker>> {
        self.checker.as_ref()
    }

    /// The format texts are read as (`None`: found in the text, for answers).
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Judges a text that ended normally (a file, or an answer that finished).
    pub fn validate(&self, text: &str) -> Judgement {
        self.judge(text, Ending::Complete)
    }

    /// Whether `text` is valid as written or once repaired.
    pub fn is_valid(&self, text: &str) -> bool {
        self.validate(text).is_valid()
    }
}

/// Builds a [`Validator`]; every configuration error surfaces in [`ValidatorBuilder::build`].
#[derive(Default)]
pub struct ValidatorBuilder {
    format: Option<Format>,
    schema: Option<Arc<Schema>>,
    schema_value: Option<Value>,
    schemas: SchemaSet,
    rules: Option<(RuleSet, References)>,
    checks: Vec<(String, Arc<ValueCheck>)>,
    repair: RepairPolicy,
    reading: Reading,
}

impl ValidatorBuilder {
    /// The format texts are read as.
    pub fn format(mut self, format: Option<Format>) -> ValidatorBuilder {
        self.format = format;
        self
    }

    /// The schema, compiled already (it also guides repair).
    pub fn schema(mut self, schema: Option<Arc<Schema>>) -> ValidatorBuilder {
        self.schema = schema;
        self
    }

    /// The schema as a value, compiled by [`ValidatorBuilder::build`].
    pub fn schema_value(mut self, schema: Value) -> ValidatorBuilder {
        self.schema_value = Some(schema);
        self
    }

    /// More compiled schemas (each checked; they do not guide repair).
    pub fn schemas(mut self, schemas: SchemaSet) -> ValidatorBuilder {
        self.schemas = schemas;
        self
    }

    /// Rules and the documents they refer to.
    pub fn rules(mut self, rules: RuleSet, references: References) -> ValidatorBuilder {
        self.rules = Some((rules, references));
        self
    }

    /// A named function check.
    pub fn check(mut self, name: impl Into<String>, check: Arc<ValueCheck>) -> ValidatorBuilder {
        self.checks.push((name.into(), check));
        self
    }

    /// Which repairs may be applied.
    pub fn repair(mut self, policy: RepairPolicy) -> ValidatorBuilder {
        self.repair = policy;
        self
    }

    /// What the texts are.
    pub fn reading(mut self, reading: Reading) -> ValidatorBuilder {
        self.reading = reading;
        self
    }

    /// Compiles what was given: the one place a checker is built from schemas, rules and
    /// reference documents. Errors: an invalid schema, rules naming a missing document.
    pub fn build(self) -> Result<Validator, ConfigError> {
        let schema = match (self.schema, self.schema_value) {
            (Some(s), _) => Some(s),
            (None, Some(value)) => Some(Arc::new(Schema::compile(value)?)),
            (None, None) => None,
        };
        let checker = if self.schemas.is_empty() && self.rules.is_none() {
            None
        } else {
            let mut builder = Checker::builder().schemas(self.schemas);
            if let Some((rules, references)) = self.rules {
                builder = builder.references(references).rules(rules);
            }
            Some(Arc::new(builder.build()?))
        };
        let mut validator = Validator::compiled(schema, checker)
            .with_repair(self.repair)
            .with_reading(self.reading, self.format);
        validator.checks = self.checks;
        Ok(validator)
    }
}
