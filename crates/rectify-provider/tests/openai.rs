//! The OpenAI-compatible backend against the fake server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{KEY, openai, openai_with};
use rectify_provider::openai::StructuredOutput;
use rectify_provider::retry::RetryPolicy;
use rectify_provider::{ErrorKind, FinishReason, Provider, Request, Usage};
use rectify_test::fake_server::{FakeServer, Reply};
use serde_json::json;

#[tokio::test]
async fn sends_the_chat_request_and_reads_the_answer() {
    let server = FakeServer::start([Reply::openai_text("{\"a\":1}")])
        .await
        .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::default());
    let request = Request::new("give me json")
        .with_system("you answer in json")
        .with_schema(json!({"type": "object"}))
        .with_max_output_tokens(50)
        .with_temperature(0.0);
    let response = provider.complete(&request).await.unwrap();

    assert_eq!(response.text, "{\"a\":1}");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.usage, Usage::new(10, 5));
    assert_eq!(response.model, "fake-model");
    assert_eq!(response.transport_retries, 0);
    assert!(response.raw.contains("chatcmpl-fake"));
    assert_eq!(provider.name(), "openai:gpt-test");

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (sent[0].method.as_str(), sent[0].path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = sent[0].json().unwrap();
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "you answer in json"})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "give me json"})
    );
    assert_eq!(body["max_tokens"], 50);
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        json!({"type": "object"})
    );
}

#[tokio::test]
async fn json_object_mode_and_off_mode() {
    let server = FakeServer::start([Reply::openai_text("{}"), Reply::openai_text("{}")])
        .await
        .unwrap();
    let schema_request = Request::new("x").with_schema(json!({"type": "object"}));
    let (object_mode, _) = openai_with(&server, RetryPolicy::default(), |mut c| {
        c.structured_output = StructuredOutput::JsonObject;
        c
    });
    object_mode.complete(&schema_request).await.unwrap();
    let (off, _) = openai_with(&server, RetryPolicy::default(), |mut c| {
        c.structured_output = StructuredOutput::Off;
        c
    });
    off.complete(&schema_request).await.unwrap();
    let sent = server.requests();
    assert_eq!(
        sent[0].json().unwrap()["response_format"],
        json!({"type": "json_object"})
    );
    assert!(sent[1].json().unwrap().get("response_format").is_none());
    assert!(!off.capabilities().json_mode);
}

#[tokio::test]
async fn retryable_statuses_are_retried_once_then_succeed() {
    for status in [408, 409, 425, 429, 500, 502, 503, 504, 529] {
        let server = FakeServer::start([Reply::error(status), Reply::openai_text("ok")])
            .await
            .unwrap();
        let (provider, sleeper) = openai(&server, RetryPolicy::default());
        let response = provider.complete(&Request::new("x")).await.unwrap();
        assert_eq!(response.text, "ok", "status {status}");
        assert_eq!(response.transport_retries, 1, "status {status}");
        assert_eq!(server.request_count(), 2, "status {status}");
        assert_eq!(sleeper.delays().len(), 1, "status {status}");
    }
}

