//! Message templates: `"{value} is not one of the plan's phase ids ({allowed})"`.
//!
//! Placeholders are checked when the rules file is loaded, so a typo is a configuration
//! error rather than a message with a hole in it. `{{` and `}}` stand for literal braces.

/// Placeholders every rule understands.
pub(crate) const COMMON: &[&str] = &["id", "path", "pointer", "value"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Var(String),
}

/// A parsed message template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template {
    parts: Vec<Part>,
}

impl Template {
    /// Parses `text`, accepting the common placeholders and `extra`.
    pub(crate) fn parse(text: &str, extra: &[&str]) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('{', Some('{')) | ('}', Some('}')) => {
                    chars.next();
                    literal.push(c);
                }
                ('{', _) => {
                    let mut name = String::new();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == '}' {
                            closed = true;
                            break;
                        }
                        name.push(c);
                    }
                    if !closed || name.contains('{') {
                        return Err(format!(
                            "unclosed `{{` in message `{text}` (write `{{{{` for a brace)"
                        ));
                    }
                    check_name(&name, extra)?;
                    parts.push(Part::Text(std::mem::take(&mut literal)));
                    parts.push(Part::Var(name));
                }
                ('}', _) => {
                    return Err(format!(
                        "unmatched `}}` in message `{text}` (write `}}}}` for a brace)"
                    ));
                }
                _ => literal.push(c),
            }
        }
        parts.push(Part::Text(literal));
        parts.retain(|p| !matches!(p, Part::Text(t) if t.is_empty()));
        Ok(Template { parts })
    }

    /// Fills the placeholders from `vars`; a placeholder without a value renders empty.
    pub(crate) fn render(&self, vars: &[(&str, String)]) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Var(name) => {
                    if let Some((_, v)) = vars.iter().find(|(k, _)| k == name) {
                        out.push_str(v);
                    }
                }
            }
        }
        out
    }
}

fn check_name(name: &str, extra: &[&str]) -> Result<(), String> {
    if COMMON.contains(&name) || extra.contains(&name) {
        return Ok(());
    }
    let known: Vec<String> = COMMON
        .iter()
        .chain(extra)
        .map(|k| format!("{{{k}}}"))
        .collect();
    Err(format!(
        "unknown placeholder `{{{name}}}` in message (known: {})",
        known.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_placeholders_and_braces() {
        let t = Template::parse("{value} not in {{ {allowed} }}", &["allowed"]).unwrap();
        let out = t.render(&[("value", "\"x\"".into()), ("allowed", "a, b".into())]);
        assert_eq!(out, "\"x\" not in { a, b }");
    }

    #[test]
    fn rejects_unknown_and_unclosed_placeholders() {
        let err = Template::parse("bad {valu}", &[]).unwrap_err();
        assert!(err.starts_with("unknown placeholder `{valu}`"), "{err}");
        assert!(err.contains("{value}"), "{err}");
        let err = Template::parse("bad {value", &[]).unwrap_err();
        assert!(err.starts_with("unclosed `{`"), "{err}");
        assert!(Template::parse("a } b", &[]).is_err());
    }
}
