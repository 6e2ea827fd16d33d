//! Agent definition files: Markdown with YAML front matter, relative to the workflow file.

use std::collections::BTreeMap;
use std::path::Path;

use rectify_core::{Document, Format};
use rectify_parse::Limits;

use super::{Problem, deserialize, read_yaml};
use crate::spec::{AgentFrontMatter, AgentSpec, WorkflowSpec, parse_agent};

/// Loads every agent the workflow names; returns them and the texts read (for the hash).
pub(super) fn load(
    spec: &WorkflowSpec,
    dir: &Path,
    workflow: &Path,
    doc: &Document,
    problems: &mut Vec<Problem>,
) -> (BTreeMap<String, AgentSpec>, Vec<String>) {
    let mut agents = BTreeMap::new();
    let mut texts = Vec::new();
    for (name, relative) in &spec.agents {
        let pointer = format!("/agents/{}", escape(name));
        let path = dir.join(relative);
        let limit = Limits::default().max_bytes;
        let text = match rectify_parse::read_file_bytes(&path, &Limits::default())
            .map_err(|e| e.to_string())
            .and_then(|b| {
                if b.len() > limit {
                    return Err(format!("it is larger than the {limit}-byte limit"));
                }
                String::from_utf8(b).map_err(|_| "it is not UTF-8".to_owned())
            }) {
            Ok(text) => text,
            Err(e) => {
                problems.push(
                    Problem::at(
                        workflow,
                        doc,
                        &pointer,
                        format!(
                            "the agent `{name}` cannot be read from `{}`: {e}",
                            path.display()
                        ),
                    )
                    .expected("a Markdown file with YAML front matter"),
                );
                continue;
            }
        };
        match agent(name, &path, &text) {
            Ok(agent) => {
                if let Some(provider) = &agent.front.provider
                    && !spec.providers.contains_key(provider)
                {
                    let md = read_yaml(&path, text.clone(), Format::Markdown).ok();
                    let p = match &md {
                        Some(md) => Problem::at(&path, md, "/provider", unknown_provider(provider)),
                        None => Problem::new(&path, unknown_provider(provider)),
                    };
                    problems.push(p.expected(known(spec.providers.keys())));
                }
                agents.insert(name.clone(), agent);
            }
            Err(mut found) => problems.append(&mut found),
        }
        texts.push(text);
    }
    (agents, texts)
}

fn agent(name: &str, path: &Path, text: &str) -> Result<AgentSpec, Vec<Problem>> {
    let Some((_, body)) = parse_agent(text) else {
        return Err(vec![
            Problem::new(path, "the agent file has no YAML front matter")
                .expected("a first line `---`, YAML settings, and a closing `---`"),
        ]);
    };
    let md = read_yaml(path, text.to_owned(), Format::Markdown).map_err(|e| e.problems)?;
    let front: AgentFrontMatter = if md.value.is_null() {
        AgentFrontMatter::default()
    } else {
        deserialize(path, &md).map_err(|e| e.problems)?
    };
    Ok(AgentSpec {
        name: name.to_owned(),
        front,
        instructions: body.trim().to_owned(),
    })
}

fn unknown_provider(name: &str) -> String {
    format!("unknown provider `{name}`")
}

/// `one of a, b` for messages.
pub(super) fn known<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.map(String::as_str).collect();
    if names.is_empty() {
        "none is defined".to_owned()
    } else {
        format!("one of {}", names.join(", "))
    }
}

/// Escapes a key for a JSON Pointer.
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
