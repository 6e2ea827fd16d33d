//! Transport faults and bad bodies: which are retried, which are not, counted at the server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::openai;
use rectify_provider::retry::RetryPolicy;
use rectify_provider::{ErrorKind, Provider, Request};
use rectify_test::fake_server::{FakeServer, Fault, Reply};
use serde_json::json;

/// Serves `first`, then a good answer; asserts the provider retried once and succeeded.
async fn retried_once(first: Reply) -> ErrorKind {
    let server = FakeServer::start([first.clone(), Reply::openai_text("ok")])
        .await
        .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::default());
    let response = provider
        .complete(&Request::new("x").with_timeout(Duration::from_millis(300)))
        .await
        .unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(response.transport_retries, 1);
    assert_eq!(server.request_count(), 2);
    // The same fault with retries disabled shows how it was classified.
    let server = FakeServer::start([first]).await.unwrap();
    let (provider, _) = openai(&server, RetryPolicy::none());
    let error = provider
        .complete(&Request::new("x").with_timeout(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert_eq!(server.request_count(), 1);
    assert!(error.is_retryable(), "{error}");
    error.kind
}

/// Serves `reply` once; asserts the provider fails at once without retrying.
async fn not_retried(reply: Reply) -> ErrorKind {
    let server = FakeServer::start([reply, Reply::openai_text("ok")])
        .await
        .unwrap();
    let (provider, sleeper) = openai(&server, RetryPolicy::default());
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert_eq!(server.request_count(), 1);
    assert_eq!(error.retries, 0);
    assert!(sleeper.delays().is_empty());
    error.kind
}

#[tokio::test]
async fn a_hanging_server_times_out_and_is_retried() {
    let kind = retried_once(Reply::openai_text("late").with_fault(Fault::Hang)).await;
    assert!(
        matches!(kind, ErrorKind::Timeout { after, .. } if after == Duration::from_millis(300)),
        "{kind:?}"
    );
}

#[tokio::test]
async fn a_slow_answer_beyond_the_timeout_is_retried() {
    let kind = retried_once(Reply::openai_text("late").with_delay(Duration::from_secs(10))).await;
    assert!(matches!(kind, ErrorKind::Timeout { .. }), "{kind:?}");
}

#[tokio::test]
async fn a_reset_mid_body_is_retried() {
    let kind =
        retried_once(Reply::openai_text("x".repeat(4000).as_str()).with_fault(Fault::ResetMidBody))
            .await;
    assert!(
        matches!(
            kind,
            ErrorKind::Truncated { .. } | ErrorKind::Connection { .. }
        ),
        "{kind:?}"
    );
}

#[tokio::test]
async fn a_truncated_body_is_retried() {
    let kind = retried_once(Reply::openai_text("abc").with_fault(Fault::TruncateBody)).await;
    assert!(matches!(kind, ErrorKind::Truncated { .. }), "{kind:?}");
}

#[tokio::test]
async fn a_stream_cut_short_is_retried() {
    let kind = retried_once(Reply::openai_text("abc").with_fault(Fault::CutChunkedStream)).await;
    assert!(matches!(kind, ErrorKind::Truncated { .. }), "{kind:?}");
}

#[tokio::test]
async fn a_connection_closed_without_response_is_retried() {
    let kind = retried_once(Reply::openai_text("x").with_fault(Fault::CloseWithoutResponse)).await;
    assert!(matches!(kind, ErrorKind::Connection { .. }), "{kind:?}");
}

#[tokio::test]
async fn connection_refused_is_retried_until_the_budget_ends() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut config =
        rectify_provider::openai::OpenAiConfig::new("m").with_base_url(format!("http://{addr}/v1"));
    config.http = common::options(RetryPolicy {
        max_retries: 2,
        ..RetryPolicy::default()
    });
    let sleeper = rectify_provider::retry::RecordingSleeper::new();
    let retrier = rectify_provider::retry::Retrier::new(config.http.retry.clone())
        .with_sleeper(std::sync::Arc::new(sleeper.clone()));
    let provider = rectify_provider::openai::OpenAiProvider::new(config)
        .unwrap()
        .with_retrier(retrier);
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Connection { .. }),
        "{error}"
    );
    assert_eq!((error.retries, sleeper.delays().len()), (2, 2));
}

#[tokio::test]
async fn an_invalid_json_body_is_not_retried() {
    let kind = not_retried(Reply::raw(200, "application/json", "{\"choices\": [")).await;
    assert!(
        matches!(kind, ErrorKind::InvalidResponse { ref message } if message.contains("not JSON")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn garbage_is_not_retried() {
    let kind = not_retried(Reply::raw(200, "application/json", "\u{0}\u{1}garbage")).await;
    assert!(
        matches!(kind, ErrorKind::InvalidResponse { .. }),
        "{kind:?}"
    );
}

#[tokio::test]
async fn a_wrong_content_type_is_not_retried() {
    let kind = not_retried(Reply::raw(200, "text/html", "<html>proxy login</html>")).await;
    assert!(
        matches!(kind, ErrorKind::InvalidResponse { ref message } if message.contains("text/html")),
        "{kind:?}"
    );
    let kind = not_retried(Reply::openai_text("ok").without_header("content-type")).await;
    assert!(
        matches!(kind, ErrorKind::InvalidResponse { ref message } if message.contains("none")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn empty_choices_are_not_retried() {
    let kind = not_retried(Reply::json(200, &json!({"choices": [], "usage": {}}))).await;
    assert!(
        matches!(kind, ErrorKind::InvalidResponse { ref message } if message.contains("empty")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn a_huge_body_is_refused_without_reading_it_all() {
    // The tests' body limit is 64 KiB; this body is 1 MiB.
    let kind = not_retried(Reply::openai_text(&"x".repeat(1024 * 1024))).await;
    assert_eq!(kind, ErrorKind::TooLarge { limit: 64 * 1024 });
}

#[tokio::test]
async fn a_huge_chunked_body_is_cut_at_the_limit() {
    // No content-length: the limit is enforced while reading.
    let reply = Reply::openai_text(&"x".repeat(1024 * 1024)).with_fault(Fault::CutChunkedStream);
    let kind = not_retried(reply).await;
    assert_eq!(kind, ErrorKind::TooLarge { limit: 64 * 1024 });
}

#[tokio::test]
async fn a_huge_error_body_is_cut_short_in_the_error() {
    let huge = Reply::raw(500, "text/plain", "e".repeat(1024 * 1024));
    let server = FakeServer::start([huge]).await.unwrap();
    let (provider, _) = openai(&server, RetryPolicy::none());
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    let ErrorKind::Http {
        status: 500, body, ..
    } = &error.kind
    else {
        panic!("unexpected {error:?}");
    };
    assert!(body.len() <= 2_000 + '…'.len_utf8(), "{}", body.len());
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn tls_is_set_up_with_ring_and_a_failed_handshake_is_a_connection_error() {
    // A server that answers plain HTTP at once: the TLS handshake fails without any network.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        while let Ok((mut stream, _)) = listener.accept().await {
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
        }
    });
    let mut config = rectify_provider::openai::OpenAiConfig::new("m")
        .with_base_url(format!("https://{addr}/v1"))
        .with_api_key(rectify_provider::ApiKey::new(common::KEY));
    config.http = common::options(RetryPolicy::none());
    let provider = rectify_provider::openai::OpenAiProvider::new(config).unwrap();
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Connection { .. }),
        "{error}"
    );
    assert!(error.is_retryable());
}
