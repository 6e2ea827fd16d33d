//! The problems the builder reports: fatal ones (syntax, depth, alias budget, recursive
//! alias) end the read; the others (duplicate keys, collection keys, scalars kept as strings)
//! are collected and the read goes on.

use rectify_core::push_pointer;
use saphyr_parser::ScanError;
use serde_json::Value;

use super::Builder;
use crate::yaml::anchors::Refused;
use crate::yaml::problem::Problem;
use crate::yaml::scalar::Note;

/// Open flow collections saphyr's scanner accepts.
const SAPHYR_FLOW_LIMIT: usize = 255;

impl Builder<'_> {
    pub(super) fn syntax(&self, error: &ScanError) -> Problem {
        let at = self.offsets.byte(error.marker().index());
        let end = self
            .source
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or(at, |c| at + c.len_utf8());
        if error.info().contains("recursion limit") {
            // saphyr's scanner allows at most 255 open flow collections.
            let limit = self.limits.max_depth.min(SAPHYR_FLOW_LIMIT);
            return self.deeper_than(limit, (at, end));
        }
        Problem::error(
            "parse.syntax",
            "",
            (at, end),
            format!("invalid YAML: {}", error.info()),
        )
    }

    pub(super) fn too_deep(&self, range: (usize, usize)) -> Problem {
        self.deeper_than(self.limits.max_depth, range)
    }

    fn deeper_than(&self, limit: usize, range: (usize, usize)) -> Problem {
        Problem::error(
            "parse.depth",
            &self.pointer_here(),
            range,
            format!("the document is nested more than {limit} levels deep"),
        )
        .expected(format!("at most {limit} levels of nesting"))
    }

    pub(super) fn refused(&self, refused: Refused, range: (usize, usize)) -> Problem {
        let (limit, what) = match refused {
            Refused::Nodes(limit) => (limit, "nodes"),
            Refused::Bytes(limit) => (limit, "bytes of text"),
        };
        Problem::error(
            "yaml.alias_limit",
            &self.pointer_here(),
            range,
            format!(
                "aliases expand to more than {limit} {what} (an alias bomb?); the document was not read"
            ),
        )
        .expected(format!("aliases that expand to at most {limit} {what}"))
    }

    pub(super) fn recursive_alias(&self, range: (usize, usize)) -> Problem {
        let name = self.source.get(range.0..range.1).unwrap_or("*");
        Problem::error(
            "yaml.recursive_alias",
            &self.pointer_here(),
            range,
            format!(
                "alias `{name}` refers to a node that contains it; JSON cannot represent a cycle"
            ),
        )
    }

    pub(super) fn duplicate_key(&mut self, key: &str, range: (usize, usize)) {
        let depth = self.frames.len().saturating_sub(1);
        let mut pointer = String::new();
        for frame in self.frames.get(..depth).unwrap_or_default() {
            frame.push_child_segment(&mut pointer);
        }
        push_pointer(&mut pointer, key);
        self.problems.push(
            Problem::error(
                "yaml.duplicate_key",
                &pointer,
                range,
                format!("duplicate key `{key}`; the last value is used"),
            )
            .expected("each key at most once per mapping"),
        );
    }

    /// A collection (or an alias to one) used as a mapping key: its JSON text becomes the key.
    pub(super) fn complex_key(&mut self, value: Value, range: (usize, usize)) {
        let text = match value {
            Value::String(s) => s,
            Value::Array(_) | Value::Object(_) => {
                // Nested collection keys escape their inner keys' JSON at every level, so the
                // JSON text can grow exponentially with the nesting (`{{{…}}}`: 199 bytes made
                // gigabytes). Past a size proportional to the key's source, its source text
                // is the key instead.
                let json = value.to_string();
                let bound = 4 * range.1.saturating_sub(range.0) + 64;
                let text = if json.len() <= bound {
                    json
                } else {
                    self.source
                        .get(range.0..range.1)
                        .map_or_else(String::new, |t| t.trim().to_owned())
                };
                self.problems.push(
                    Problem::warning(
                        "yaml.complex_key",
                        &self.pointer_here(),
                        range,
                        format!("a collection is used as a mapping key; the key is its JSON text `{text}`"),
                    )
                    .expected("a scalar key"),
                );
                text
            }
            scalar => scalar.to_string(),
        };
        self.set_key(text, range);
    }

    pub(super) fn note(&self, note: &Note, text: &str, range: (usize, usize)) -> Problem {
        let pointer = self.pointer_here();
        let problem = match note {
            Note::NonFinite => Problem::warning(
                "yaml.non_finite",
                &pointer,
                range,
                format!(
                    "`{text}` has no JSON equivalent (JSON numbers are finite); kept as the string \"{text}\""
                ),
            ),
            Note::OutOfRange => Problem::warning(
                "yaml.number_range",
                &pointer,
                range,
                format!("integer `{text}` does not fit in 128 bits; kept as a string"),
            ),
            Note::TagMismatch(tag) => Problem::warning(
                "yaml.tag",
                &pointer,
                range,
                format!("`{text}` is not a valid `{tag}` value; kept as a string"),
            ),
        };
        problem.received(text)
    }
}
