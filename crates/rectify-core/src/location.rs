use std::borrow::Cow;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// A region of the source text: byte range plus the 1-based line and column of its start.
///
/// Columns count Unicode scalar values, not bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// 1-based column (in characters) of `start`.
    pub column: usize,
}

/// Where a diagnostic or repair points: a JSON Pointer, the same path for humans and, where
/// known, the span in the raw text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// RFC 6901 JSON Pointer, `""` for the whole document.
    pub pointer: String,
    /// Display path such as `tasks[0].phaseId`; `$` for the whole document.
    pub path: String,
    /// Source span, when the value came from text with a span map.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub span: Option<Span>,
}

impl Location {
    /// The whole document.
    pub fn root() -> Location {
        Location::from_pointer("")
    }

    /// A location from a JSON Pointer; the display path is derived from it.
    pub fn from_pointer(pointer: &str) -> Location {
        Location {
            pointer: pointer.to_owned(),
            path: pointer_to_path(pointer),
            span: None,
        }
    }

    /// A location that is only a span of text (no pointer into a value).
    pub fn from_span(span: Span) -> Location {
        Location {
            span: Some(span),
            ..Location::root()
        }
    }

    /// The same location with a source span attached.
    pub fn with_span(mut self, span: Option<Span>) -> Location {
        self.span = span;
        self
    }

    /// The location of a child key or index.
    pub fn child(&self, segment: &str) -> Location {
        let mut pointer = self.pointer.clone();
        push_pointer(&mut pointer, segment);
        Location::from_pointer(&pointer)
    }
}

/// One step from a container to a value in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seg<'a> {
    /// An object member.
    Key(&'a str),
    /// An array item.
    Index(usize),
}

/// The JSON Pointer of a path given as segments.
pub fn pointer_of<'a>(segs: impl IntoIterator<Item = Seg<'a>>) -> String {
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Key(key) => push_pointer(&mut out, key),
            Seg::Index(i) => {
                let _ = write!(out, "/{i}");
            }
        }
    }
    out
}

/// Appends one segment to a JSON Pointer, escaping `~` and `/`.
pub fn push_pointer(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Splits a JSON Pointer into unescaped segments. `""` has none. Segments without escapes
/// are borrowed, so walking a pointer allocates nothing in the common case.
pub fn pointer_segments(pointer: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    pointer.split('/').skip(1).map(|s| {
        if s.contains('~') {
            Cow::Owned(s.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(s)
        }
    })
}

/// Turns `/tasks/0/phase id` into `tasks[0]["phase id"]`; the root is `$`.
///
/// All-digit segments are shown as indexes.
pub fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + 2);
    for seg in pointer_segments(pointer) {
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            let _ = write!(out, "[{seg}]");
        } else if is_identifier(&seg) {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        } else {
            let _ = write!(out, "[{}]", serde_json::Value::String(seg.into_owned()));
        }
    }
    if out.is_empty() { "$".to_owned() } else { out }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths() {
        assert_eq!(pointer_to_path(""), "$");
        assert_eq!(pointer_to_path("/tasks/0/phaseId"), "tasks[0].phaseId");
        assert_eq!(pointer_to_path("/0"), "[0]");
        assert_eq!(pointer_to_path("/a b/c~1d"), "[\"a b\"][\"c/d\"]");
        assert_eq!(pointer_to_path("/x/files-to-create"), "x.files-to-create");
    }

    #[test]
    fn pointer_escaping_round_trips() {
        let mut p = String::new();
        push_pointer(&mut p, "a/b~c");
        assert_eq!(p, "/a~1b~0c");
        assert_eq!(pointer_segments(&p).collect::<Vec<_>>(), vec!["a/b~c"]);
        assert_eq!(Location::root().child("tasks").child("0").path, "tasks[0]");
    }
}
