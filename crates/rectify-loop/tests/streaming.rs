//! Streaming attempts (issue 40): a doomed answer is stopped at its first field, recorded
//! as the attempt with why, and asked again at once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

use std::sync::{Arc, Mutex};

use rectify_loop::{Engine, StreamEvent, Streaming, Task};
use rectify_provider::openai::{OpenAiConfig, OpenAiProvider};
use rectify_provider::{BROKEN, ErrorKind, FinishReason, STOPPED};
use rectify_stream::{PrefixChecker, PrefixOptions};
use rectify_test::fake_server::{FakeServer, Fault, Reply};
use serde_json::{Value, json};

fn schema() -> Value {
    json!({
        "type": "object",
        "required": ["status", "notes"],
        "properties": {
            "status": {"enum": ["open", "closed"]},
            "notes": {"type": "array", "items": {"type": "string"}}
        }
    })
}

/// An OpenAI event stream of `text` in 3-byte pieces.
fn sse(text: &str) -> Reply {
    let mut out = String::new();
    for piece in text.as_bytes().chunks(3) {
        let piece = String::from_utf8_lossy(piece);
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
        let _ = write!(out, "data: {chunk}\n\n");
    }
    out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    Reply::raw(200, "text/event-stream", out)
}

#[tokio::test]
async fn a_doomed_answer_is_stopped_recorded_and_asked_again() {
    let notes: Vec<String> = (0..200).map(|i| format!("note {i}")).collect();
    let bad = json!({"status": "OPENED!", "notes": notes}).to_string();
    let good = json!({"status": "open", "notes": ["a"]}).to_string();
    let server = FakeServer::start([sse(&bad), sse(&good)]).await.unwrap();
    let provider =
        OpenAiProvider::new(OpenAiConfig::new("m").with_base_url(server.openai_base_url()))
            .unwrap();
    let checker = Arc::new(PrefixChecker::new(&schema(), PrefixOptions::default()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let events = {
        let seen = Arc::clone(&seen);
        Arc::new(move |e: &StreamEvent| seen.lock().unwrap().push(e.clone()))
    };
    let engine = Engine::new(Streaming::new(provider, checker).with_events(events));
    let task = Task::new("status?").schema(schema()).unwrap();
    let outcome = engine.run(&task).await;
    assert!(outcome.is_valid(), "{outcome:?}");
    let attempts = &outcome.ledger().attempts;
    assert_eq!(attempts.len(), 2);
    let first = &attempts[0];
    assert_eq!(first.finish_reason, FinishReason::Other(STOPPED.into()));
    assert!(
        first.raw.len() < 40,
        "stopped late: {} bytes",
        first.raw.len()
    );
    assert!(
        first
            .notices
            .iter()
            .any(|n| n.contains("stopped by rectify") && n.contains("status"))
    );
    assert!(first.feedback.is_some() || attempts[1].feedback.is_some());
    // What had not arrived (the required `notes`) is not a mistake: only why it was stopped
    // is an error, and only that is fed back.
    let errors: Vec<_> = first
        .report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].location.pointer, "/status");
    let feedback = format!("{:?}{:?}", first.feedback, attempts[1].feedback);
    assert!(
        feedback.contains("status") && !feedback.contains("notes"),
        "{feedback}"
    );
    let seen = seen.lock().unwrap();
    assert!(seen.iter().any(|e| matches!(e, StreamEvent::Abort { diagnostics, .. } if diagnostics[0].location.pointer == "/status")));
    assert!(
        seen.iter()
            .any(|e| matches!(e, StreamEvent::Partial(p) if p.complete || p.is_final("/status")))
    );
}

#[tokio::test]
async fn a_valid_answer_is_never_stopped() {
    let notes: Vec<String> = (0..50).map(|i| format!("note {i}")).collect();
    let good = json!({"status": "Closed", "notes": notes}).to_string();
    let server = FakeServer::start([sse(&good)]).await.unwrap();
    let provider =
        OpenAiProvider::new(OpenAiConfig::new("m").with_base_url(server.openai_base_url()))
            .unwrap();
    let checker = Arc::new(PrefixChecker::new(&schema(), PrefixOptions::default()));
    let engine = Engine::new(Streaming::new(provider, checker));
    let task = Task::new("status?").schema(schema()).unwrap();
    let outcome = engine.run(&task).await;
    assert!(outcome.is_valid(), "{outcome:?}");
    assert_eq!(outcome.ledger().attempts.len(), 1);
    assert_eq!(outcome.value().unwrap()["status"], "closed");
}

/// A stream cut mid-way is a transport error (the rung fails, the next one takes over), and
/// what arrived is the attempt's raw text, with why.
#[tokio::test]
async fn a_stream_cut_midway_keeps_what_arrived_in_the_ledger() {
    let notes: Vec<String> = (0..100).map(|i| format!("note {i}")).collect();
    let long = json!({"status": "open", "notes": notes}).to_string();
    let good = json!({"status": "open", "notes": ["a"]}).to_string();
    let cut = FakeServer::start([sse(&long).with_fault(Fault::CutChunkedStream)])
        .await
        .unwrap();
    let whole = FakeServer::start([sse(&good)]).await.unwrap();
    let provider = |server: &FakeServer| {
        // The cut comes after the stream opened: no transport retry.
        let config = OpenAiConfig::new("m").with_base_url(server.openai_base_url());
        OpenAiProvider::new(config).unwrap()
    };
    let checker = Arc::new(PrefixChecker::new(&schema(), PrefixOptions::default()));
    let engine = Engine::new(Streaming::new(provider(&cut), Arc::clone(&checker)))
        .fallback(Streaming::new(provider(&whole), checker));
    let task = Task::new("status?").schema(schema()).unwrap();
    let outcome = engine.run(&task).await;
    assert!(outcome.is_valid(), "{outcome:?}");
    let ledger = outcome.ledger();
    assert_eq!(ledger.attempts.len(), 2);
    let broken = &ledger.attempts[0];
    assert_eq!(broken.finish_reason, FinishReason::Other(BROKEN.into()));
    assert!(
        broken.raw.len() > 20 && long.starts_with(&broken.raw) && broken.raw.len() < long.len(),
        "{}",
        broken.raw
    );
    assert!(!broken.report.valid);
    assert!(
        broken
            .report
            .diagnostics
            .iter()
            .any(|d| d.code == "response.truncated" && d.message.starts_with("the stream broke"))
    );
    assert!(
        broken.notices[0].starts_with(&format!(
            "the stream broke after {} bytes",
            broken.raw.len()
        )),
        "{:?}",
        broken.notices
    );
    assert_eq!(ledger.provider_errors.len(), 1);
    assert!(matches!(
        ledger.provider_errors[0].kind,
        ErrorKind::Truncated { .. }
    ));
    assert_eq!(ledger.attempts[1].number, 2);
}
