//! The messages of each attempt, for each feedback mode.

use rectify_provider::{Capabilities, Message};

use crate::Task;
use crate::config::FeedbackMode;
use crate::outcome::Attempt;

/// The heading of the `prefix` mode block.
const PREFIX_HEADING: &str = "## PREVIOUS VALIDATION FAILED";

/// The note listing mistakes of earlier steps.
pub(crate) fn memory_note_text(lines: &[String]) -> Option<String> {
    if lines.is_empty() {
        return None;
    }
    let mut note = String::from("Avoid these mistakes made in earlier steps:");
    for line in lines {
        note.push_str("\n- ");
        note.push_str(line);
    }
    Some(note)
}

/// The task prompt, plus the schema when the provider cannot be given it as structured
/// output, plus the error-memory note.
fn base_prompt(task: &Task, caps: &Capabilities, memory_note: Option<&str>) -> String {
    let mut prompt = task.prompt.clone();
    if let Some(schema) = task.schema_value().filter(|_| !caps.json_schema) {
        prompt.push_str("\n\nAnswer with JSON only, matching this JSON Schema:\n");
        prompt.push_str(&schema.to_string());
    }
    if let Some(note) = memory_note {
        prompt.push_str("\n\n");
        prompt.push_str(note);
    }
    prompt
}

/// The messages for the next attempt, given the attempts so far (those with feedback were
/// re-asked).
pub(crate) fn build_messages(
    task: &Task,
    mode: FeedbackMode,
    caps: &Capabilities,
    memory_note: Option<&str>,
    attempts: &[Attempt],
) -> Vec<Message> {
    let mut messages = Vec::with_capacity(2 + task.history.len() + 2 * attempts.len());
    if let Some(system) = &task.system {
        messages.push(Message::system(system.clone()));
    }
    messages.extend(task.history.iter().cloned());
    let base = base_prompt(task, caps, memory_note);
    let last = attempts.iter().rev().find_map(|a| a.feedback.as_deref());
    // A conversation that ended without a user message gets none unless there is something
    // to say (the schema, a memory note).
    let push_base = |messages: &mut Vec<Message>, base: String| {
        if !base.is_empty() {
            messages.push(Message::user(base));
        }
    };
    match (mode, last) {
        (_, None) => push_base(&mut messages, base),
        (FeedbackMode::Append, Some(_)) => {
            push_base(&mut messages, base);
            for attempt in attempts {
                if let Some(feedback) = &attempt.feedback {
                    messages.push(Message::assistant(attempt.raw.clone()));
                    messages.push(Message::user(feedback.clone()));
                }
            }
        }
        (FeedbackMode::Prefix, Some(feedback)) => {
            let head = format!("{PREFIX_HEADING}\n\n{feedback}");
            messages.push(Message::user(join(&head, &base)));
        }
        (FeedbackMode::Suffix, Some(feedback)) => {
            messages.push(Message::user(join(&base, &format!("Feedback: {feedback}"))));
        }
        (FeedbackMode::Fresh, Some(feedback)) => {
            messages.push(Message::user(join(&base, feedback)));
        }
    }
    messages
}

/// Two blocks separated by a blank line; an empty one is left out.
fn join(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_owned(),
        (_, true) => first.to_owned(),
        _ => format!("{first}\n\n{second}"),
    }
}
