//! [`Checker`]: schemas, rules and reference documents set up once and run on any number of
//! documents (the retry loop calls it once per attempt).

use rectify_core::{Diagnostic, Document};
use serde_json::Value;

use crate::{CompiledSchema, ConfigError, References, RuleSet, SchemaSet};

/// Every configured check, ready to run. Cheap to call, `Send + Sync`, shareable by `Arc`.
///
/// ```
/// use rectify_check::{Checker, CompiledSchema, RuleSet};
/// use rectify_core::Document;
/// use serde_json::json;
///
/// let checker = Checker::builder()
///     .schema(CompiledSchema::compile(&json!({"required": ["tasks"]}))?)
///     .rules(RuleSet::from_value(&json!({"rules": [{"id": "ids", "unique": "$.tasks[*].id"}]}), None)?)
///     .build()?;
/// let diagnostics = checker.check_value(&json!({"tasks": [{"id": 1}, {"id": 1}]}));
/// assert_eq!(diagnostics.len(), 1);
/// assert_eq!(diagnostics[0].code, "rule.unique");
/// assert!(checker.check_value(&json!({})).iter().any(|d| d.code == "schema.required"));
/// # Ok::<(), rectify_check::ConfigError>(())
/// ```
#[derive(Debug, Default)]
pub struct Checker {
    schemas: SchemaSet,
    rules: Option<RuleSet>,
    references: References,
}

/// Collects the parts of a [`Checker`]; [`CheckerBuilder::build`] verifies that every
/// document the rules name was supplied.
#[derive(Debug, Default)]
pub struct CheckerBuilder {
    checker: Checker,
}

impl Checker {
    /// Starts an empty checker.
    pub fn builder() -> CheckerBuilder {
        CheckerBuilder::default()
    }

    /// The schemas (all must pass).
    pub fn schemas(&self) -> &SchemaSet {
        &self.schemas
    }

    /// The rules, if any.
    pub fn rules(&self) -> Option<&RuleSet> {
        self.rules.as_ref()
    }

    /// The reference documents by name.
    pub fn references(&self) -> &References {
        &self.references
    }

    /// Runs the schemas, then the rules, on `doc`.
    pub fn check(&self, doc: &Document) -> Vec<Diagnostic> {
        let mut out = self.schemas.check(doc);
        if let Some(rules) = &self.rules {
            for rule in rules.rules() {
                // `build` verified the references, so a rule cannot fail here; if one did,
                // its problem is reported rather than dropped.
                match rule.check(doc, &self.references) {
                    Ok(found) => out.extend(found),
                    Err(err) => out.push(
                        Diagnostic::error(
                            "rule.config",
                            rectify_core::Location::root(),
                            err.to_string(),
                        )
                        .source(format!("rules:{}", rule.id())),
                    ),
                }
            }
        }
        out
    }

    /// [`Checker::check`] for a value without source text (locations have no spans).
    pub fn check_value(&self, value: &Value) -> Vec<Diagnostic> {
        if self.rules.is_none() && self.schemas.is_valid(value) {
            return Vec::new();
        }
        self.check(&Document::from_value(value.clone()))
    }

    /// True when `doc` has no error diagnostic.
    pub fn is_valid(&self, doc: &Document) -> bool {
        !self.check(doc).iter().any(Diagnostic::is_error)
    }
}

impl CheckerBuilder {
    /// Adds a schema.
    pub fn schema(mut self, schema: CompiledSchema) -> CheckerBuilder {
        self.checker.schemas.push(schema);
        self
    }

    /// Adds every schema of a set.
    pub fn schemas(mut self, schemas: SchemaSet) -> CheckerBuilder {
        for schema in schemas {
            self.checker.schemas.push(schema);
        }
        self
    }

    /// Sets the rules.
    pub fn rules(mut self, rules: RuleSet) -> CheckerBuilder {
        self.checker.rules = Some(rules);
        self
    }

    /// Adds a reference document under `name` (replacing one of the same name).
    pub fn reference(mut self, name: impl Into<String>, doc: Document) -> CheckerBuilder {
        self.checker.references.insert(name.into(), doc);
        self
    }

    /// Adds reference documents.
    pub fn references(mut self, refs: References) -> CheckerBuilder {
        self.checker.references.extend(refs);
        self
    }

    /// Finishes the checker; a rule naming a document that was not supplied is an error.
    pub fn build(self) -> Result<Checker, ConfigError> {
        if let Some(rules) = &self.checker.rules {
            rules.verify_references(&self.checker.references)?;
        }
        Ok(self.checker)
    }
}

#[cfg(test)]
mod tests {
    use rectify_core::Format;
    use rectify_parse::{Limits, read};
    use serde_json::json;

    use super::*;

    fn doc(text: &str) -> Document {
        read(text.to_owned(), Format::Json, &Limits::default())
            .document
            .unwrap()
    }

    fn rules() -> RuleSet {
        RuleSet::from_value(
            &json!({"rules": [{"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*]"}]}),
            None,
        )
        .unwrap()
    }

    #[test]
    fn runs_schemas_then_rules() {
        let checker = Checker::builder()
            .schema(
                CompiledSchema::compile(&json!({"properties": {"tasks": {"type": "array"}}}))
                    .unwrap(),
            )
            .schema(CompiledSchema::compile(&json!({"required": ["title"]})).unwrap())
            .rules(rules())
            .reference("plan", doc(r#"{"phases": ["p1"]}"#))
            .build()
            .unwrap();
        let diags = checker.check(&doc("{\"tasks\": [\n {\"phase\": \"p2\"}]}"));
        let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, vec!["schema.required", "rule.ref"]);
        assert_eq!(diags[1].location.span.unwrap().line, 2);
        assert!(!checker.is_valid(&doc(r#"{"title": 1, "tasks": [{"phase": "p2"}]}"#)));
        assert!(checker.is_valid(&doc(r#"{"title": 1, "tasks": [{"phase": "p1"}]}"#)));
        assert_eq!(
            checker.check_value(&json!({"title": 1, "tasks": {}}))[0].code,
            "schema.type"
        );
    }

    #[test]
    fn missing_reference_documents_fail_the_build() {
        let err = Checker::builder().rules(rules()).build().unwrap_err();
        assert!(
            matches!(err, ConfigError::MissingDocument { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn checkers_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Checker>();
        let empty = Checker::builder().build().unwrap();
        assert!(empty.check_value(&json!(null)).is_empty());
    }
}
