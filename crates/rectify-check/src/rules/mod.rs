//! The rules file (docs/architecture.md, "Checking and repairing a document"): checks that JSON
//! Schema cannot express, such as references into another document, uniqueness, non-empty
//! alternatives and Markdown structure.
//!
//! ```
//! use std::collections::BTreeMap;
//! use rectify_check::RuleSet;
//! use rectify_core::Document;
//! use serde_json::json;
//!
//! let rules = RuleSet::from_value(&json!({
//!     "rules": [
//!         {"id": "task-phase-exists", "each": "$.tasks[*].phaseId", "in": "plan:$.phases[*].id",
//!          "message": "{value} is not one of the plan's phase ids ({allowed})"},
//!         {"id": "unique-task-ids", "unique": "$.tasks[*].id"}
//!     ]
//! }), None)?;
//! let plan = Document::from_value(json!({"phases": [{"id": "phase-1"}, {"id": "phase-2"}]}));
//! let refs = BTreeMap::from([("plan".to_owned(), plan)]);
//! let tasks = Document::from_value(json!({"tasks": [{"id": 1, "phaseId": "phase-9"}]}));
//! let diagnostics = rules.check(&tasks, &refs)?;
//! assert_eq!(diagnostics[0].location.path, "tasks[0].phaseId");
//! assert_eq!(diagnostics[0].message, "\"phase-9\" is not one of the plan's phase ids (phase-1, phase-2)");
//! # Ok::<(), rectify_check::ConfigError>(())
//! ```

mod any_nonempty;
mod config;
mod length;
mod markdown_heading;
mod markdown_section;
mod part;
mod path;
mod reference;
mod required_nonempty;
mod structural;
mod template;
mod unique;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rectify_core::{Diagnostic, Document, Location, Severity, truncate_received};
use serde_json::Value;

use crate::ConfigError;
pub use part::{PartMemory, PartRules};
use template::Template;

/// At most this many diagnostics per rule; the rest are counted in one more diagnostic (a
/// document that fails a rule 40,000 times is reported in bounded time and size).
pub const MAX_FINDINGS: usize = 100;

/// Named reference documents for cross-document rules (`plan` → its document).
pub type References = BTreeMap<String, Document>;

/// A parsed, validated rules file.
#[derive(Debug, Clone)]
pub struct RuleSet {
    rules: Vec<Rule>,
    documents: BTreeMap<String, PathBuf>,
}

/// One rule: an id, a check, an optional message template and a severity.
#[derive(Debug, Clone)]
pub struct Rule {
    id: String,
    index: usize,
    severity: Severity,
    message: Option<Template>,
    check: Check,
}

#[derive(Debug, Clone)]
enum Check {
    Reference(reference::Reference),
    AnyNonempty(any_nonempty::AnyNonempty),
    Unique(unique::Unique),
    RequiredNonempty(required_nonempty::RequiredNonempty),
    Heading(markdown_heading::Heading),
    Section(markdown_section::Section),
    Length(length::Length),
}

/// What a check found at one place, before the rule's template turns it into a diagnostic.
#[derive(Debug, Default)]
pub(crate) struct Finding {
    code: Option<&'static str>,
    pointer: String,
    span: Option<(usize, usize)>,
    message: String,
    expected: Option<String>,
    received: Option<String>,
    vars: Vec<(&'static str, String)>,
}

impl Finding {
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding {
            pointer: pointer.into(),
            message: message.into(),
            ..Finding::default()
        }
    }

    fn code(mut self, code: &'static str) -> Finding {
        self.code = Some(code);
        self
    }

    fn span(mut self, span: (usize, usize)) -> Finding {
        self.span = Some(span);
        self
    }

    fn expected(mut self, expected: impl Into<String>) -> Finding {
        self.expected = Some(expected.into());
        self
    }

    fn received(mut self, value: &Value) -> Finding {
        self.received = Some(truncate_received(value));
        self
    }

    fn received_text(mut self, text: impl Into<String>) -> Finding {
        self.received = Some(text.into());
        self
    }

    fn var(mut self, name: &'static str, value: impl Into<String>) -> Finding {
        self.vars.push((name, value.into()));
        self
    }
}

/// What a check sees: the document, the references and, for `each`-scoped checks, the scope.
struct Context<'a> {
    doc: &'a Document,
    refs: &'a References,
    rule: &'a str,
}

impl RuleSet {
    /// Parses a rules file from its value; `base_dir` resolves the paths under `documents:`.
    pub fn from_value(value: &Value, base_dir: Option<&Path>) -> Result<RuleSet, ConfigError> {
        config::parse(value, base_dir, &|_| None)
    }

    /// Parses a rules file read with its spans, so errors carry the rule's line number.
    pub fn from_document(doc: &Document, base_dir: Option<&Path>) -> Result<RuleSet, ConfigError> {
        config::parse(&doc.value, base_dir, &|pointer| {
            doc.spans
                .find(&doc.source, pointer)
                .map(|(start, end)| doc.span(start, end).line)
        })
    }

