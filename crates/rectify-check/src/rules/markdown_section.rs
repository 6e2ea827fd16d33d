//! `markdown: {section: REGEX, nonempty: true}`: a section whose heading matches must exist
//! and, with `nonempty`, have text under it.
//!
//! A section runs from its heading to the next heading of the same or a higher level, so
//! sub-sections count as its content. Why: a plan whose `## Goal` is empty says nothing.
//! Example report: `$: section "## Goal" is empty` (with the heading's line).

use super::config::Spec;
use super::markdown_heading::{atx, quoted};
use super::{Context, Finding};

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["pattern", "heading"];

#[derive(Debug, Clone)]
pub(super) struct Section {
    pattern: regex::Regex,
    nonempty: bool,
}

impl Section {
    pub(super) fn parse(spec: &Spec<'_>) -> Result<Section, String> {
        spec.only("markdown", &["section", "nonempty"])?;
        let nonempty = match spec.get("nonempty") {
            None => false,
            Some(v) => v.as_bool().ok_or("`nonempty` must be true or false")?,
        };
        Ok(Section {
            pattern: spec.regex("section")?,
            nonempty,
        })
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        let pattern = quoted(self.pattern.as_str());
        let found: Vec<_> = cx
            .doc
            .sections
            .iter()
            .map(|s| (s, atx(s.level, &s.title)))
            .filter(|(_, line)| self.pattern.is_match(line))
            .collect();
        if found.is_empty() {
            let f = Finding::at("", format!("missing section matching {pattern}"))
                .expected(format!("a section whose heading matches {pattern}"))
                .var("pattern", self.pattern.as_str());
            return vec![f];
        }
        if !self.nonempty {
            return Vec::new();
        }
        found
            .into_iter()
            .filter(|(s, _)| {
                cx.doc
                    .source
                    .get(s.body.0..s.body.1)
                    .is_none_or(|b| b.trim().is_empty())
            })
            .map(|(s, line)| {
                Finding::at("", format!("section {} is empty", quoted(&line)))
                    .span(s.heading)
                    .expected("text under the heading")
                    .received_text("an empty section")
                    .var("pattern", self.pattern.as_str())
                    .var("heading", line)
            })
            .collect()
    }
}
