//! Recording cassettes from live providers and replaying them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use common::{KEY, openai};
use rectify_provider::command::{CommandConfig, CommandProvider};
use rectify_provider::replay::{Cassette, MatchMode, Recorded, RecordingProvider, ReplayProvider};
use rectify_provider::retry::RetryPolicy;
use rectify_provider::{ApiKey, ErrorKind, Provider, Request};
use rectify_test::fake_server::{FakeServer, Reply};
use serde_json::json;

/// Records two calls (one answer that leaks the key, one 401) against the fake server.
async fn record(path: &std::path::Path) -> (FakeServer, Request, Request) {
    let leaky = Reply::openai_text("{\"seen\": \"{{header:authorization}}\"}").echoing_headers();
    let denied = Reply::json(
        401,
        &json!({"error": {"message": "bad key {{header:authorization}}"}}),
    )
    .echoing_headers();
    let server = FakeServer::start([leaky, denied]).await.unwrap();
    let (live, _) = openai(&server, RetryPolicy::default());
    let recorder = RecordingProvider::new(Arc::new(live), path).redact(&ApiKey::new(KEY));
    let first = Request::new("first").with_schema(json!({"type": "object"}));
    let second = Request::new("second");
    let answer = recorder.complete(&first).await.unwrap();
    // The HTTP transport already redacts its own key from bodies.
    assert!(
        answer.text.contains("Bearer ***") && !answer.text.contains(KEY),
        "{}",
        answer.text
    );
    let error = recorder.complete(&second).await.unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Auth { status: 401, .. }));
    assert_eq!(recorder.name(), "openai:gpt-test");
    (server, first, second)
}

#[tokio::test]
async fn recording_redacts_keys_and_keeps_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.json");
    let (server, first, second) = record(&path).await;
    assert_eq!(server.request_count(), 2);

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(KEY), "{text}");
    assert!(!text.contains("0123456789abcdef"), "{text}");
    let cassette = Cassette::load(&path).unwrap();
    assert_eq!(cassette.provider, "openai:gpt-test");
    assert_eq!(cassette.interactions.len(), 2);
    assert_eq!(cassette.interactions[0].request, first);
    assert_eq!(cassette.interactions[1].request, second);
    let Recorded::Response(response) = &cassette.interactions[0].result else {
        panic!("not a response")
    };
    assert_eq!(response.text, "{\"seen\": \"Bearer ***\"}");
    assert!(
        matches!(&cassette.interactions[1].result, Recorded::Error(e) if e.to_string().contains("bad key Bearer ***"))
    );
}

#[tokio::test]
async fn replay_answers_in_order_and_records_what_it_received() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.json");
    let (_server, first, second) = record(&path).await;

    let replay = ReplayProvider::from_file(&path)
        .unwrap()
        .with_match_mode(MatchMode::Strict);
    assert_eq!(replay.name(), "replay:openai:gpt-test");
    assert!(replay.capabilities().json_schema);
    let answer = replay.complete(&first).await.unwrap();
    assert_eq!(answer.text, "{\"seen\": \"Bearer ***\"}");
    let error = replay.complete(&second).await.unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Auth { status: 401, .. }));
    assert_eq!(replay.received(), vec![first.clone(), second]);
    assert_eq!(replay.remaining(), 0);

    let exhausted = replay.complete(&first).await.unwrap_err();
    assert!(
        matches!(exhausted.kind, ErrorKind::Replay { ref message } if message.contains("only 2"))
    );
}

#[tokio::test]
async fn strict_replay_rejects_a_different_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.json");
    record(&path).await;
    let strict = ReplayProvider::from_file(&path)
        .unwrap()
        .with_match_mode(MatchMode::Strict);
    let error = strict
        .complete(&Request::new("something else"))
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Replay { ref message } if message.contains("messages") && message.contains("schema")),
        "{error}"
    );
    assert_eq!(
        strict.remaining(),
        2,
        "a rejected request does not consume the recording"
    );

    let sequential = ReplayProvider::from_file(&path).unwrap();
    assert!(
        sequential
            .complete(&Request::new("something else"))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn any_provider_can_be_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.json");
    let agent = CommandProvider::new(CommandConfig::new("cat", Vec::<String>::new())).unwrap();
    let secret = ApiKey::new("my-private-token-42");
    let recorder = RecordingProvider::new(Arc::new(agent), &path).redact(&secret);
    let prompt = "token sk-proj-abcdefghijklmnopqrstuv and my-private-token-42";
    let live = recorder.complete(&Request::new(prompt)).await.unwrap();
    assert_eq!(live.text, prompt, "answers pass through unchanged");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("my-private-token-42") && !text.contains("sk-proj"),
        "{text}"
    );
    let cassette = Cassette::load(&path).unwrap();
    assert_eq!(cassette.provider, "command:cat");
    assert_eq!(
        cassette.interactions[0].request.messages[0].content,
        "token *** and ***"
    );
    let replay = ReplayProvider::new(cassette);
    assert_eq!(
        replay.complete(&Request::new("x")).await.unwrap().text,
        "token *** and ***"
    );
}

#[tokio::test]
async fn bad_cassettes_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = ReplayProvider::from_file(&dir.path().join("none.json")).unwrap_err();
    assert!(
        matches!(missing.kind, ErrorKind::Replay { ref message } if message.contains("cannot read"))
    );
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{not json").unwrap();
    let error = ReplayProvider::from_file(&garbage).unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Replay { ref message } if message.contains("not a cassette"))
    );
    // An endless file is refused at the limit, not read into memory.
    let endless = ReplayProvider::from_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(
        matches!(endless.kind, ErrorKind::Replay { ref message } if message.contains("cassette limit")),
        "{endless}"
    );
}
