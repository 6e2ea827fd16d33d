//! The Anthropic backend against the fake server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{KEY, anthropic};
use rectify_provider::retry::RetryPolicy;
use rectify_provider::{ErrorKind, FinishReason, Message, Provider, Request, Usage};
use rectify_test::fake_server::{FakeServer, Reply, wire};
use serde_json::json;

#[tokio::test]
async fn sends_a_messages_request_and_reads_the_answer() {
    let server = FakeServer::start([Reply::anthropic_text("{\"a\":1}")])
        .await
        .unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::default());
    let mut request = Request::from_messages(vec![
        Message::system("json only"),
        Message::user("q"),
        Message::assistant("bad"),
        Message::user("fix it"),
    ]);
    request.stop = vec!["END".into()];
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(response.text, "{\"a\":1}");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.usage, Usage::new(10, 5));
    assert_eq!(response.model, "fake-claude");
    assert_eq!(provider.name(), "anthropic:claude-test");

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].path, "/v1/messages");
    assert_eq!(sent[0].header("x-api-key"), Some(KEY));
    assert_eq!(sent[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent[0].header("authorization"), None);
    let body = sent[0].json().unwrap();
    assert_eq!(body["system"], "json only");
    assert_eq!(body["stop_sequences"], json!(["END"]));
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "bad"},
            {"role": "user", "content": "fix it"},
        ])
    );
}

#[tokio::test]
async fn overloaded_529_is_retried() {
    let overloaded = Reply::json(
        529,
        &wire::anthropic_error("overloaded_error", "Overloaded"),
    );
    let server = FakeServer::start([overloaded.clone(), overloaded, Reply::anthropic_text("ok")])
        .await
        .unwrap();
    let (provider, sleeper) = anthropic(&server, RetryPolicy::default());
    let response = provider.complete(&Request::new("x")).await.unwrap();
    assert_eq!(response.transport_retries, 2);
    assert_eq!(server.request_count(), 3);
    assert_eq!(sleeper.delays().len(), 2);
}

#[tokio::test]
async fn invalid_request_400_is_not_retried() {
    let bad = Reply::json(
        400,
        &wire::anthropic_error("invalid_request_error", "max_tokens: too big"),
    );
    let server = FakeServer::start([bad, Reply::anthropic_text("ok")])
        .await
        .unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::default());
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert_eq!(server.request_count(), 1);
    assert!(
        matches!(error.kind, ErrorKind::Http { status: 400, ref body, .. } if body.contains("too big"))
    );
}

#[tokio::test]
async fn max_tokens_and_refusal_are_answers() {
    let cut = Reply::json(200, &wire::anthropic_message("{\"a\":", "max_tokens", 1, 2));
    let refused = Reply::json(200, &wire::anthropic_message("", "refusal", 1, 0));
    let server = FakeServer::start([cut, refused]).await.unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::default());
    let first = provider.complete(&Request::new("x")).await.unwrap();
    assert_eq!(first.finish_reason, FinishReason::Length);
    let second = provider.complete(&Request::new("x")).await.unwrap();
    assert_eq!(second.finish_reason, FinishReason::Refusal);
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn retry_after_ms_is_preferred() {
    let limited = Reply::error(429)
        .with_header("retry-after-ms", "1500")
        .with_header("retry-after", "2");
    let server = FakeServer::start([limited, Reply::anthropic_text("ok")])
        .await
        .unwrap();
    let (provider, sleeper) = anthropic(&server, RetryPolicy::default());
    provider.complete(&Request::new("x")).await.unwrap();
    assert_eq!(
        sleeper.delays(),
        vec![std::time::Duration::from_millis(1500)]
    );
}

#[tokio::test]
async fn an_error_object_with_status_200_is_invalid() {
    let body = wire::anthropic_error("api_error", "oops");
    let server = FakeServer::start([Reply::json(200, &body)]).await.unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::default());
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::InvalidResponse { ref message } if message.contains("oops"))
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn a_missing_key_for_the_anthropic_api_is_a_config_error() {
    let config = rectify_provider::anthropic::AnthropicConfig::new("claude-x");
    let error = rectify_provider::anthropic::AnthropicProvider::new(config).unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Config { .. }));
    assert!(error.to_string().contains("ANTHROPIC_API_KEY"));
}