#[tokio::test]
async fn fatal_statuses_are_not_retried() {
    for status in [400, 401, 403, 404, 422] {
        let server = FakeServer::start([Reply::error(status), Reply::openai_text("ok")])
            .await
            .unwrap();
        let (provider, sleeper) = openai(&server, RetryPolicy::default());
        let error = provider.complete(&Request::new("x")).await.unwrap_err();
        assert_eq!(server.request_count(), 1, "status {status}");
        assert_eq!(error.retries, 0);
        assert!(sleeper.delays().is_empty());
        assert!(!error.is_retryable());
        match error.kind {
            ErrorKind::Auth { status: s, .. } => assert!(s == 401 || s == 403),
            ErrorKind::Http {
                status: s,
                ref body,
                ..
            } => {
                assert_eq!(s, status);
                assert!(body.contains(&format!("fake error {status}")));
            }
            ref other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn retry_after_seconds_is_obeyed() {
    let server = FakeServer::start([Reply::rate_limited("7"), Reply::openai_text("ok")])
        .await
        .unwrap();
    let (provider, sleeper) = openai(&server, RetryPolicy::default());
    provider.complete(&Request::new("x")).await.unwrap();
    assert_eq!(sleeper.delays(), vec![Duration::from_secs(7)]);
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn retry_after_http_date_is_obeyed() {
    let when = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(30));
    let server = FakeServer::start([Reply::rate_limited(&when), Reply::openai_text("ok")])
        .await
        .unwrap();
    let (provider, sleeper) = openai(&server, RetryPolicy::default());
    provider.complete(&Request::new("x")).await.unwrap();
    let delays = sleeper.delays();
    assert_eq!(delays.len(), 1);
    assert!(
        delays[0] > Duration::from_secs(20) && delays[0] <= Duration::from_secs(30),
        "{delays:?}"
    );
}

#[tokio::test]
async fn retry_after_beyond_the_wait_budget_gives_up() {
    let server = FakeServer::start([Reply::rate_limited("3600"), Reply::openai_text("ok")])
        .await
        .unwrap();
    let (provider, sleeper) = openai(&server, RetryPolicy::default());
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert_eq!(server.request_count(), 1);
    assert!(sleeper.delays().is_empty());
    assert!(
        matches!(error.kind, ErrorKind::Http { status: 429, retry_after: Some(d), .. } if d == Duration::from_secs(3600))
    );
}

#[tokio::test]
async fn the_retry_budget_is_enforced_and_reported() {
    let server = FakeServer::start([]).await.unwrap();
    server.set_fallback(Reply::error(503));
    let policy = RetryPolicy {
        max_retries: 2,
        ..RetryPolicy::default()
    };
    let (provider, sleeper) = openai(&server, policy);
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert_eq!(server.request_count(), 3);
    assert_eq!(error.retries, 2);
    assert_eq!(sleeper.delays().len(), 2);
    assert!(error.to_string().contains("after 2 retries"), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("openai:gpt-test: http status 503"),
        "{error}"
    );
}

#[tokio::test]
async fn backoff_grows_between_retries() {
    let server = FakeServer::start([]).await.unwrap();
    server.set_fallback(Reply::error(500));
    let policy = RetryPolicy {
        max_retries: 3,
        jitter: 0.0,
        ..RetryPolicy::default()
    };
    let (provider, sleeper) = openai(&server, policy);
    provider.complete(&Request::new("x")).await.unwrap_err();
    let expected: Vec<Duration> = [500, 1000, 2000]
        .into_iter()
        .map(Duration::from_millis)
        .collect();
    assert_eq!(sleeper.delays(), expected);
}

#[tokio::test]
async fn finish_reason_length_is_an_answer_not_an_error() {
    let body = rectify_test::fake_server::wire::openai_completion("{\"a\":", "length", 3, 2);
    let server = FakeServer::start([Reply::json(200, &body)]).await.unwrap();
    let (provider, _) = openai(&server, RetryPolicy::default());
    let response = provider.complete(&Request::new("x")).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn the_key_never_appears_in_errors() {
    let echo =
        json!({"error": {"message": "Incorrect API key provided: {{header:authorization}}"}});
    let server = FakeServer::start([Reply::json(401, &echo).echoing_headers()])
        .await
        .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::default());
    let error = provider.complete(&Request::new("x")).await.unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Auth { status: 401, .. }));
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        serde_json::to_string(&error).unwrap(),
    ] {
        assert!(!shown.contains(KEY), "{shown}");
        assert!(
            shown.contains("Incorrect API key provided: Bearer ***"),
            "{shown}"
        );
    }
    assert!(!format!("{provider:?}").contains(KEY));
}

#[tokio::test]
async fn a_missing_key_for_the_openai_api_is_a_config_error() {
    let config = rectify_provider::openai::OpenAiConfig::new("gpt-4o-mini");
    let error = rectify_provider::openai::OpenAiProvider::new(config).unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Config { .. }));
    assert!(error.to_string().contains("OPENAI_API_KEY"));
}

