//! The exact text the model receives after a failed attempt, in each feedback mode.

use rectify_loop::{Engine, FeedbackLimits, FeedbackMode};
use rectify_provider::{Request, Role};

use crate::*;

const PROMPT: &str = "Describe the project as JSON.";
const SYSTEM: &str = "You answer with JSON.";
const FEEDBACK_1: &str = "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:\n- missing required field \"tags\"\n- name: expected string, got array (got [\"a\",\"b\"])";
const FEEDBACK_2: &str = "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:\n- tags: expected at least 1 item, got 0 (got [])";

/// Runs the standard task with two bad answers and a good one; returns the requests.
fn requests(mode: FeedbackMode) -> Vec<Request> {
    let provider = scripted("p", &[TWO_ERRORS, ONE_ERROR, VALID]);
    let outcome = block(Engine::new(provider.clone()).feedback(mode).run(&task()));
    valid(&outcome);
    let ledger = outcome.ledger();
    assert_eq!(ledger.totals.attempts, 3);
    provider.requests()
}

#[test]
fn append_keeps_the_transcript() {
    let requests = requests(FeedbackMode::Append);
    assert_eq!(
        turns(&requests[1].messages),
        vec![
            (Role::System, SYSTEM),
            (Role::User, PROMPT),
            (Role::Assistant, TWO_ERRORS),
            (Role::User, FEEDBACK_1),
        ]
    );
    assert_eq!(
        turns(&requests[2].messages),
        vec![
            (Role::System, SYSTEM),
            (Role::User, PROMPT),
            (Role::Assistant, TWO_ERRORS),
            (Role::User, FEEDBACK_1),
            (Role::Assistant, ONE_ERROR),
            (Role::User, FEEDBACK_2),
        ]
    );
}

#[test]
fn prefix_puts_a_block_before_the_prompt() {
    let requests = requests(FeedbackMode::Prefix);
    let expected = format!("## PREVIOUS VALIDATION FAILED\n\n{FEEDBACK_2}\n\n{PROMPT}");
    assert_eq!(
        turns(&requests[2].messages),
        vec![(Role::System, SYSTEM), (Role::User, expected.as_str())]
    );
    let first_retry = format!("## PREVIOUS VALIDATION FAILED\n\n{FEEDBACK_1}\n\n{PROMPT}");
    assert_eq!(requests[1].messages[1].content, first_retry);
}

#[test]
fn suffix_puts_feedback_after_the_prompt() {
    let requests = requests(FeedbackMode::Suffix);
    let expected = format!("{PROMPT}\n\nFeedback: {FEEDBACK_1}");
    assert_eq!(
        turns(&requests[1].messages),
        vec![(Role::System, SYSTEM), (Role::User, expected.as_str())]
    );
}

#[test]
fn fresh_repeats_the_prompt_without_the_bad_answer() {
    let requests = requests(FeedbackMode::Fresh);
    let expected = format!(
        "{PROMPT}\n\nAn earlier answer to this request did not pass validation. Avoid these problems and answer with the complete JSON only:\n- tags: expected at least 1 item, got 0 (got [])"
    );
    assert_eq!(
        turns(&requests[2].messages),
        vec![(Role::System, SYSTEM), (Role::User, expected.as_str())]
    );
    assert!(
        requests
            .iter()
            .all(|r| r.messages.iter().all(|m| m.role != Role::Assistant))
    );
}

#[test]
fn caps_are_configurable() {
    let provider = scripted("p", &[TWO_ERRORS, VALID]);
    let limits = FeedbackLimits {
        max_issues: 1,
        max_chars: 2_000,
    };
    let engine = Engine::new(provider.clone()).feedback_limits(limits);
    valid(&block(engine.run(&task())));
    assert_eq!(
        provider.requests()[1].messages[3].content,
        "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:\n- missing required field \"tags\"\n- … and 1 more problem"
    );
}

#[test]
fn a_conversation_is_sent_before_the_prompt_and_feedback_is_on_the_request() {
    use rectify_loop::Task;
    use rectify_provider::Message;

    let provider = scripted("p", &[TWO_ERRORS, VALID]);
    let task = Task::from_messages([
        Message::system(SYSTEM),
        Message::user("Our project is called rectify."),
        Message::assistant("Noted."),
        Message::user(PROMPT),
    ])
    .schema(schema())
    .unwrap();
    let outcome = block(
        Engine::new(provider.clone())
            .feedback(FeedbackMode::Append)
            .run(&task),
    );
    valid(&outcome);
    let requests = provider.requests();
    assert_eq!(
        turns(&requests[1].messages),
        vec![
            (Role::System, SYSTEM),
            (Role::User, "Our project is called rectify."),
            (Role::Assistant, "Noted."),
            (Role::User, PROMPT),
            (Role::Assistant, TWO_ERRORS),
            (Role::User, FEEDBACK_1),
        ]
    );
    assert_eq!(requests[0].feedback, None);
    assert_eq!(requests[1].feedback.as_deref(), Some(FEEDBACK_1));
}

#[test]
fn a_conversation_ending_with_the_model_gets_only_the_feedback() {
    use rectify_loop::Task;
    use rectify_provider::Message;

    let provider = scripted("p", &[TWO_ERRORS, VALID]);
    let task = Task::from_messages([Message::user(PROMPT), Message::assistant("Thinking...")])
        .schema(schema())
        .unwrap();
    let outcome = block(
        Engine::new(provider.clone())
            .feedback(FeedbackMode::Suffix)
            .run(&task),
    );
    valid(&outcome);
    let requests = provider.requests();
    assert_eq!(
        turns(&requests[0].messages),
        vec![(Role::User, PROMPT), (Role::Assistant, "Thinking...")]
    );
    assert_eq!(
        turns(&requests[1].messages),
        vec![
            (Role::User, PROMPT),
            (Role::Assistant, "Thinking..."),
            (Role::User, format!("Feedback: {FEEDBACK_1}").as_str()),
        ]
    );
}
