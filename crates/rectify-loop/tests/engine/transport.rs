//! Transport retries happen inside the provider: a 429 is never an attempt.

use std::sync::Arc;

use rectify_loop::Engine;
use rectify_provider::ApiKey;
use rectify_provider::openai::{OpenAiConfig, OpenAiProvider};
use rectify_provider::retry::{RecordingSleeper, Retrier, RetryPolicy};
use rectify_test::fake_server::{FakeServer, Reply};

use crate::*;

#[test]
fn rate_limits_are_retried_by_the_provider_not_the_loop() {
    block(async {
        let server = FakeServer::start([
            Reply::rate_limited("1"),
            Reply::rate_limited("1"),
            Reply::openai_text(TWO_ERRORS),
            Reply::rate_limited("1"),
            Reply::openai_text(VALID),
        ])
        .await
        .unwrap();
        let config = OpenAiConfig::new("gpt-test")
            .with_base_url(server.openai_base_url())
            .with_api_key(ApiKey::new("sk-test"));
        let sleeper = RecordingSleeper::new();
        let retrier = Retrier::new(RetryPolicy::default()).with_sleeper(Arc::new(sleeper.clone()));
        let provider = OpenAiProvider::new(config).unwrap().with_retrier(retrier);
        let outcome = Engine::new(provider).max_attempts(2).run(&task()).await;
        valid(&outcome);
        let ledger = outcome.ledger();
        assert_eq!(ledger.totals.attempts, 2);
        let retries: Vec<u32> = ledger
            .attempts
            .iter()
            .map(|a| a.transport_retries)
            .collect();
        assert_eq!(retries, vec![2, 1]);
        assert_eq!(ledger.totals.transport_retries, 3);
        assert_eq!(server.request_count(), 5);
        assert_eq!(sleeper.delays().len(), 3);
    });
}
