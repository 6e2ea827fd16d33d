//! Problems found while reading, kept as byte ranges until the document exists, then turned
//! into [`Diagnostic`]s with line and column.

use rectify_core::{Diagnostic, Document, Location};

/// At most this many problems are reported per document; the rest are counted.
const MAX_PROBLEMS: usize = 100;

/// A diagnostic whose span is still a byte range.
#[derive(Debug)]
pub(crate) struct Problem {
    diagnostic: Box<Diagnostic>,
    range: (usize, usize),
}

impl Problem {
    /// An error at `pointer`, spanning `range` of the source.
    pub(crate) fn error(
        code: &str,
        pointer: &str,
        range: (usize, usize),
        message: impl Into<String>,
    ) -> Problem {
        let location = Location::from_pointer(pointer);
        Problem {
            diagnostic: Box::new(Diagnostic::error(code, location, message).source("parse")),
            range,
        }
    }

    /// A warning at `pointer`, spanning `range` of the source.
    pub(crate) fn warning(
        code: &str,
        pointer: &str,
        range: (usize, usize),
        message: impl Into<String>,
    ) -> Problem {
        let location = Location::from_pointer(pointer);
        Problem {
            diagnostic: Box::new(Diagnostic::warning(code, location, message).source("parse")),
            range,
        }
    }

    /// Sets what was expected.
    pub(crate) fn expected(mut self, expected: impl Into<String>) -> Problem {
        self.diagnostic.expected = Some(expected.into());
        self
    }

    /// Sets what was found.
    pub(crate) fn received(self, received: impl Into<String>) -> Problem {
        Problem {
            diagnostic: Box::new(self.diagnostic.received(received)),
            range: self.range,
        }
    }

    /// The diagnostic, with line and column taken from `doc`.
    pub(crate) fn finish(self, doc: &Document) -> Diagnostic {
        let mut diagnostic = *self.diagnostic;
        diagnostic.location.span = Some(doc.span(self.range.0, self.range.1));
        diagnostic
    }
}

/// A capped list of problems, so that a document with a million duplicate keys does not make a
/// million diagnostics.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    list: Vec<Problem>,
    dropped: usize,
}

impl Problems {
    /// Adds a problem, or counts it once the cap is reached.
    pub(crate) fn push(&mut self, problem: Problem) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(problem);
        } else {
            self.dropped += 1;
        }
    }

    /// Adds a problem even past the cap (for the one fatal problem that ends a read).
    pub(crate) fn push_always(&mut self, problem: Problem) {
        self.list.push(problem);
    }

    /// Moves all of `other`'s problems here (all kept: `other` was capped already).
    pub(crate) fn append(&mut self, other: Problems) {
        self.dropped += other.dropped;
        self.list.extend(other.list);
    }

    /// The diagnostics, with line and column taken from `doc`.
    pub(crate) fn finish(self, doc: &Document) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self.list.into_iter().map(|p| p.finish(doc)).collect();
        if self.dropped > 0 {
            out.push(
                Diagnostic::warning(
                    "parse.too_many_diagnostics",
                    Location::root(),
                    format!("{} more problems were found but not reported", self.dropped),
                )
                .source("parse"),
            );
        }
        out
    }
}
