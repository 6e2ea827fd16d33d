//! Helpers shared by the provider integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "anthropic")]
use rectify_provider::anthropic::{AnthropicConfig, AnthropicProvider};
#[cfg(feature = "openai")]
use rectify_provider::openai::{OpenAiConfig, OpenAiProvider};
use rectify_provider::retry::{RecordingSleeper, Retrier, RetryPolicy};
use rectify_provider::{ApiKey, HttpOptions};
use rectify_test::fake_server::FakeServer;

pub mod process;

/// The key the tests send; it must never show up in errors or cassettes.
pub const KEY: &str = "sk-test-0123456789abcdef";

/// Fast transport options: short timeouts, a small body limit.
pub fn options(policy: RetryPolicy) -> HttpOptions {
    HttpOptions {
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        max_body_bytes: 64 * 1024,
        retry: policy,
    }
}

#[cfg(feature = "openai")]
/// An OpenAI provider for `server` whose retries do not really wait.
pub fn openai(server: &FakeServer, policy: RetryPolicy) -> (OpenAiProvider, RecordingSleeper) {
    openai_with(server, policy, |c| c)
}

#[cfg(feature = "openai")]
/// Like [`openai`], with a chance to adjust the configuration.
pub fn openai_with(
    server: &FakeServer,
    policy: RetryPolicy,
    adjust: impl FnOnce(OpenAiConfig) -> OpenAiConfig,
) -> (OpenAiProvider, RecordingSleeper) {
    let mut config = OpenAiConfig::new("gpt-test")
        .with_base_url(server.openai_base_url())
        .with_api_key(ApiKey::new(KEY));
    config.http = options(policy.clone());
    let sleeper = RecordingSleeper::new();
    let retrier = Retrier::new(policy).with_sleeper(Arc::new(sleeper.clone()));
    let provider = OpenAiProvider::new(adjust(config))
        .unwrap()
        .with_retrier(retrier);
    (provider, sleeper)
}

#[cfg(feature = "anthropic")]
/// An Anthropic provider for `server` whose retries do not really wait.
pub fn anthropic(
    server: &FakeServer,
    policy: RetryPolicy,
) -> (AnthropicProvider, RecordingSleeper) {
    let mut config = AnthropicConfig::new("claude-test")
        .with_base_url(server.url())
        .with_api_key(ApiKey::new(KEY));
    config.http = options(policy.clone());
    let sleeper = RecordingSleeper::new();
    let retrier = Retrier::new(policy).with_sleeper(Arc::new(sleeper.clone()));
    let provider = AnthropicProvider::new(config)
        .unwrap()
        .with_retrier(retrier);
    (provider, sleeper)
}
