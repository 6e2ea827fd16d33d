//! Streaming over the real SSE wire formats, against the fake server (issue 40).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

mod common;

use std::ops::ControlFlow;

use common::{anthropic, openai};
use rectify_provider::retry::RetryPolicy;
use rectify_provider::{ErrorKind, FinishReason, Provider, Request, STOPPED, Usage};
use rectify_test::fake_server::{FakeServer, Fault, Reply};
use serde_json::json;

/// An OpenAI event stream for `pieces`, then a finish reason, usage and `[DONE]`.
fn openai_sse(pieces: &[&str]) -> Vec<u8> {
    let mut out = String::new();
    for piece in pieces {
        let chunk =
            json!({"model": "fake-gpt", "choices": [{"index": 0, "delta": {"content": piece}}]});
        let _ = write!(out, "data: {chunk}\n\n");
    }
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let usage = json!({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3}});
    let _ = write!(
        out,
        ": keep-alive\n\ndata: {end}\n\ndata: {usage}\n\ndata: [DONE]\n\n"
    );
    out.into_bytes()
}

/// An Anthropic event stream for `pieces`.
fn anthropic_sse(pieces: &[&str]) -> Vec<u8> {
    let mut events = vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {"model": "fake-claude", "usage": {"input_tokens": 20, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ("ping", json!({"type": "ping"})),
    ];
    for piece in pieces {
        events.push(("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})));
    }
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push(("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 6}})));
    events.push(("message_stop", json!({"type": "message_stop"})));
    let mut out = String::new();
    for (name, data) in events {
        let _ = write!(out, "event: {name}\ndata: {data}\n\n");
    }
    out.into_bytes()
}

fn sse(body: Vec<u8>) -> Reply {
    Reply::raw(200, "text/event-stream", body)
}

/// Streams `request` into a list of pieces.
async fn stream(
    provider: &dyn Provider,
    stop_after: usize,
) -> (
    Vec<String>,
    Result<rectify_provider::Response, rectify_provider::ProviderError>,
) {
    let mut pieces = Vec::new();
    let mut sink = |delta: &str| {
        pieces.push(delta.to_owned());
        if pieces.len() >= stop_after {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let request = Request::from_messages(vec![rectify_provider::Message::user("q")]);
    let result = provider.complete_streaming(&request, &mut sink).await;
    (pieces, result)
}

#[tokio::test]
async fn openai_text_arrives_in_pieces_with_usage_at_the_end() {
    let server = FakeServer::start([sse(openai_sse(&["{\"a\"", ": 1", "}"]))])
        .await
        .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::default());
    assert!(provider.streams());
    let (pieces, response) = stream(&provider, usize::MAX).await;
    let response = response.unwrap();
    assert_eq!(pieces, ["{\"a\"", ": 1", "}"]);
    assert_eq!(response.text, "{\"a\": 1}");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.usage, Usage::new(11, 3));
    assert_eq!(response.model, "fake-gpt");
    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn the_caller_stops_a_stream_and_keeps_what_arrived() {
    let server = FakeServer::start([sse(openai_sse(&["{\"a\"", ": 1", "}"]))])
        .await
        .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::default());
    let (pieces, response) = stream(&provider, 1).await;
    let response = response.unwrap();
    assert_eq!(pieces, ["{\"a\""]);
    assert_eq!(response.text, "{\"a\"");
    assert_eq!(response.finish_reason, FinishReason::Other(STOPPED.into()));
    // Usage comes at the end: what was paid for is counted from the events received.
    assert_eq!(response.usage, Usage::new(0, 1));
}

#[tokio::test]
async fn an_anthropic_stream_stopped_counts_its_input_and_at_least_its_deltas() {
    let server = FakeServer::start([sse(anthropic_sse(&["{\"a\"", ": 1", "}"]))])
        .await
        .unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::default());
    let (pieces, response) = stream(&provider, 2).await;
    let response = response.unwrap();
    assert_eq!(pieces, ["{\"a\"", ": 1"]);
    assert_eq!(response.finish_reason, FinishReason::Other(STOPPED.into()));
    assert_eq!(response.usage, Usage::new(20, 2));
}

#[tokio::test]
async fn a_stream_cut_midway_is_a_transport_error_and_the_sink_keeps_the_text() {
    let server = FakeServer::start([
        sse(openai_sse(&["{\"a\"", ": 1", "}"])).with_fault(Fault::CutChunkedStream)
    ])
    .await
    .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::none());
    let (pieces, response) = stream(&provider, usize::MAX).await;
    let error = response.unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Truncated { .. }), "{error}");
    assert!(error.kind.is_retryable());
    // The fault cuts the body in half: the first events arrived and were handed over, and
    // the error keeps them too.
    assert!(!pieces.is_empty());
    assert_eq!(
        error.received.as_deref().map(String::as_str),
        Some(pieces.concat().as_str())
    );
}

#[tokio::test]
async fn an_error_event_mid_stream_is_a_transport_error() {
    let body = [
        b"data: {\"choices\":[{\"delta\":{\"content\":\"{\"}}]}\n\n".to_vec(),
        b"data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n".to_vec(),
    ]
    .concat();
    let server = FakeServer::start([sse(body)]).await.unwrap();
    let (provider, _) = openai(&server, RetryPolicy::none());
    let (pieces, response) = stream(&provider, usize::MAX).await;
    let error = response.unwrap_err();
    assert!(
        error.to_string().contains("The server had an error"),
        "{error}"
    );
    assert_eq!(pieces, ["{"]);
}

#[tokio::test]
async fn garbage_events_and_a_missing_done_are_errors_not_hangs() {
    let server = FakeServer::start([
        sse(b"data: {not json\n\n".to_vec()),
        sse(b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n".to_vec()),
        sse(b"data: \xff\xfe\n\n".to_vec()),
    ])
    .await
    .unwrap();
    let (provider, _) = openai(&server, RetryPolicy::none());
    let (_, garbage) = stream(&provider, usize::MAX).await;
    assert!(matches!(
        garbage.unwrap_err().kind,
        ErrorKind::InvalidResponse { .. }
    ));
    let (pieces, unended) = stream(&provider, usize::MAX).await;
    assert!(matches!(
        unended.unwrap_err().kind,
        ErrorKind::Truncated { .. }
    ));
    assert_eq!(pieces, ["x"]);
    let (_, bad_bytes) = stream(&provider, usize::MAX).await;
    assert!(matches!(
        bad_bytes.unwrap_err().kind,
        ErrorKind::InvalidResponse { .. }
    ));
}

#[tokio::test]
async fn failures_before_the_stream_are_retried_and_a_whole_json_answer_is_accepted() {
    let server = FakeServer::start([Reply::error(503), Reply::openai_text("{\"b\":2}")])
        .await
        .unwrap();
    let (provider, sleeper) = openai(&server, RetryPolicy::default());
    let (pieces, response) = stream(&provider, usize::MAX).await;
    let response = response.unwrap();
    assert_eq!(response.transport_retries, 1);
    assert_eq!(sleeper.delays().len(), 1);
    assert_eq!(pieces, ["{\"b\":2}"]);
}

#[tokio::test]
async fn anthropic_text_arrives_in_pieces_with_usage() {
    let server = FakeServer::start([sse(anthropic_sse(&["{\"a\"", ": 1}"]))])
        .await
        .unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::default());
    let (pieces, response) = stream(&provider, usize::MAX).await;
    let response = response.unwrap();
    assert_eq!(pieces, ["{\"a\"", ": 1}"]);
    assert_eq!(response.text, "{\"a\": 1}");
    assert_eq!(response.usage, Usage::new(20, 6));
    assert_eq!(response.model, "fake-claude");
    assert_eq!(server.requests()[0].json().unwrap()["stream"], true);
}

#[tokio::test]
async fn anthropic_error_events_are_transport_errors() {
    let body = [
        b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".to_vec(),
        b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".to_vec(),
    ]
    .concat();
    let server = FakeServer::start([sse(body)]).await.unwrap();
    let (provider, _) = anthropic(&server, RetryPolicy::none());
    let (_, response) = stream(&provider, usize::MAX).await;
    let error = response.unwrap_err();
    assert!(error.to_string().contains("Overloaded"), "{error}");
}

#[tokio::test]
async fn a_recording_streams_through_and_records_the_stopped_answer() {
    let server = FakeServer::start([sse(openai_sse(&["{\"a\"", ": 1", "}"]))])
        .await
        .unwrap();
    let (live, _) = openai(&server, RetryPolicy::default());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.json");
    let recorder =
        rectify_provider::replay::RecordingProvider::new(std::sync::Arc::new(live), &path);
    assert!(recorder.streams());
    let (pieces, response) = stream(&recorder, 1).await;
    assert_eq!(pieces, ["{\"a\""]);
    assert_eq!(
        response.unwrap().finish_reason,
        FinishReason::Other(STOPPED.into())
    );
    let cassette = rectify_provider::replay::Cassette::load(&path).unwrap();
    let rectify_provider::replay::Recorded::Response(recorded) = &cassette.interactions[0].result
    else {
        panic!("not a response")
    };
    assert_eq!(recorded.text, "{\"a\"");
    assert_eq!(recorded.finish_reason, FinishReason::Other(STOPPED.into()));
}
