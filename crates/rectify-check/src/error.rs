//! Configuration errors: a schema or rules file that is itself wrong.
//!
//! Invalid *content* is never an error here; it is a [`rectify_core::Diagnostic`]. A
//! [`ConfigError`] means the check could not be set up at all, and the CLI maps it to exit 2.

use std::fmt;
use std::path::PathBuf;

/// A schema, rules file or reference document that cannot be used.
///
/// Every variant names where the problem is: the schema (file or `schema`) and the JSON
/// Pointer inside it, or the rule by index, id and line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A schema or rules file is not valid JSON or YAML.
    #[error("`{origin}` cannot be parsed: {message}")]
    Unreadable {
        /// Which file.
        origin: String,
        /// What went wrong, with line and column where known.
        message: String,
    },
    /// The schema is not a valid JSON Schema (for its draft).
    #[error("invalid schema `{origin}` at {}: {message}", display_pointer(pointer))]
    InvalidSchema {
        /// Which schema (file name or `schema`).
        origin: String,
        /// JSON Pointer into the schema where the problem is.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// A `$ref` in the schema cannot be resolved, or `$schema` names an unknown draft.
    #[error("schema `{origin}`{}: {message}", pointer.as_deref().map(|p| format!(" at {}", display_pointer(p))).unwrap_or_default())]
    SchemaReference {
        /// Which schema.
        origin: String,
        /// JSON Pointer of the offending `$ref`, when it could be found.
        pointer: Option<String>,
        /// What could not be resolved.
        message: String,
    },
    /// The rules file as a whole is malformed (not a mapping, `rules` not a list, ...).
    #[error("rules file{}: {message}", line_suffix(*line))]
    RulesFile {
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// One rule is malformed: unknown check, two checks, invalid JSONPath or regex, ...
    #[error("{}: {message}", RuleName { index: *index, id: id.as_deref(), line: *line })]
    Rule {
        /// 0-based position of the rule in `rules`.
        index: usize,
        /// The rule's id, if it has a usable one.
        id: Option<String>,
        /// 1-based line of the rule, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A rule refers to a named document that was not supplied.
    #[error(
        "rule `{rule}` refers to document `{name}`, which was not given (name it under `documents:` in the rules file, or supply it as a reference document)"
    )]
    MissingDocument {
        /// The rule's id.
        rule: String,
        /// The document name.
        name: String,
    },
    /// A reference document could not be read or is not valid.
    #[error("reference document `{name}`: {message}")]
    InvalidDocument {
        /// The document name.
        name: String,
        /// What is wrong.
        message: String,
    },
}

fn display_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        "the root".to_owned()
    } else {
        format!("`{pointer}`")
    }
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

struct RuleName<'a> {
    index: usize,
    id: Option<&'a str>,
    line: Option<usize>,
}

impl fmt::Display for RuleName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule rules[{}]", self.index)?;
        match (self.id, self.line) {
            (Some(id), Some(line)) => write!(f, " (id `{id}`, line {line})"),
            (Some(id), None) => write!(f, " (id `{id}`)"),
            (None, Some(line)) => write!(f, " (line {line})"),
            (None, None) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_where() {
        let e = ConfigError::Rule {
            index: 2,
            id: Some("unique-ids".into()),
            line: Some(9),
            message: "unknown check `bogus`".into(),
        };
        assert_eq!(
            e.to_string(),
            "rule rules[2] (id `unique-ids`, line 9): unknown check `bogus`"
        );
        let e = ConfigError::InvalidSchema {
            origin: "task.json".into(),
            pointer: String::new(),
            message: "bad".into(),
        };
        assert_eq!(e.to_string(), "invalid schema `task.json` at the root: bad");
        let e = ConfigError::SchemaReference {
            origin: "s".into(),
            pointer: Some("/properties/a/$ref".into()),
            message: "m".into(),
        };
        assert_eq!(e.to_string(), "schema `s` at `/properties/a/$ref`: m");
    }
}
