//! Configuration problems with the file, line and column they point at.

use std::fmt;
use std::path::{Path, PathBuf};

use rectify_core::Document;
use serde::Serialize;

/// One configuration mistake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file it is in.
    pub file: PathBuf,
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// What was expected, when that helps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

impl Problem {
    /// A problem in `file` with no position.
    pub fn new(file: &Path, message: impl Into<String>) -> Problem {
        Problem {
            file: file.to_path_buf(),
            line: None,
            column: None,
            message: message.into(),
            expected: None,
        }
    }

    /// A problem at the node `pointer` of `doc` (the nearest enclosing node when that one
    /// has no span).
    pub fn at(file: &Path, doc: &Document, pointer: &str, message: impl Into<String>) -> Problem {
        let span = doc.locate(pointer).span.or_else(|| nearest(doc, pointer));
        Problem {
            line: span.map(|s| s.line),
            column: span.map(|s| s.column),
            ..Problem::new(file, message)
        }
    }

    /// A problem with the key of the member at `pointer` (an unknown key): located at the key,
    /// found in the source just before its value.
    pub fn at_key(
        file: &Path,
        doc: &Document,
        pointer: &str,
        message: impl Into<String>,
    ) -> Problem {
        let key = pointer
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        let value = doc.locate(pointer).span;
        let found = value
            .and_then(|v| doc.source.get(..v.start))
            .and_then(|before| before.rfind(key.as_str()));
        match found {
            Some(start) if !key.is_empty() => {
                let span = doc.span(start, start + key.len());
                Problem {
                    line: Some(span.line),
                    column: Some(span.column),
                    ..Problem::new(file, message)
                }
            }
            _ => Problem::at(file, doc, pointer, message),
        }
    }

    /// Adds what was expected.
    pub fn expected(mut self, expected: impl Into<String>) -> Problem {
        self.expected = Some(expected.into());
        self
    }
}

fn nearest(doc: &Document, pointer: &str) -> Option<rectify_core::Span> {
    let mut p = pointer;
    while let Some((parent, _)) = p.rsplit_once('/') {
        if let Some(span) = doc.locate(parent).span {
            return Some(span);
        }
        p = parent;
    }
    None
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)?;
        if let Some(expected) = &self.expected {
            write!(f, " (expected {expected})")?;
        }
        Ok(())
    }
}

/// A workflow that cannot run: every problem found, not only the first.
#[derive(Clone, Debug, thiserror::Error)]
pub struct LoadError {
    /// The problems, in file order.
    pub problems: Vec<Problem>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "the workflow has {n} configuration problem{}",
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}
