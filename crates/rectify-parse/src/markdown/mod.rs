//! Markdown reader: optional YAML front matter as the value, and the heading structure as
//! [`Section`](rectify_core::Section)s.
//!
//! - **Front matter** is a first line `---`, YAML, and a closing line `---` (or `...`). It is
//!   read with the YAML reader, with the same limits and diagnostics, and its spans are byte
//!   offsets into the whole Markdown text, so lines and columns are those of the file. The
//!   document's value is the front matter (`null` when there is none). Front matter that is
//!   not a mapping is kept with a `markdown.front_matter` warning. Invalid front matter gives
//!   its YAML diagnostics (error severity) and a `null` value, but the document is still
//!   produced, with its sections. A first line `---` that is never closed is read as Markdown
//!   (a thematic break), with a `markdown.front_matter` warning.
//! - **Sections** come from pulldown-cmark (CommonMark with tables, footnotes, strikethrough and
//!   task lists), so `#` lines inside code fences are not headings. Each section has its
//!   level, its title text (inline code and emphasis flattened), the heading's span and a body
//!   span that ends at the next heading of the same or a higher level.

mod front_matter;
mod sections;

use rectify_core::{Document, Format, SpanMap};
use serde_json::Value;

use crate::yaml::{self, Problem, Problems};
use crate::{Limits, Parsed};
use front_matter::FrontMatter;

/// Reads `text` as Markdown with optional YAML front matter.
///
/// ```
/// use rectify_parse::{markdown, Limits};
///
/// let text = "---\ntitle: Plan\n---\n# Plan\n\n## Goal\nShip it.\n";
/// let doc = markdown::read(text.to_owned(), &Limits::default()).document.unwrap();
/// assert_eq!(doc.value, serde_json::json!({"title": "Plan"}));
/// assert_eq!(doc.locate("/title").span.unwrap().line, 2);
/// let goal = &doc.sections[1];
/// assert_eq!((goal.level, goal.title.as_str()), (2, "Goal"));
/// assert_eq!(&text[goal.body.0..goal.body.1], "Ship it.\n");
/// ```
pub fn read(text: String, limits: &Limits) -> Parsed {
    let mut problems = Problems::default();
    let (value, spans, body) = match front_matter::find(&text) {
        FrontMatter::Absent { body } => (Value::Null, SpanMap::default(), body),
        FrontMatter::Unclosed { opening, body } => {
            problems.push(unclosed(opening));
            (Value::Null, SpanMap::default(), body)
        }
        FrontMatter::Present { yaml, body } => {
            let (value, spans) = front_matter(&text, yaml, limits, &mut problems);
            (value, spans, body)
        }
    };
    let sections = sections::sections(&text, body);
    let document = Document::new(Format::Markdown, text, value, spans).with_sections(sections);
    let diagnostics = problems.finish(&document);
    Parsed {
        document: Some(document),
        diagnostics,
    }
}

/// Reads the front matter in `text[range]`.
fn front_matter(
    text: &str,
    range: (usize, usize),
    limits: &Limits,
    problems: &mut Problems,
) -> (Value, SpanMap) {
    let fragment = yaml::read_fragment(text, range.0, range.1, limits);
    problems.append(fragment.problems);
    let Some(value) = fragment.value else {
        return (Value::Null, SpanMap::default());
    };
    if !value.is_object() && !value.is_null() {
        problems.push(
            Problem::warning(
                "markdown.front_matter",
                "",
                range,
                "the front matter is not a mapping",
            )
            .expected("a mapping of keys to values"),
        );
    }
    (value, fragment.spans)
}

fn unclosed(opening: (usize, usize)) -> Problem {
    Problem::warning(
        "markdown.front_matter",
        "",
        opening,
        "the first line is `---` but no closing `---` line follows; read without front matter",
    )
    .expected("front matter closed by a `---` line")
}
