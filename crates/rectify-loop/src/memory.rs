//! Cross-step error memory (docs/architecture.md, "Feedback and error memory"): recent mistakes of
//! earlier steps, shown to each new step as a short "avoid these mistakes" note.

use std::collections::VecDeque;

use rectify_core::Diagnostic;
use serde::{Deserialize, Serialize};

use crate::feedback::{issue_line, memory_note_text};

/// One remembered mistake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    /// The step that made it.
    pub step: String,
    /// The diagnostic code.
    pub code: String,
    /// The feedback line (`path: message`).
    pub text: String,
}

/// Mistakes kept across the steps of a workflow. The caller owns it and passes it to every
/// step; it is serializable so workflows can persist it with their checkpoints.
///
/// ```
/// use rectify_core::{Diagnostic, Location};
/// use rectify_loop::ErrorMemory;
///
/// let mut memory = ErrorMemory::default();
/// let d = Diagnostic::error("schema.required", Location::from_pointer("/tasks/0/id"), "missing required field \"id\"");
/// memory.record("plan", std::slice::from_ref(&d));
/// assert_eq!(memory.note_for("plan"), None); // a step is not reminded of its own mistakes
/// let note = memory.note_for("tasks").unwrap();
/// assert!(note.ends_with("- tasks[0]: missing required field \"id\""));
/// memory.clear_step("plan");
/// assert!(memory.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ErrorMemory {
    /// How many mistakes are kept in all (default 10; `errorHistorySize`).
    pub history_size: usize,
    /// How many mistakes of earlier steps each new step is shown (default 3;
    /// `crossStepErrorCount`).
    pub cross_step_count: usize,
    entries: VecDeque<Remembered>,
}

impl Default for ErrorMemory {
    fn default() -> Self {
        ErrorMemory::new(10, 3)
    }
}

impl ErrorMemory {
    /// An empty memory with the given sizes.
    pub fn new(history_size: usize, cross_step_count: usize) -> ErrorMemory {
        ErrorMemory {
            history_size,
            cross_step_count,
            entries: VecDeque::new(),
        }
    }

    /// Remembers the errors of a failed attempt of `step` (warnings are ignored). A mistake
    /// already remembered for the step moves to the end; the oldest entries are dropped.
    pub fn record(&mut self, step: &str, diagnostics: &[Diagnostic]) {
        for d in diagnostics.iter().filter(|d| d.is_error()) {
            let text = issue_line(d);
            self.entries.retain(|e| !(e.step == step && e.text == text));
            self.entries.push_back(Remembered {
                step: step.to_owned(),
                code: d.code.clone(),
                text,
            });
        }
        while self.entries.len() > self.history_size {
            self.entries.pop_front();
        }
    }

    /// Forgets the mistakes of `step` (called when it succeeds).
    pub fn clear_step(&mut self, step: &str) {
        self.entries.retain(|e| e.step != step);
    }

    /// The last `cross_step_count` mistakes of other steps, oldest first.
    pub fn recent_for(&self, step: &str) -> Vec<&Remembered> {
        let mut found: Vec<&Remembered> = self
            .entries
            .iter()
            .rev()
            .filter(|e| e.step != step)
            .take(self.cross_step_count)
            .collect();
        found.reverse();
        found
    }

    /// The "avoid these mistakes" note for `step`, if earlier steps made any.
    pub fn note_for(&self, step: &str) -> Option<String> {
        let lines: Vec<String> = self
            .recent_for(step)
            .into_iter()
            .map(|e| e.text.clone())
            .collect();
        memory_note_text(&lines)
    }

    /// Every remembered mistake, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &Remembered> {
        self.entries.iter()
    }

    /// Number of remembered mistakes.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use rectify_core::Location;

    use super::*;

    fn err(path: &str, msg: &str) -> Diagnostic {
        Diagnostic::error("c", Location::from_pointer(path), msg)
    }

    #[test]
    fn keeps_the_last_entries_and_shows_other_steps_only() {
        let mut m = ErrorMemory::new(4, 2);
        m.record(
            "a",
            &[err("/x", "one"), err("/y", "two"), err("/z", "three")],
        );
        m.record("b", &[err("/w", "four"), err("/v", "five")]);
        assert_eq!(m.len(), 4, "oldest dropped");
        let texts: Vec<&str> = m.recent_for("b").iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts, vec!["y: two", "z: three"]);
        let texts: Vec<&str> = m.recent_for("c").iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts, vec!["w: four", "v: five"]);
        m.clear_step("b");
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn repeated_mistakes_are_not_duplicated_and_warnings_ignored() {
        let mut m = ErrorMemory::default();
        m.record("a", &[err("/x", "one")]);
        m.record("a", &[err("/x", "one")]);
        m.record("a", &[Diagnostic::warning("w", Location::root(), "meh")]);
        assert_eq!(m.len(), 1);
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<ErrorMemory>(&text).unwrap(), m);
    }
}
