//! The fallback ladder: the next provider continues with the feedback gathered so far, and
//! takes over when a provider fails after its transport retries.

use std::time::Duration;

use rectify_loop::{Engine, Outcome};
use rectify_provider::{ErrorKind, ProviderError, Role};
use rectify_test::scripted::ScriptedProvider;

use crate::*;

fn unavailable(provider: &str) -> ProviderError {
    let mut error = ProviderError::new(
        provider,
        ErrorKind::Http {
            status: 503,
            retry_after: None,
            body: "busy".into(),
        },
    );
    error.retries = 4;
    error.elapsed = Duration::from_secs(3);
    error
}

#[test]
fn the_next_rung_continues_with_the_accumulated_feedback() {
    let small = scripted("small", &[TWO_ERRORS, ONE_ERROR]);
    let large = scripted("large", &[VALID]);
    let engine = Engine::new(small.clone())
        .max_attempts(2)
        .fallback(large.clone());
    let outcome = block(engine.run(&task()));
    valid(&outcome);
    let ledger = outcome.ledger();
    let rungs: Vec<(usize, &str)> = ledger
        .attempts
        .iter()
        .map(|a| (a.rung, a.provider.as_str()))
        .collect();
    assert_eq!(rungs, vec![(0, "small"), (0, "small"), (1, "large")]);
    let asked = &large.requests()[0];
    let roles: Vec<Role> = asked.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::System,
            Role::User,
            Role::Assistant,
            Role::User,
            Role::Assistant,
            Role::User
        ]
    );
    assert_eq!(asked.messages[4].content, ONE_ERROR);
    assert!(asked.messages[5].content.starts_with(HEADER));
}

#[test]
fn a_rung_can_have_its_own_attempt_count() {
    let small = scripted("small", &[TWO_ERRORS, TWO_ERRORS, TWO_ERRORS]);
    let large = scripted("large", &[ONE_ERROR, VALID]);
    let engine = Engine::new(small.clone())
        .max_attempts(1)
        .fallback_with_attempts(large.clone(), 2);
    valid(&block(engine.run(&task())));
    assert_eq!((small.calls(), large.calls()), (1, 2));
}

#[test]
fn a_transport_failure_moves_to_the_next_rung() {
    let down = Arc::new(ScriptedProvider::new("down").fail(unavailable("down")));
    let up = scripted("up", &[VALID]);
    let outcome = block(Engine::new(down.clone()).fallback(up.clone()).run(&task()));
    valid(&outcome);
    let ledger = outcome.ledger();
    assert_eq!(
        ledger.totals.attempts, 1,
        "a transport failure is not an attempt"
    );
    assert_eq!(ledger.provider_errors, vec![unavailable("down")]);
    assert_eq!(ledger.totals.transport_retries, 4);
    assert_eq!(down.calls(), 1);
}

#[test]
fn when_the_last_rung_fails_the_outcome_is_a_provider_failure() {
    let first = scripted("first", &[ONE_ERROR, ONE_ERROR, ONE_ERROR]);
    let last = Arc::new(ScriptedProvider::new("last").fail(unavailable("last")));
    let outcome = block(Engine::new(first).fallback(last).run(&task()));
    let Outcome::ProviderFailed {
        error,
        best,
        ledger,
    } = &outcome
    else {
        panic!("{outcome:#?}")
    };
    assert_eq!(error.provider, "last");
    assert_eq!(best.as_ref().map(|b| b.attempt), Some(3));
    assert_eq!(ledger.totals.attempts, 3);
}
