//! Agent definitions: Markdown with YAML front matter, the format coding-agent tools use.

use serde::{Deserialize, Serialize};

/// The front matter of an agent file.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFrontMatter {
    /// The agent's name.
    #[serde(default)]
    pub name: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// The provider (a name from the workflow's `providers`).
    #[serde(default)]
    pub provider: Option<String>,
    /// The model (overrides the provider's).
    #[serde(default)]
    pub model: Option<String>,
    /// Turns the agent may take (for command agents that accept a limit).
    #[serde(default)]
    pub max_turns: Option<u32>,
    /// Tools the agent may use.
    #[serde(default)]
    pub tools: Vec<String>,
}

/// An agent: its settings and the instructions placed before every prompt it gets.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct AgentSpec {
    /// The name it has in the workflow.
    pub name: String,
    /// Settings from the front matter.
    pub front: AgentFrontMatter,
    /// The Markdown body.
    pub instructions: String,
}

/// Splits an agent file into front matter and body; `None` when there is no front matter.
pub fn parse_agent(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Some((front, body));
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_body_split() {
        let (front, body) = parse_agent("---\nname: a\n---\nDo it.\n").unwrap();
        assert_eq!(front, "name: a\n");
        assert_eq!(body, "Do it.\n");
        assert!(parse_agent("no front matter").is_none());
        assert!(parse_agent("---\nname: a\nnever closed").is_none());
    }
}
