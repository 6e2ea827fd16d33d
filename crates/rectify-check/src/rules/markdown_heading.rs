//! `markdown: {heading: REGEX, min_count: N, max_count: M}`: count the headings that match.
//!
//! Headings are matched in ATX form whatever way they were written (`### Task 1: Parse`,
//! also for setext headings), so `^### Task \d+:` finds level-3 task headings. Why: a plan
//! without task headings cannot be executed. `min_count` defaults to 1. Example report:
//! `$: expected at least 1 heading matching "^### Task \d+:", found 0`.

use super::config::Spec;
use super::{Context, Finding};

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["pattern", "count", "min", "max"];

#[derive(Debug, Clone)]
pub(super) struct Heading {
    pattern: regex::Regex,
    min: usize,
    max: Option<usize>,
}

impl Heading {
    pub(super) fn parse(spec: &Spec<'_>) -> Result<Heading, String> {
        spec.only("markdown", &["heading", "min_count", "max_count"])?;
        let min = spec.count("min_count")?.unwrap_or(1);
        let max = spec.count("max_count")?;
        if max.is_some_and(|max| max < min) {
            return Err("`max_count` is smaller than `min_count`".into());
        }
        Ok(Heading {
            pattern: spec.regex("heading")?,
            min,
            max,
        })
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        let matching: Vec<_> = cx
            .doc
            .sections
            .iter()
            .filter(|s| self.pattern.is_match(&atx(s.level, &s.title)))
            .collect();
        let count = matching.len();
        let pattern = quoted(self.pattern.as_str());
        let vars = |f: Finding| {
            f.var("pattern", self.pattern.as_str())
                .var("count", count.to_string())
                .var("min", self.min.to_string())
                .var("max", self.max.map(|m| m.to_string()).unwrap_or_default())
        };
        if count < self.min {
            let noun = if self.min == 1 { "heading" } else { "headings" };
            let f = Finding::at(
                "",
                format!(
                    "expected at least {} {noun} matching {pattern}, found {count}",
                    self.min
                ),
            )
            .expected(format!("at least {} {noun} matching {pattern}", self.min))
            .received_text(format!("{count} matching"));
            return vec![vars(f)];
        }
        match (self.max, matching.get(self.max.unwrap_or(usize::MAX))) {
            (Some(max), Some(extra)) => {
                let f = Finding::at(
                    "",
                    format!("expected at most {max} headings matching {pattern}, found {count}"),
                )
                .span(extra.heading)
                .expected(format!("at most {max} headings matching {pattern}"))
                .received_text(format!("{count} matching"));
                vec![vars(f)]
            }
            _ => Vec::new(),
        }
    }
}

/// `### Title`: the heading as an ATX line.
pub(super) fn atx(level: u8, title: &str) -> String {
    format!("{} {}", "#".repeat(usize::from(level)), title.trim())
}

pub(super) fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}
