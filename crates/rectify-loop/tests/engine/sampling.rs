//! Re-asks sample differently from the failed attempt.

use rectify_loop::Engine;
use rectify_provider::Request;

use crate::*;

fn temperatures(engine: &Engine, template: Request) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    let provider = scripted("p", &[ONE_ERROR, ONE_ERROR, VALID]);
    let engine = Engine::from_arc(provider.clone()).with_config(engine.config().clone());
    let outcome = block(engine.run(&task().request_template(template)));
    let asked = provider.requests().iter().map(|r| r.temperature).collect();
    let recorded = outcome
        .ledger()
        .attempts
        .iter()
        .map(|a| a.temperature)
        .collect();
    (asked, recorded)
}

#[test]
fn re_asks_at_temperature_zero_are_raised_to_the_retry_temperature() {
    let template = Request::default().with_temperature(0.0);
    let (asked, recorded) = temperatures(&Engine::new(scripted("x", &[])), template);
    assert_eq!(asked, [Some(0.0), Some(0.7), Some(0.7)]);
    // The ledger records the temperature each attempt was asked at.
    assert_eq!(recorded, asked);
}

#[test]
fn a_higher_task_temperature_is_kept_and_the_floor_is_configurable() {
    let template = Request::default().with_temperature(0.9);
    let (asked, _) = temperatures(&Engine::new(scripted("x", &[])), template.clone());
    assert_eq!(asked, [Some(0.9), Some(0.9), Some(0.9)]);
    let floor = Engine::new(scripted("x", &[])).retry_temperature(Some(1.0));
    assert_eq!(
        temperatures(&floor, template).0,
        [Some(0.9), Some(1.0), Some(1.0)]
    );
}

#[test]
fn without_a_floor_re_asks_keep_the_task_temperature() {
    let engine = Engine::new(scripted("x", &[])).retry_temperature(None);
    let (asked, _) = temperatures(&engine, Request::default().with_temperature(0.0));
    assert_eq!(asked, [Some(0.0), Some(0.0), Some(0.0)]);
    assert_eq!(
        temperatures(&engine, Request::default()).0,
        [None, None, None]
    );
}
