//! Finding YAML front matter: a first line `---`, then YAML, then a line `---` (or `...`).

/// Where the front matter is, if any.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FrontMatter {
    /// No front matter: the body starts at this byte (after a byte order mark, if any).
    Absent {
        /// Byte offset of the Markdown body.
        body: usize,
    },
    /// The first line is `---` but no closing line follows: read as Markdown only.
    Unclosed {
        /// The opening line's byte range.
        opening: (usize, usize),
        /// Byte offset of the Markdown body (the opening line included).
        body: usize,
    },
    /// Front matter found.
    Present {
        /// Byte range of the YAML text between the delimiter lines.
        yaml: (usize, usize),
        /// Byte offset of the Markdown body, just after the closing line.
        body: usize,
    },
}

/// Looks for front matter at the start of `text`.
pub(crate) fn find(text: &str) -> FrontMatter {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lines = Lines { text, at: start };
    let Some((open_start, open_end, after_open)) = lines.next() else {
        return FrontMatter::Absent { body: start };
    };
    if !is_delimiter(&text[open_start..open_end], false) || after_open == open_end {
        return FrontMatter::Absent { body: start };
    }
    for (line_start, line_end, next) in lines {
        if is_delimiter(&text[line_start..line_end], true) {
            return FrontMatter::Present {
                yaml: (after_open, line_start),
                body: next,
            };
        }
    }
    FrontMatter::Unclosed {
        opening: (open_start, open_end),
        body: start,
    }
}

/// `---` (or, when closing, `...`), with optional trailing blanks.
fn is_delimiter(line: &str, closing: bool) -> bool {
    let line = line.trim_end_matches([' ', '\t', '\r']);
    line == "---" || (closing && line == "...")
}

/// Lines as `(start, end without the line break, start of the next line)`.
struct Lines<'a> {
    text: &'a str,
    at: usize,
}

impl Iterator for Lines<'_> {
    type Item = (usize, usize, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        let start = self.at;
        let (end, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => (start + i, start + i + 1),
            None => (self.text.len(), self.text.len()),
        };
        self.at = next;
        Some((start, end, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_with_crlf_bom_and_dots() {
        let text = "\u{feff}---\r\ntitle: x\r\n---\r\n# Body\n";
        assert_eq!(
            find(text),
            FrontMatter::Present {
                yaml: (8, 18),
                body: 23
            }
        );
        assert_eq!(&text[8..18], "title: x\r\n");
        let text = "---\na: 1\n...\n";
        assert_eq!(
            find(text),
            FrontMatter::Present {
                yaml: (4, 9),
                body: 13
            }
        );
        let text = "---\n---";
        assert_eq!(
            find(text),
            FrontMatter::Present {
                yaml: (4, 4),
                body: 7
            }
        );
    }

    #[test]
    fn absent_or_unclosed() {
        assert_eq!(find("# Title\n---\n"), FrontMatter::Absent { body: 0 });
        assert_eq!(find("----\na\n---\n"), FrontMatter::Absent { body: 0 });
        assert_eq!(find("---"), FrontMatter::Absent { body: 0 });
        assert_eq!(find(""), FrontMatter::Absent { body: 0 });
        assert_eq!(
            find("---\ntitle: x\n\n# Body\n"),
            FrontMatter::Unclosed {
                opening: (0, 3),
                body: 0
            }
        );
    }
}
