use rectify_core::{Diagnostic, Location, Span};

use super::*;

fn err(pointer: &str, message: &str) -> Diagnostic {
    Diagnostic::error("schema.x", Location::from_pointer(pointer), message)
}

#[test]
fn lines_say_where_what_got_and_expected_once() {
    let d = err(
        "/tasks/0/phaseId",
        "\"phase-9\" is not one of the plan's phase ids (phase-1)",
    )
    .received("\"phase-9\"");
    assert_eq!(
        issue_line(&d),
        "tasks[0].phaseId: \"phase-9\" is not one of the plan's phase ids (phase-1)"
    );
    let d = err("/n", "expected integer, got string")
        .expected("integer")
        .received("\"2\"");
    assert_eq!(
        issue_line(&d),
        "n: expected integer, got string (got \"2\")"
    );
    let d = err("/a", "too short")
        .expected("at least 3 items")
        .received("[1]");
    assert_eq!(
        issue_line(&d),
        "a: too short (got [1], expected at least 3 items)"
    );
    let d = err("", "no JSON value found in the text");
    assert_eq!(issue_line(&d), "no JSON value found in the text");
    let span = Span {
        start: 3,
        end: 4,
        line: 2,
        column: 5,
    };
    let d = Diagnostic::error("repair.unsafe", Location::from_span(span), "needs repair");
    assert_eq!(issue_line(&d), "line 2, column 5: needs repair");
}

#[test]
fn duplicates_and_warnings_are_dropped() {
    let diags = vec![
        err("/a", "bad"),
        err("/a", "bad"),
        Diagnostic::warning("w", Location::root(), "meh"),
        err("/b", "worse"),
    ];
    let fb = Feedback::from_diagnostics(&diags, &FeedbackLimits::default());
    assert_eq!(fb.items, vec!["a: bad", "b: worse"]);
}

#[test]
fn caps_count_and_characters() {
    let diags: Vec<Diagnostic> = (0..30).map(|i| err(&format!("/x/{i}"), "wrong")).collect();
    let fb = Feedback::from_diagnostics(&diags, &FeedbackLimits::default());
    assert_eq!(fb.items.len(), 21);
    assert_eq!(fb.items[20], "… and 10 more problems");
    let limits = FeedbackLimits {
        max_issues: 20,
        max_chars: 40,
    };
    let fb = Feedback::from_diagnostics(&diags, &limits);
    // "x[0]: wrong" is 11 characters, 14 with the bullet and the line break.
    assert_eq!(
        fb.items,
        vec!["x[0]: wrong", "x[1]: wrong", "… and 28 more problems"]
    );
    let long = vec![err("/a", &"y".repeat(100))];
    let fb = Feedback::from_diagnostics(&long, &limits);
    assert_eq!(fb.items[0].chars().count(), 37);
    assert!(fb.items[0].ends_with('…'));
}

#[test]
fn rendering_per_mode_and_truncation() {
    let fb = Feedback {
        truncated: false,
        items: vec!["a: bad".into()],
    };
    assert_eq!(
        fb.render(FeedbackMode::Append),
        "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:\n- a: bad"
    );
    assert_eq!(
        fb.render(FeedbackMode::Fresh),
        "An earlier answer to this request did not pass validation. Avoid these problems and answer with the complete JSON only:\n- a: bad"
    );
    let cut = Feedback::from_diagnostics(
        &[Diagnostic::error(TRUNCATED, Location::root(), "cut")],
        &FeedbackLimits::default(),
    );
    assert!(cut.truncated && cut.items.is_empty());
    assert_eq!(
        cut.render(FeedbackMode::Suffix),
        "Your previous answer was cut off at the output token limit. Answer again with a shorter answer: the complete JSON only, without commentary."
    );
}

#[test]
fn missing_fields_are_located_at_their_parent() {
    let d = Diagnostic::error(
        "schema.required",
        Location::from_pointer("/tasks/1/acceptanceCriteria"),
        "missing required field \"acceptanceCriteria\"",
    );
    assert_eq!(
        issue_line(&d),
        "tasks[1]: missing required field \"acceptanceCriteria\""
    );
}
