//! Budgets stop the run before an attempt that would cross them, and say which.

use std::time::Duration;

use rectify_loop::{Budget, Engine, Limit, Outcome};
use rectify_provider::{FinishReason, ModelPrice, Pricing, Usage};
use rectify_test::scripted::ScriptedProvider;

use crate::*;

fn exhausted_limit(outcome: &Outcome) -> &Limit {
    match outcome {
        Outcome::Exhausted { limit, .. } => limit,
        other => panic!("expected exhaustion, got {other:#?}"),
    }
}

#[test]
fn token_budget() {
    let provider = Arc::new(
        ScriptedProvider::new("p")
            .with_usage(Usage::new(60, 40))
            .text(TWO_ERRORS)
            .text(ONE_ERROR)
            .text(VALID),
    );
    let engine = Engine::new(provider.clone())
        .max_attempts(5)
        .budget(Budget::default().with_max_tokens(250));
    let outcome = block(engine.run(&task()));
    assert_eq!(
        exhausted_limit(&outcome),
        &Limit::Tokens {
            used: 200,
            estimate: 100,
            max: 250
        }
    );
    assert_eq!(provider.calls(), 2);
    let Outcome::Exhausted {
        escalation, best, ..
    } = &outcome
    else {
        unreachable!()
    };
    assert_eq!(best.as_ref().unwrap().attempt, 2);
    assert_eq!(
        escalation.reason,
        "token budget of 250 reached (200 used, the next attempt needs about 100)"
    );
}

#[test]
fn cost_budget_uses_the_price_table() {
    let provider = Arc::new(
        ScriptedProvider::new("p")
            .with_model("pricey-1")
            .with_usage(Usage::new(1_000_000, 0))
            .text(TWO_ERRORS)
            .text(VALID),
    );
    let mut pricing = Pricing::new();
    pricing.insert("pricey", ModelPrice::new(2.0, 8.0));
    let engine = Engine::new(provider.clone())
        .pricing(pricing)
        .budget(Budget::default().with_max_cost(3.0));
    let outcome = block(engine.run(&task()));
    assert!(matches!(
        exhausted_limit(&outcome),
        Limit::Cost { spent, .. } if (*spent - 2.0).abs() < 1e-9
    ));
    assert_eq!(provider.calls(), 1);
    assert_eq!(outcome.ledger().attempts[0].cost, Some(2.0));
    assert_eq!(outcome.ledger().totals.cost, Some(2.0));
}

#[test]
fn deadline_uses_the_slowest_attempt_as_the_estimate() {
    let slow = ScriptedProvider::new("p");
    let mut response = slow.response(TWO_ERRORS, FinishReason::Stop);
    response.latency = Duration::from_secs(3600);
    let provider = Arc::new(slow.respond(response).text(VALID));
    let engine = Engine::new(provider.clone())
        .budget(Budget::default().with_max_duration(Duration::from_secs(60)));
    let outcome = block(engine.run(&task()));
    assert!(matches!(exhausted_limit(&outcome), Limit::Deadline { .. }));
    assert_eq!(provider.calls(), 1);
    let request = &provider.requests()[0];
    assert!(
        request
            .timeout
            .is_some_and(|t| t <= Duration::from_secs(60))
    );
}

#[test]
fn a_spent_budget_stops_before_the_first_attempt() {
    let provider = scripted("p", &[VALID]);
    let engine = Engine::new(provider.clone()).budget(Budget::default().with_max_tokens(0));
    let outcome = block(engine.run(&task()));
    let Outcome::Exhausted { best, limit, .. } = &outcome else {
        panic!("{outcome:#?}")
    };
    assert!(best.is_none());
    assert!(matches!(limit, Limit::Tokens { used: 0, .. }));
    assert_eq!(provider.calls(), 0);
}
