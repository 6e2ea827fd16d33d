//! Turning a request into a prompt and an argument list.

use crate::{Request, Role};

/// The values placeholders expand to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Values {
    pub(crate) prompt: String,
    pub(crate) system: String,
    pub(crate) model: String,
    pub(crate) max_turns: Option<String>,
    pub(crate) allowed_tools: String,
}

impl Values {
    /// The values for `request`. When the template passes `{system}` separately, the prompt
    /// leaves the system text out.
    pub(crate) fn new(request: &Request, model: &str, system_separate: bool) -> Self {
        Self {
            prompt: render_prompt(request, !system_separate),
            system: request.system_text().unwrap_or_default(),
            model: model.to_owned(),
            max_turns: request.max_turns.map(|n| n.to_string()),
            allowed_tools: request.allowed_tools.join(","),
        }
    }

    /// Expands placeholders in one pass, so expanded text is never expanded again.
    fn expand(&self, arg: &str) -> String {
        let mut out = String::with_capacity(arg.len());
        let mut rest = arg;
        while let Some(start) = rest.find('{') {
            let (before, from_brace) = rest.split_at(start);
            out.push_str(before);
            let (value, used) = self.lookup(from_brace).unwrap_or(("{", 1));
            out.push_str(value);
            rest = from_brace.get(used..).unwrap_or("");
        }
        out.push_str(rest);
        out
    }

    /// The value of the placeholder `text` starts with, and the placeholder's length.
    fn lookup(&self, text: &str) -> Option<(&str, usize)> {
        let table = [
            ("{prompt}", self.prompt.as_str()),
            ("{system}", self.system.as_str()),
            ("{model}", self.model.as_str()),
            ("{max_turns}", self.max_turns.as_deref().unwrap_or("")),
            ("{allowed_tools}", self.allowed_tools.as_str()),
        ];
        table
            .into_iter()
            .find(|(name, _)| text.starts_with(name))
            .map(|(name, value)| (value, name.len()))
    }
}

/// Whether any argument uses `placeholder`.
pub(crate) fn uses(args: &[String], placeholder: &str) -> bool {
    args.iter().any(|a| a.contains(placeholder))
}

/// The argument list: `args`, then `max_turns_args` when the request sets `max_turns`, then
/// `allowed_tools_args` when it lists tools, each with placeholders expanded.
pub(crate) fn expand_args(
    args: &[String],
    max_turns_args: &[String],
    allowed_tools_args: &[String],
    values: &Values,
) -> Vec<String> {
    let expand = |a: &String| not_a_flag(a, values.expand(a));
    let mut out: Vec<String> = args.iter().map(expand).collect();
    if values.max_turns.is_some() {
        out.extend(max_turns_args.iter().map(expand));
    }
    if !values.allowed_tools.is_empty() {
        out.extend(allowed_tools_args.iter().map(expand));
    }
    out
}

/// An argument whose text came from a placeholder (the prompt, the system text: input a model
/// or a document wrote) never reads as an option: `--dangerously-skip-permissions` in the
/// prompt must not become a flag of the agent. A leading `-` gets a space before it.
fn not_a_flag(template: &str, expanded: String) -> String {
    if expanded.starts_with('-') && !template.starts_with('-') {
        format!(" {expanded}")
    } else {
        expanded
    }
}

/// One prompt for a program that takes a single text: the system text, then the turns. A lone
/// user turn is given as is; a conversation is given as `[user]` / `[assistant]` sections.
pub(crate) fn render_prompt(request: &Request, include_system: bool) -> String {
    let mut parts = Vec::new();
    if include_system {
        parts.extend(request.system_text());
    }
    let turns: Vec<_> = request.turns().collect();
    match turns.as_slice() {
        [only] if only.role == Role::User => parts.push(only.content.clone()),
        _ => parts.extend(
            turns
                .iter()
                .map(|m| format!("[{}]\n{}", m.role.as_str(), m.content)),
        ),
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[test]
    fn a_prompt_never_becomes_a_flag() {
        let request = Request::new("--dangerously-skip-permissions do it");
        let values = Values::new(&request, "", false);
        let args = expand_args(&["-p".to_owned(), "{prompt}".to_owned()], &[], &[], &values);
        assert_eq!(args, ["-p", " --dangerously-skip-permissions do it"]);
    }

    #[test]
    fn single_turn_prompt_is_plain() {
        let request = Request::new("do it").with_system("rules");
        assert_eq!(render_prompt(&request, true), "rules\n\ndo it");
        assert_eq!(render_prompt(&request, false), "do it");
    }

    #[test]
    fn conversations_are_labelled() {
        let request = Request::from_messages(vec![
            Message::user("q"),
            Message::assistant("a"),
            Message::user("again"),
        ]);
        assert_eq!(
            render_prompt(&request, true),
            "[user]\nq\n\n[assistant]\na\n\n[user]\nagain"
        );
    }

    #[test]
    fn optional_argument_groups() {
        let args = vec![
            "-p".to_owned(),
            "{prompt}".to_owned(),
            "--model={model}".to_owned(),
        ];
        let turns = vec!["--max-turns".to_owned(), "{max_turns}".to_owned()];
        let tools = vec!["--allowedTools".to_owned(), "{allowed_tools}".to_owned()];
        let mut request = Request::new("hi");
        let values = Values::new(&request, "m", false);
        assert_eq!(
            expand_args(&args, &turns, &tools, &values),
            ["-p", "hi", "--model=m"]
        );
        request.max_turns = Some(3);
        request.allowed_tools = vec!["Read".into(), "Grep".into()];
        let values = Values::new(&request, "m", false);
        assert_eq!(
            expand_args(&args, &turns, &tools, &values),
            [
                "-p",
                "hi",
                "--model=m",
                "--max-turns",
                "3",
                "--allowedTools",
                "Read,Grep"
            ]
        );
    }

    #[test]
    fn placeholders_are_not_re_expanded() {
        let request = Request::new("{model}");
        let values = Values::new(&request, "m", false);
        assert_eq!(values.expand("{prompt}"), "{model}");
    }
}
