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
    if let Some(schema) = task.schema_value.as_ref().filter(|_| !caps.json_schema) {
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
    let mut messages = Vec::with_capacity(2 + 2 * attempts.len());
    if let Some(system) = &task.system {
        messages.push(Message::system(system.clone()));
    }
    let base = base_prompt(task, caps, memory_note);
    let last = attempts.iter().rev().find_map(|a| a.feedback.as_deref());
    match (mode, last) {
        (_, None) => messages.push(Message::user(base)),
        (FeedbackMode::Append, Some(_)) => {
            messages.push(Message::user(base));
            for attempt in attempts {
                if let Some(feedback) = &attempt.feedback {
                    messages.push(Message::assistant(attempt.raw.clone()));
                    messages.push(Message::user(feedback.clone()));
                }
            }
        }
        (FeedbackMode::Prefix, Some(feedback)) => {
            messages.push(Message::user(format!(
                "{PREFIX_HEADING}\n\n{feedback}\n\n{base}"
            )));
        }
        (FeedbackMode::Suffix, Some(feedback)) => {
            messages.push(Message::user(format!("{base}\n\nFeedback: {feedback}")));
        }
        (FeedbackMode::Fresh, Some(feedback)) => {
            messages.push(Message::user(format!("{base}\n\n{feedback}")));
        }
    }
    messages
}