    /// Reads and parses a rules file (YAML or JSON by extension); `documents:` paths are
    /// relative to the file's directory.
    pub fn from_file(path: &Path) -> Result<RuleSet, ConfigError> {
        let doc = config::read_file(path)?;
        RuleSet::from_document(&doc, path.parent())
    }

    /// The documents named under `documents:` (name → path, resolved against the base dir).
    pub fn documents(&self) -> &BTreeMap<String, PathBuf> {
        &self.documents
    }

    /// The names of the documents the rules refer to (`in: "plan:$..."` → `plan`).
    pub fn referenced_documents(&self) -> BTreeSet<&str> {
        self.rules
            .iter()
            .filter_map(|r| r.check.document())
            .collect()
    }

    /// Reads every document under `documents:` (format by extension, else sniffed).
    pub fn load_documents(&self) -> Result<References, ConfigError> {
        self.documents
            .iter()
            .map(|(name, path)| Ok((name.clone(), config::read_reference(name, path)?)))
            .collect()
    }

    /// Checks that every document a rule refers to is in `refs`.
    pub fn verify_references(&self, refs: &References) -> Result<(), ConfigError> {
        for rule in &self.rules {
            if let Some(name) = rule.check.document().filter(|n| !refs.contains_key(*n)) {
                return Err(ConfigError::MissingDocument {
                    rule: rule.id.clone(),
                    name: name.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Runs every rule on `doc`. A rule naming a document missing from `refs` is an error.
    pub fn check(&self, doc: &Document, refs: &References) -> Result<Vec<Diagnostic>, ConfigError> {
        self.verify_references(refs)?;
        let mut out = Vec::new();
        for rule in &self.rules {
            out.extend(rule.check(doc, refs)?);
        }
        Ok(out)
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

impl Rule {
    /// The rule's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The diagnostic code the rule reports (`rule.ref`, `rule.unique`, ...).
    pub fn code(&self) -> &'static str {
        self.check.code()
    }

    /// Position of the rule in the file's `rules` list (0-based).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// Runs this rule on `doc`.
    pub fn check(&self, doc: &Document, refs: &References) -> Result<Vec<Diagnostic>, ConfigError> {
        let cx = Context {
            doc,
            refs,
            rule: &self.id,
        };
        let findings = self.check.run(&cx)?;
        let rest = findings.len().saturating_sub(MAX_FINDINGS);
        let mut out: Vec<Diagnostic> = findings
            .into_iter()
            .take(MAX_FINDINGS)
            .map(|f| self.diagnostic(doc, f))
            .collect();
        if rest > 0 {
            out.push(self.rest(rest));
        }
        Ok(out)
    }

    /// The one diagnostic that stands for the findings past [`MAX_FINDINGS`]: how many.
    fn rest(&self, count: usize) -> Diagnostic {
        let message = format!(
            "{count} more values fail rule `{}` (only the first {MAX_FINDINGS} are listed)",
            self.id
        );
        let mut d = Diagnostic::error(self.check.code(), Location::root(), message)
            .source(format!("rules:{}", self.id));
        d.severity = self.severity;
        d
    }

    fn diagnostic(&self, doc: &Document, finding: Finding) -> Diagnostic {
        let location = match finding.span {
            Some((start, end)) => {
                Location::from_pointer(&finding.pointer).with_span(Some(doc.span(start, end)))
            }
            None => doc.locate(&finding.pointer),
        };
        let message = match &self.message {
            Some(template) => {
                let mut vars = finding.vars;
                vars.push(("id", self.id.clone()));
                vars.push(("path", location.path.clone()));
                vars.push(("pointer", location.pointer.clone()));
                vars.push(("value", finding.received.clone().unwrap_or_default()));
                template.render(&vars)
            }
            None => finding.message,
        };
        let code = finding.code.unwrap_or(self.check.code());
        let mut d = Diagnostic::error(code, location, message).source(format!("rules:{}", self.id));
        d.severity = self.severity;
        d.expected = finding.expected;
        d.received = finding.received;
        d
    }
}

impl Check {
    fn code(&self) -> &'static str {
        match self {
            Check::Reference(_) => "rule.ref",
            Check::AnyNonempty(_) => "rule.any_nonempty",
            Check::Unique(_) => "rule.unique",
            Check::RequiredNonempty(_) => "rule.required_nonempty",
            Check::Heading(_) => "rule.markdown_heading",
            Check::Section(_) => "rule.markdown_section",
            Check::Length(_) => "rule.min_length",
        }
    }

    fn document(&self) -> Option<&str> {
        match self {
            Check::Reference(r) => r.document(),
            _ => None,
        }
    }

    fn run(&self, cx: &Context<'_>) -> Result<Vec<Finding>, ConfigError> {
        Ok(match self {
            Check::Reference(c) => c.run(cx)?,
            Check::AnyNonempty(c) => c.run(cx),
            Check::Unique(c) => c.run(cx),
            Check::RequiredNonempty(c) => c.run(cx),
            Check::Heading(c) => c.run(cx),
            Check::Section(c) => c.run(cx),
            Check::Length(c) => c.run(cx),
        })
    }
}

#[cfg(test)]
mod tests;
