//! Cross-step error memory over three steps.

use rectify_loop::{Engine, ErrorMemory};

use crate::*;

const NOTE: &str = "Avoid these mistakes made in earlier steps:\n- missing required field \"tags\"\n- name: expected string, got array (got [\"a\",\"b\"])\n- tags: expected at least 1 item, got 0 (got [])";

/// Serializes and restores the memory, as a workflow checkpoint would.
fn checkpoint(memory: &ErrorMemory) -> ErrorMemory {
    serde_json::from_str(&serde_json::to_string(memory).unwrap()).unwrap()
}

#[test]
fn mistakes_of_earlier_steps_are_shown_to_later_steps() {
    let mut memory = ErrorMemory::default();

    // Step 1 fails for good: its mistakes stay in memory.
    let plan = scripted("p", &[TWO_ERRORS, ONE_ERROR]);
    let engine = Engine::new(plan.clone()).max_attempts(2);
    let outcome = block(engine.run_with_memory(&task().step("plan"), &mut memory));
    assert_eq!(outcome.status(), "exhausted");
    assert_eq!(memory.len(), 3);
    assert!(
        plan.requests()
            .iter()
            .all(|r| !r.messages[1].content.contains("Avoid these mistakes")),
        "a step is not reminded of its own mistakes"
    );
    let mut memory = checkpoint(&memory);

    // Step 2 sees them, fails once, then succeeds: its own entries are cleared.
    let tasks = scripted("p", &[r#"{"name": "x", "tags": [1]}"#, VALID]);
    let engine = Engine::new(tasks.clone());
    let outcome = block(engine.run_with_memory(&task().step("tasks"), &mut memory));
    valid(&outcome);
    let first = &tasks.requests()[0].messages[1].content;
    assert_eq!(first, &format!("Describe the project as JSON.\n\n{NOTE}"));
    assert_eq!(memory.len(), 3);
    assert!(memory.entries().all(|e| e.step == "plan"));
    let mut memory = checkpoint(&memory);

    // Step 3 sees step 1's mistakes only.
    let review = scripted("p", &[VALID]);
    let engine = Engine::new(review.clone());
    valid(&block(
        engine.run_with_memory(&task().step("review"), &mut memory),
    ));
    assert_eq!(
        review.requests()[0].messages[1].content,
        format!("Describe the project as JSON.\n\n{NOTE}")
    );
}
