//! The judging itself: read as written, repair when that leaves fewer errors, check, and add
//! what the answer's ending says.

use rectify_core::{Diagnostic, Document, Format};
use rectify_parse::Limits;
use rectify_repair::{RepairOptions, Repaired};
use serde_json::Value;

use crate::{Ending, Judgement, Reading, RepairPolicy, Validator};

/// Repair's own note that a coerced value still does not fit the schema: the schema check
/// reports the same problems, with better messages.
const SCHEMA_MISMATCH: &str = "repair.schema_mismatch";

impl Validator {
    /// Judges `text`, an answer that ended as `ending` (or a file: [`Ending::Complete`]).
    ///
    /// A file is read as written first; valid, it is returned unchanged. Otherwise repair
    /// runs (without the schema first, and with it — coercion, the choice between
    /// candidates — when the plain value does not fit), and its result is kept when it
    /// leaves fewer errors. An answer of no given format is read by repair directly (its fast
    /// path is a strict parse: valid JSON comes back with no repair). A Markdown document wrapped whole in a
    /// fence is judged as the fence's content (the unwrapping recorded as repairs). A
    /// truncated answer is an error even when repair closed it; a refusal's error comes first.
    pub fn judge(&self, text: &str, ending: Ending) -> Judgement {
        let mut judged = self.unfenced(text).unwrap_or_else(|| self.as_written(text));
        match ending.problem(text) {
            Some(d) if ending == Ending::Refused => judged.diagnostics.insert(0, d),
            Some(d) => judged.diagnostics.push(d),
            None => {}
        }
        judged
    }

    /// Every check of a value (schemas, rules, function checks), without locations.
    pub fn check_value(&self, value: &Value) -> Vec<Diagnostic> {
        let mut out = match &self.schema {
            Some(schema) => schema.compiled.check_value(value),
            None => Vec::new(),
        };
        if let Some(checker) = &self.checker {
            out.extend(checker.check_value(value));
        }
        out.extend(self.function_checks(value));
        out
    }

    /// Every check of a document, located in its text.
    pub fn check_document(&self, doc: &Document) -> Vec<Diagnostic> {
        let mut out = match &self.schema {
            Some(schema) => schema.compiled.check(doc),
            None => Vec::new(),
        };
        if let Some(checker) = &self.checker {
            out.extend(checker.check(doc));
        }
        out.extend(self.function_checks(&doc.value));
        out
    }

    fn function_checks<'a>(&'a self, value: &'a Value) -> impl Iterator<Item = Diagnostic> + 'a {
        self.checks.iter().flat_map(move |(name, check)| {
            check(value).into_iter().map(move |d| {
                if d.source.is_empty() {
                    d.source(format!("validator:{name}"))
                } else {
                    d
                }
            })
        })
    }

    fn read_format(&self) -> Format {
        self.format.unwrap_or(Format::Json)
    }

    fn unfenced(&self, text: &str) -> Option<Judgement> {
        if self.format != Some(Format::Markdown) {
            return None;
        }
        let found = rectify_repair::unwrap_markdown(text)?;
        let document = found.document(text);
        let mut judged = self.as_written(document);
        judged.repairs.splice(0..0, found.repairs);
        judged.repaired_text = Some(document.to_owned());
        Some(judged)
    }

    fn as_written(&self, text: &str) -> Judgement {
        // An answer of no given format (the loop's) is read by repair itself: its fast path
        // is a strict JSON parse (no spans to build, which answers do not need), and it finds
        // the value in prose or a fence.
        if self.reading == Reading::Answer
            && self.format.is_none()
            && self.repair != RepairPolicy::Off
            && let Some(judged) = self.repaired(text)
        {
            return judged;
        }
        let parsed = rectify_parse::read(text.to_owned(), self.read_format(), &Limits::default());
        let read_errors = parsed.diagnostics.iter().any(Diagnostic::is_error);
        let strict = match parsed.document {
            Some(doc) if !read_errors => {
                let mut diagnostics = parsed.diagnostics;
                diagnostics.extend(match self.reading {
                    Reading::Answer => self.check_value(&doc.value),
                    Reading::File => self.check_document(&doc),
                });
                Ok(Judgement {
                    value: Some(doc.value),
                    diagnostics,
                    ..Judgement::default()
                })
            }
            _ => Err(parsed.diagnostics),
        };
        if strict.as_ref().is_ok_and(|j| j.errors() == 0) || !self.repairable() {
            return strict.unwrap_or_else(Judgement::problems);
        }
        match (strict, self.repaired(text)) {
            (Ok(s), Some(r)) if r.errors() < s.errors() => r,
            (Ok(s), _) => s,
            (Err(_), Some(r)) => r,
            (Err(problems), None) => Judgement::problems(problems),
        }
    }

    fn repairable(&self) -> bool {
        self.repair != RepairPolicy::Off
            && match self.reading {
                Reading::Answer => true,
                Reading::File => matches!(self.format, Some(Format::Json | Format::Yaml)),
            }
    }

    /// The text repaired and checked; `None` when a file's repair changed nothing (its
    /// reading problems stand).
    fn repaired(&self, text: &str) -> Option<Judgement> {
        let repaired = self.repair(text);
        let mut diagnostics: Vec<Diagnostic> = repaired
            .diagnostics
            .iter()
            .filter(|d| d.code != SCHEMA_MISMATCH || self.schema.is_none())
            .cloned()
            .collect();
        match self.reading {
            Reading::Answer => {
                if let Some(value) = &repaired.value {
                    diagnostics.extend(self.check_value(value));
                }
                Some(Judgement {
                    value: repaired.value,
                    diagnostics,
                    repairs: repaired.repairs,
                    repaired_text: None,
                })
            }
            Reading::File => {
                if repaired.repairs.is_empty() {
                    return None;
                }
                // Written back in the file's own format, so a YAML file stays YAML (a
                // minimal edit where possible) and locations point into what was written.
                let new_text = match self.format {
                    Some(Format::Yaml) => repaired.to_yaml()?,
                    _ => repaired.to_json_pretty()? + "\n",
                };
                let parsed =
                    rectify_parse::read(new_text.clone(), self.read_format(), &Limits::default());
                let doc = parsed.document?;
                diagnostics.extend(self.check_document(&doc));
                Some(Judgement {
                    value: Some(doc.value),
                    diagnostics,
                    repairs: repaired.repairs,
                    repaired_text: Some(new_text),
                })
            }
        }
    }

    /// Repairs without the schema first (cheap), and with it only when the plain value does
    /// not fit.
    fn repair(&self, text: &str) -> Repaired {
        let plain = RepairOptions::default()
            .with_unsafe(self.repair == RepairPolicy::Unsafe)
            .with_format(self.format);
        let repaired = rectify_repair::repair(text, &plain);
        match &self.schema {
            Some(schema)
                if !repaired
                    .value
                    .as_ref()
                    .is_some_and(|v| schema.compiled.is_valid(v)) =>
            {
                rectify_repair::repair(text, &plain.with_schema(schema.value.clone()))
            }
            _ => repaired,
        }
    }
}
