//! JSON Schema checks: a schema compiled once and reused, reporting every violation as a
//! [`Diagnostic`] with a pointer, a display path, a source span and expected/received values.
//!
//! Drafts 4, 6, 7, 2019-09 and 2020-12 are supported; the draft is taken from `$schema` and
//! defaults to 2020-12. `format` is asserted in every draft (`"date": "tomorrow"` fails);
//! formats the validator does not know are ignored. Compilation validates the schema against its meta-schema and resolves
//! every `$ref`: a schema that is itself wrong is a [`ConfigError`] naming the place in the
//! schema, never a diagnostic.

mod compile;
mod message;
mod refs;

use std::path::Path;

use jsonschema::Validator;
use rectify_core::{Diagnostic, Document};
use serde_json::Value;

pub use refs::RefAccess;

use crate::ConfigError;

/// A JSON Schema draft (rectify's own type, so that the `jsonschema` crate, which is not yet
/// 1.0, stays out of the public API).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Draft {
    /// Draft 4.
    Draft4,
    /// Draft 6.
    Draft6,
    /// Draft 7.
    Draft7,
    /// Draft 2019-09.
    Draft201909,
    /// Draft 2020-12 (the default).
    Draft202012,
}

impl Draft {
    fn of(draft: jsonschema::Draft) -> Draft {
        match draft {
            jsonschema::Draft::Draft4 => Draft::Draft4,
            jsonschema::Draft::Draft6 => Draft::Draft6,
            jsonschema::Draft::Draft7 => Draft::Draft7,
            jsonschema::Draft::Draft201909 => Draft::Draft201909,
            _ => Draft::Draft202012,
        }
    }
}

/// A JSON Schema compiled once and reused for any number of documents.
///
/// ```
/// use rectify_check::CompiledSchema;
/// use serde_json::json;
///
/// let schema = CompiledSchema::compile(&json!({
///     "type": "object",
///     "required": ["id"],
///     "properties": {"id": {"type": "integer"}}
/// }))?;
/// let diagnostics = schema.check_value(&json!({"id": "seven"}));
/// assert_eq!(diagnostics[0].code, "schema.type");
/// assert_eq!(diagnostics[0].message, "expected integer, got string");
/// assert_eq!(diagnostics[0].location.path, "id");
/// # Ok::<(), rectify_check::ConfigError>(())
/// ```
#[derive(Debug)]
pub struct CompiledSchema {
    validator: Validator,
    origin: String,
    source: String,
}

impl CompiledSchema {
    /// Compiles `schema`; relative file `$ref`s resolve against the current directory.
    pub fn compile(schema: &Value) -> Result<CompiledSchema, ConfigError> {
        CompiledSchema::compile_named(schema, "schema", None)
    }

    /// Compiles `schema`, calling it `origin` in errors and diagnostics, with relative `$ref`s
    /// resolved against the file `base` (the schema's own path) when given.
    /// Local `$ref`s may read only files under `base`'s directory (none when there is no
    /// `base`); remote ones are never fetched. [`CompiledSchema::compile_named_with`] allows
    /// any local file.
    pub fn compile_named(
        schema: &Value,
        origin: impl Into<String>,
        base: Option<&Path>,
    ) -> Result<CompiledSchema, ConfigError> {
        CompiledSchema::compile_named_with(schema, origin, base, RefAccess::SchemaDir)
    }

    /// [`CompiledSchema::compile_named`], with `$ref`s reading the local files `access`
    /// allows.
    pub fn compile_named_with(
        schema: &Value,
        origin: impl Into<String>,
        base: Option<&Path>,
        access: RefAccess,
    ) -> Result<CompiledSchema, ConfigError> {
        let origin = origin.into();
        let validator = compile::build(schema, &origin, base, access)?;
        let source = if origin == "schema" {
            origin.clone()
        } else {
            format!("schema:{origin}")
        };
        Ok(CompiledSchema {
            validator,
            origin,
            source,
        })
    }

    /// Reads and compiles a schema file (JSON, or YAML by extension); relative `$ref`s resolve
    /// against the file's directory and may read only files under it.
    pub fn compile_file(path: &Path) -> Result<CompiledSchema, ConfigError> {
        CompiledSchema::compile_file_with(path, RefAccess::SchemaDir)
    }

    /// [`CompiledSchema::compile_file`], with `$ref`s reading the local files `access`
    /// allows.
    pub fn compile_file_with(
        path: &Path,
        access: RefAccess,
    ) -> Result<CompiledSchema, ConfigError> {
        let value = compile::read_file(path)?;
        CompiledSchema::compile_named_with(&value, path.display().to_string(), Some(path), access)
    }

    /// Where the schema came from (`schema` or its file name).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The draft the schema was compiled for.
    pub fn draft(&self) -> Draft {
        Draft::of(self.validator.draft())
    }

    /// True when `value` satisfies the schema (no diagnostics are built).
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Every violation of the schema in `doc`, located in its source.
    pub fn check(&self, doc: &Document) -> Vec<Diagnostic> {
        if self.validator.is_valid(&doc.value) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for error in self.validator.iter_errors(&doc.value) {
            message::push_diagnostics(&error, doc, &mut out);
        }
        for d in &mut out {
            d.source.clone_from(&self.source);
        }
        out
    }

    /// Every violation of the schema in a value that has no source text (no spans).
    pub fn check_value(&self, value: &Value) -> Vec<Diagnostic> {
        if self.validator.is_valid(value) {
            return Vec::new();
        }
        self.check(&Document::from_value(value.clone()))
    }
}

/// Several schemas that must all pass.
#[derive(Debug, Default)]
pub struct SchemaSet {
    schemas: Vec<CompiledSchema>,
}

impl SchemaSet {
    /// An empty set (everything passes).
    pub fn new() -> SchemaSet {
        SchemaSet::default()
    }

    /// Adds a schema.
    pub fn push(&mut self, schema: CompiledSchema) {
        self.schemas.push(schema);
    }

    /// The same set with one more schema.
    pub fn with(mut self, schema: CompiledSchema) -> SchemaSet {
        self.push(schema);
        self
    }

    /// The schemas, in order.
    pub fn schemas(&self) -> &[CompiledSchema] {
        &self.schemas
    }

    /// Number of schemas.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// True when the set has no schema.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// True when `value` satisfies every schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.schemas.iter().all(|s| s.is_valid(value))
    }

    /// The violations of every schema, schema by schema.
    pub fn check(&self, doc: &Document) -> Vec<Diagnostic> {
        self.schemas.iter().flat_map(|s| s.check(doc)).collect()
    }
}

impl IntoIterator for SchemaSet {
    type Item = CompiledSchema;
    type IntoIter = std::vec::IntoIter<CompiledSchema>;

    fn into_iter(self) -> Self::IntoIter {
        self.schemas.into_iter()
    }
}

impl FromIterator<CompiledSchema> for SchemaSet {
    fn from_iter<I: IntoIterator<Item = CompiledSchema>>(iter: I) -> Self {
        SchemaSet {
            schemas: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests;
