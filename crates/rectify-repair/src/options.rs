use std::sync::Arc;

use rectify_core::Format;
use serde_json::Value;

use crate::compiled::Compiled;

/// How [`crate::repair`] may change the text.
///
/// Build it from [`RepairOptions::default`] (safe repairs only, no schema) and the `with_*`
/// methods, or by setting fields.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RepairOptions {
    /// JSON Schema that guides coercion and the choice between several candidates.
    pub schema: Option<Value>,
    /// Apply repairs that may change meaning (see [`rectify_core::Applicability::Unsafe`]).
    /// When false they are reported as error diagnostics naming the repair that would fix
    /// the text, and no value is returned.
    pub allow_unsafe: bool,
    /// Any needed repair is an error: a value is returned only for text that needed none.
    pub strict: bool,
    /// Format of the payload: `Some(Yaml)` reads the text (or its code fence) as YAML;
    /// `None` reads JSON unless the payload sits in a fence labelled `yaml`/`yml`. Markdown
    /// and plain text are not repaired; they are treated as JSON.
    pub format: Option<Format>,
    /// Deepest nesting of arrays and objects accepted before the parse stops.
    pub max_depth: usize,
    /// `schema` compiled, shared with clones.
    pub(crate) compiled: Compiled,
}

impl Default for RepairOptions {
    fn default() -> Self {
        RepairOptions {
            schema: None,
            allow_unsafe: false,
            strict: false,
            format: None,
            max_depth: 128,
            compiled: Compiled::default(),
        }
    }
}

impl RepairOptions {
    /// The schema compiled (once for these options and their clones), or why it does not
    /// compile; `None` without a schema.
    pub(crate) fn validator(&self) -> Option<Result<Arc<jsonschema::Validator>, String>> {
        let schema = self.schema.as_ref()?;
        Some(self.compiled.validator(schema))
    }

    /// Uses `schema` to guide coercion and candidate choice.
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    /// Allows (or forbids) unsafe repairs.
    pub fn with_unsafe(mut self, allow: bool) -> Self {
        self.allow_unsafe = allow;
        self
    }

    /// Makes any needed repair an error.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets the payload format instead of detecting it.
    pub fn with_format(mut self, format: Option<Format>) -> Self {
        self.format = format;
        self
    }
}
