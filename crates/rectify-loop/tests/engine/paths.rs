//! First-time valid, repaired, truncated, refused, exhausted, typed, custom validators.

use rectify_core::{Diagnostic, Location};
use rectify_loop::{
    Engine, Limit, LoopConfig, Outcome, TRUNCATED, Task, validate_with_retry_typed,
};
use rectify_provider::{Capabilities, Role};
use rectify_test::scripted::ScriptedProvider;
use serde_json::json;

use crate::*;

#[test]
fn valid_the_first_time_asks_once() {
    let provider = scripted("p", &[VALID]);
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    assert_eq!(
        valid(&outcome),
        &json!({"name": "rectify", "tags": ["rust"]})
    );
    let Outcome::Valid {
        warnings,
        repairs,
        ledger,
        ..
    } = &outcome
    else {
        unreachable!()
    };
    assert!(warnings.is_empty() && repairs.is_empty());
    assert_eq!(ledger.totals.attempts, 1);
    assert_eq!(ledger.totals.usage.total(), 15);
    let requests = provider.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        turns(&requests[0].messages),
        vec![
            (Role::System, "You answer with JSON."),
            (Role::User, "Describe the project as JSON.")
        ]
    );
    assert_eq!(requests[0].schema.as_ref(), Some(&schema()));
    assert!(requests[0].json);
}

#[test]
fn repaired_without_a_re_ask() {
    let provider = scripted(
        "p",
        &["Here you go:\n```json\n{'name': 'rectify', 'tags': ['rust',],}\n```"],
    );
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    assert_eq!(valid(&outcome)["tags"], json!(["rust"]));
    let Outcome::Valid {
        repairs, ledger, ..
    } = &outcome
    else {
        unreachable!()
    };
    let codes: Vec<&str> = repairs.iter().map(|r| r.code.as_str()).collect();
    assert!(codes.contains(&"json.single_quotes"), "{codes:?}");
    assert!(codes.contains(&"json.trailing_comma"), "{codes:?}");
    assert_eq!(provider.calls(), 1);
    assert_eq!(ledger.attempts[0].report.repairs.len(), repairs.len());
}

#[test]
fn unsafe_repairs_need_permission() {
    let text = r#"{"name": rectify project, with docs, "tags": ["rust"]}"#;
    let strict = block(
        Engine::new(scripted("p", &[text]))
            .max_attempts(1)
            .run(&task()),
    );
    assert!(!strict.is_valid());
    let allowed = Engine::new(scripted("p", &[text])).allow_unsafe_repairs(true);
    let outcome = block(allowed.run(&task()));
    assert_eq!(valid(&outcome)["name"], "rectify project, with docs");
}

#[test]
fn a_truncated_answer_is_re_asked_for_a_shorter_one() {
    let provider = Arc::new(
        ScriptedProvider::new("p")
            .truncated(r#"{"name": "rectify", "tags": ["ru"#)
            .text(VALID),
    );
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    valid(&outcome);
    let first = &outcome.ledger().attempts[0];
    assert!(first.report.diagnostics.iter().any(|d| d.code == TRUNCATED));
    let second = &provider.requests()[1];
    assert_eq!(
        second.messages.last().map(|m| m.content.as_str()),
        Some(
            "Your previous answer was cut off at the output token limit. Answer again with a shorter answer: the complete JSON only, without commentary."
        )
    );
}

#[test]
fn a_refusal_is_re_asked_once_then_its_own_outcome() {
    // Refused, then valid: the refusal was sent back as feedback.
    let provider = Arc::new(
        ScriptedProvider::new("p")
            .refusal("I can't help with that.")
            .text(VALID),
    );
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    let Outcome::Valid { ledger, .. } = &outcome else {
        panic!("{outcome:#?}")
    };
    assert_eq!(provider.calls(), 2, "a first refusal is re-asked");
    let feedback = ledger.attempts[0].feedback.as_deref().unwrap_or_default();
    assert!(feedback.contains("refused"), "{feedback}");
    assert_eq!(
        ledger.attempts[0].report.diagnostics[0].code,
        "response.refused"
    );

    // Refused twice: the run ends refused, without a third call.
    let provider = Arc::new(
        ScriptedProvider::new("p")
            .refusal("I can't help with that.")
            .refusal("Still no.")
            .text(VALID),
    );
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    let Outcome::Refused { message, ledger } = &outcome else {
        panic!("{outcome:#?}")
    };
    assert_eq!(message, "Still no.");
    assert_eq!((ledger.totals.attempts, provider.calls()), (2, 2));

    // Refused on the only attempt: refused, not exhausted.
    let provider = Arc::new(ScriptedProvider::new("p").refusal("No."));
    let config = LoopConfig {
        max_attempts: 1,
        ..LoopConfig::default()
    };
    let outcome = block(
        Engine::new(provider.clone())
            .with_config(config)
            .run(&task()),
    );
    assert!(
        matches!(&outcome, Outcome::Refused { message, .. } if message == "No."),
        "{outcome:#?}"
    );
}

#[test]
fn always_invalid_exhausts_and_keeps_the_best_candidate() {
    let provider = scripted("p", &[TWO_ERRORS, ONE_ERROR, "not json at all"]);
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    let Outcome::Exhausted {
        best,
        diagnostics,
        escalation,
        limit,
        ledger,
    } = &outcome
    else {
        panic!("{outcome:#?}")
    };
    assert_eq!(provider.calls(), 3);
    assert_eq!(*limit, Limit::Attempts { made: 3 });
    let best = best.as_ref().unwrap();
    assert_eq!(best.attempt, 2);
    assert_eq!(best.value, Some(json!({"name": "rectify", "tags": []})));
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].location.path, "tags");
    assert_eq!(escalation.prompt, "Describe the project as JSON.");
    assert_eq!(escalation.schema.as_ref(), Some(&schema()));
    assert_eq!(escalation.candidate, best.value);
    assert_eq!(escalation.errors, *diagnostics);
    assert_eq!(escalation.reason, "no valid answer after 3 attempts");
    assert_eq!(ledger.attempts.len(), 3);
    assert_eq!(ledger.attempts[0].error_count(), 2);
    assert!(ledger.attempts[2].report.value.is_none());
    assert_eq!(ledger.totals.usage.total(), 45);
}