#[tokio::test]
async fn a_rejected_json_schema_falls_back_to_json_object_once_and_for_good() {
    let server = FakeServer::start([
        Reply::llama_cpp_python_rejects_json_schema(),
        Reply::openai_text("{\"a\":1}"),
        Reply::openai_text("{\"a\":2}"),
    ])
    .await
    .unwrap();
    let (provider, sleeper) = openai(&server, RetryPolicy::default());
    assert!(provider.capabilities().json_schema);
    let schema = json!({"type": "object", "required": ["a"]});
    let request = Request::new("give me a").with_schema(schema.clone());

    let first = provider.complete(&request).await.unwrap();
    assert_eq!(first.text, "{\"a\":1}");
    assert_eq!(first.transport_retries, 0);
    assert!(sleeper.delays().is_empty(), "the fallback does not wait");
    assert_eq!(first.notices.len(), 1);
    assert!(
        first.notices[0]
            .starts_with("the server rejected `response_format: json_schema` (http status 500: "),
        "{}",
        first.notices[0]
    );
    assert!(first.notices[0].ends_with("using `json_object` for the rest of the run"));
    assert_eq!(provider.structured_output(), StructuredOutput::JsonObject);
    assert!(!provider.capabilities().json_schema && provider.capabilities().json_mode);

    let second = provider.complete(&request).await.unwrap();
    assert_eq!(second.text, "{\"a\":2}");
    assert!(second.notices.is_empty());

    let sent: Vec<_> = server
        .requests()
        .iter()
        .map(|r| r.json().unwrap())
        .collect();
    assert_eq!(sent.len(), 3, "one rejected request, then one per call");
    assert_eq!(sent[0]["response_format"]["type"], "json_schema");
    assert_eq!(sent[1]["response_format"], json!({"type": "json_object"}));
    assert_eq!(sent[2]["response_format"], json!({"type": "json_object"}));
    // The schema the server would not take moves into the prompt of the fallback request.
    let prompt = sent[1]["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.starts_with("give me a\n\nAnswer with JSON only, matching this JSON Schema:\n"));
    assert!(prompt.contains(&schema.to_string()));
}

#[tokio::test]
async fn a_rejected_json_object_falls_back_to_off_and_then_the_error_stands() {
    let rejects = || {
        Reply::json(
            400,
            &json!({"error": {"message": "unknown field response_format"}}),
        )
    };
    let server = FakeServer::start([rejects(), Reply::openai_text("{}"), Reply::error(400)])
        .await
        .unwrap();
    let (provider, _) = openai_with(&server, RetryPolicy::default(), |mut c| {
        c.structured_output = StructuredOutput::JsonObject;
        c
    });
    let request = Request::new("x").with_schema(json!({"type": "object"}));
    let response = provider.complete(&request).await.unwrap();
    assert!(response.notices[0].contains("`response_format: json_object`"));
    assert!(response.notices[0].ends_with("using `off` for the rest of the run"));
    assert_eq!(provider.structured_output(), StructuredOutput::Off);
    assert!(
        server.requests()[1]
            .json()
            .unwrap()
            .get("response_format")
            .is_none()
    );
    // A 400 that does not name `response_format` is an ordinary fatal error.
    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Http { status: 400, .. }),
        "{error}"
    );
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn a_server_rejecting_response_format_when_none_was_sent_fails_without_retrying() {
    let server = FakeServer::start([Reply::llama_cpp_python_rejects_json_schema()])
        .await
        .unwrap();
    let (provider, sleeper) = openai_with(&server, RetryPolicy::default(), |mut c| {
        c.structured_output = StructuredOutput::Off;
        c
    });
    let error = provider
        .complete(&Request::new("x").with_schema(json!({})))
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Unsupported { status: 500, ref parameter, .. } if parameter == "response_format"),
        "{error}"
    );
    assert_eq!(server.request_count(), 1);
    assert!(sleeper.delays().is_empty());
}
