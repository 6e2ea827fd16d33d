//! Checking a document as `rectify check` reads it: strictly, located diagnostics, nothing
//! repaired — except that a Markdown document wrapped whole in a fence is checked as the fence's
//! content, with the diagnostics located in the whole text and the unwrapping reported as a
//! repair. The CLI's `check` and the MCP server's `check` tool both call [`check_file`], so
//! they answer alike, line numbers included.

use rectify_core::{Diagnostic, Document, Format, Repair, SpanMap};
use rectify_judge::Validator;
use rectify_parse::{Limits, Parsed};
use rectify_repair::UnwrappedMarkdown;

/// What [`check_file`] found.
#[derive(Debug)]
#[non_exhaustive]
pub struct FileCheck {
    /// The document was read and no diagnostic is an error.
    pub valid: bool,
    /// Every diagnostic (reading, schemas, rules), located in the whole text.
    pub diagnostics: Vec<Diagnostic>,
    /// The unwrapping of a fenced Markdown document; empty otherwise.
    pub repairs: Vec<Repair>,
    /// The document the diagnostics' lines point into (the whole text of an unwrapped
    /// document), for printing them with their source lines; `None` when nothing was read.
    pub document: Option<Document>,
}

/// Reads `bytes` as `format` (which may not be UTF-8: reported where it breaks) and judges
/// the document with `judge`'s schemas and rules (its repair policy is not used).
///
/// ```
/// let judge = rectify::Validator::builder().build().unwrap();
/// let text = "Here it is:\n\n```markdown\n# Title\n\nBody.\n```\n";
/// let checked = rectify::check_file(&judge, text.into(), rectify::Format::Markdown, &Default::default());
/// assert!(checked.valid);
/// let codes: Vec<&str> = checked.repairs.iter().map(|r| r.code.as_str()).collect();
/// assert_eq!(codes, ["extract.code_fence", "extract.prose"]);
/// ```
pub fn check_file(judge: &Validator, bytes: Vec<u8>, format: Format, limits: &Limits) -> FileCheck {
    let (parsed, unfenced) = read(bytes, format, limits);
    let mut diagnostics = parsed.diagnostics;
    if let Some(doc) = &parsed.document {
        diagnostics.extend(judge.check_document(doc));
    }
    let valid = parsed.document.is_some() && !diagnostics.iter().any(Diagnostic::is_error);
    let Some((found, original)) = unfenced else {
        return FileCheck {
            valid,
            diagnostics,
            repairs: Vec::new(),
            document: parsed.document,
        };
    };
    for d in &mut diagnostics {
        d.location.span = d.location.span.map(|s| found.relocate(s));
    }
    FileCheck {
        valid,
        diagnostics,
        repairs: found.repairs,
        document: Some(original),
    }
}

/// Reads the document: a Markdown document wrapped whole in a fence (with a line of prose
/// around it) as the fence's content, with the unwrapping and the whole text.
fn read(
    bytes: Vec<u8>,
    format: Format,
    limits: &Limits,
) -> (Parsed, Option<(UnwrappedMarkdown, Document)>) {
    if format == Format::Markdown
        && let Ok(text) = std::str::from_utf8(&bytes)
        && let Some(found) = rectify_repair::unwrap_markdown(text)
    {
        let parsed = rectify_parse::read(found.document(text).to_owned(), format, limits);
        let original = Document::new(
            format,
            text.to_owned(),
            serde_json::Value::Null,
            SpanMap::default(),
        );
        return (parsed, Some((found, original)));
    }
    (rectify_parse::read_bytes(bytes, format, limits), None)
}