#[test]
fn typed_runs_deserialize_and_feed_back_type_errors() {
    #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    struct Project {
        name: String,
        stars: u8,
    }
    let provider = scripted(
        "p",
        &[
            r#"{"name": "r", "stars": 300}"#,
            r#"{"name": "r", "stars": 3}"#,
        ],
    );
    let outcome = block(validate_with_retry_typed::<Project>(
        provider.clone(),
        Task::new("How many stars?"),
    ))
    .unwrap();
    assert_eq!(
        valid(&outcome),
        &Project {
            name: "r".into(),
            stars: 3
        }
    );
    let requests = provider.requests();
    let schema = requests[0].schema.as_ref().unwrap();
    assert_eq!(schema["properties"]["stars"]["type"], "integer");
    let feedback = &requests[1].messages.last().unwrap().content;
    assert!(feedback.starts_with(HEADER), "{feedback}");
    assert!(feedback.contains("\n- stars: "), "{feedback}");
}

#[test]
fn custom_validators_run_after_the_schema() {
    let task = task().validator("no-todo", |v| {
        if v["name"] == "TODO" {
            vec![Diagnostic::error(
                "custom.todo",
                Location::from_pointer("/name"),
                "the name is a placeholder",
            )]
        } else {
            vec![]
        }
    });
    let provider = scripted("p", &[r#"{"name": "TODO", "tags": ["x"]}"#, VALID]);
    let outcome = block(Engine::new(provider.clone()).run(&task));
    valid(&outcome);
    let first = &outcome.ledger().attempts[0].report.diagnostics[0];
    assert_eq!(first.source, "validator:no-todo");
    assert_eq!(
        provider.requests()[1].messages.last().unwrap().content,
        format!("{HEADER}\n- name: the name is a placeholder")
    );
}

#[test]
fn providers_without_schema_support_get_the_schema_in_the_prompt() {
    let caps = Capabilities {
        json_schema: false,
        ..Capabilities::default()
    };
    let provider = Arc::new(
        ScriptedProvider::new("agent")
            .with_capabilities(caps)
            .text(VALID),
    );
    let outcome = block(Engine::new(provider.clone()).run(&task()));
    valid(&outcome);
    let prompt = &provider.requests()[0].messages[1].content;
    assert_eq!(
        prompt,
        &format!(
            "Describe the project as JSON.\n\nAnswer with JSON only, matching this JSON Schema:\n{}",
            schema()
        )
    );
}

#[test]
fn outcomes_round_trip_through_json() {
    let provider = scripted(
        "p",
        &[TWO_ERRORS, "```json\n{\"name\": \"r\", \"tags\": [],}\n```"],
    );
    let outcome = block(Engine::new(provider).max_attempts(2).run(&task()));
    assert_eq!(outcome.status(), "exhausted");
    let text = serde_json::to_string(&outcome).unwrap();
    let back: Outcome = serde_json::from_str(&text).unwrap();
    assert_eq!(back, outcome);
    let valid_outcome = block(Engine::new(scripted("p", &[VALID])).run(&task()));
    let text = serde_json::to_string(&valid_outcome).unwrap();
    assert_eq!(
        serde_json::from_str::<Outcome>(&text).unwrap(),
        valid_outcome
    );
}
