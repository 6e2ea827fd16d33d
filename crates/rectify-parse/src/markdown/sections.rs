//! Sections: every ATX or setext heading as pulldown-cmark sees it (so `#` lines inside code
//! fences or HTML blocks are not headings), with the body running to the next heading of the
//! same or a higher level.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use rectify_core::Section;

/// The sections of the Markdown in `text[body..]`; spans are offsets into `text`.
pub(crate) fn sections(text: &str, body: usize) -> Vec<Section> {
    let Some(markdown) = text.get(body..) else {
        return Vec::new();
    };
    let mut out: Vec<Section> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut current: Option<Section> = None;
    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        let (start, end) = (body + range.start, body + range.end);
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let level = level as u8;
                close_sections(&mut out, &mut open, level, start);
                current = Some(Section {
                    level,
                    title: String::new(),
                    heading: (start, trim_end(text, start, end)),
                    body: (end, end),
                });
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(section) = current.take() {
                    open.push(out.len());
                    out.push(finish_title(section));
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(section) = current.as_mut() {
                    section.title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(section) = current.as_mut() {
                    section.title.push(' ');
                }
            }
            _ => {}
        }
    }
    close_sections(&mut out, &mut open, 0, text.len());
    out
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

/// Ends the body of every open section of level `level` or deeper at `at` (level 0: all).
fn close_sections(out: &mut [Section], open: &mut Vec<usize>, level: u8, at: usize) {
    while let Some(&index) = open.last() {
        let Some(section) = out.get_mut(index) else {
            open.pop();
            continue;
        };
        if level != 0 && section.level < level {
            break;
        }
        section.body.1 = at.max(section.body.0);
        open.pop();
    }
}

fn finish_title(mut section: Section) -> Section {
    let trimmed = section.title.trim();
    if trimmed.len() != section.title.len() {
        section.title = trimmed.to_owned();
    }
    section
}

/// `end` moved back over trailing blanks and line breaks.
fn trim_end(text: &str, start: usize, end: usize) -> usize {
    text.get(start..end)
        .map_or(end, |s| start + s.trim_end().len())
}
