//! `min_length: N` / `max_length: M`: the document's text must have at least (at most) so
//! many characters, not counting leading and trailing whitespace.
//!
//! Why: a one-line "plan" is not a plan; a runaway answer is not one either. For values
//! without source text the length of the string (or of the compact JSON) counts. Example:
//! `$: the text is 120 characters long, expected at least 200`.

use serde_json::Value;

use super::config::Spec;
use super::{Context, Finding};

/// Placeholders of `message`, besides the common ones.
pub(super) const PLACEHOLDERS: &[&str] = &["length", "min", "max"];

#[derive(Debug, Clone)]
pub(super) struct Length {
    min: Option<usize>,
    max: Option<usize>,
}

impl Length {
    pub(super) fn parse(spec: &Spec<'_>) -> Result<Length, String> {
        let (min, max) = (spec.count("min_length")?, spec.count("max_length")?);
        if let (Some(min), Some(max)) = (min, max)
            && max < min
        {
            return Err("`max_length` is smaller than `min_length`".into());
        }
        Ok(Length { min, max })
    }

    pub(super) fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        let length = text_length(cx);
        let (relation, limit, code) = match (self.min, self.max) {
            (Some(min), _) if length < min => ("at least", min, "rule.min_length"),
            (_, Some(max)) if length > max => ("at most", max, "rule.max_length"),
            _ => return Vec::new(),
        };
        let finding = Finding::at(
            "",
            format!("the text is {length} characters long, expected {relation} {limit}"),
        )
        .code(code)
        .expected(format!("{relation} {limit} characters"))
        .received_text(format!("{length} characters"))
        .var("length", length.to_string())
        .var("min", self.min.map(|n| n.to_string()).unwrap_or_default())
        .var("max", self.max.map(|n| n.to_string()).unwrap_or_default());
        vec![finding]
    }
}

fn text_length(cx: &Context<'_>) -> usize {
    let doc = cx.doc;
    if !doc.source.is_empty() {
        return doc.source.trim().chars().count();
    }
    match &doc.value {
        Value::String(s) => s.trim().chars().count(),
        Value::Null => 0,
        other => other.to_string().chars().count(),
    }
}
