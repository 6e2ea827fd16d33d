//! The provider fault matrix (issue 15, item 3), one table: each fault served by the fake
//! server (which speaks the real wire format), then a good answer. A transport fault is
//! retried and the good answer wins (two requests); a content fault, or a client error, ends
//! the call at once (one request) with a non-retryable error. Every row asserts the request
//! count, the retries the provider reports, and the class of the outcome.
//!
//! The second table does the same for command agents.
//!
//! `cargo test -p rectify-provider --test fault_matrix -- --nocapture` prints the tables.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{anthropic, openai};
use rectify_provider::retry::RetryPolicy;
use rectify_provider::{Provider, Request};
use rectify_test::fake_server::{FakeServer, Fault, Reply};
use serde_json::json;

/// What the call must come to.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    /// Retried once, then the good answer.
    Transport,
    /// Not retried: the call fails with a non-retryable error.
    Content,
}

/// One row: the backend, the fault, its class.
struct Row {
    name: &'static str,
    anthropic: bool,
    fault: Reply,
    class: Class,
}

fn row(name: &'static str, fault: Reply, class: Class) -> Row {
    Row {
        name,
        anthropic: false,
        fault,
        class,
    }
}

fn rows() -> Vec<Row> {
    use Class::{Content, Transport};
    let html = "<html><body>502 Bad Gateway</body></html>";
    let mut rows = vec![
        row("408 request timeout", Reply::error(408), Transport),
        row("409 conflict", Reply::error(409), Transport),
        row(
            "429 rate limited, Retry-After seconds",
            Reply::rate_limited("1"),
            Transport,
        ),
        row(
            "429 rate limited, Retry-After HTTP date",
            Reply::rate_limited("Wed, 21 Oct 2015 07:28:00 GMT"),
            Transport,
        ),
        row("500 server error", Reply::error(500), Transport),
        row(
            "502 bad gateway (HTML body)",
            Reply::raw(502, "text/html", html),
            Transport,
        ),
        row("503 unavailable", Reply::error(503), Transport),
        row("504 gateway timeout", Reply::error(504), Transport),
        row("400 bad request", Reply::error(400), Content),
        row("401 unauthorised", Reply::error(401), Content),
        row("403 forbidden", Reply::error(403), Content),
        row("404 not found", Reply::error(404), Content),
        row("422 unprocessable", Reply::error(422), Content),
        row(
            "connection closed before any response",
            Reply::openai_text("x").with_fault(Fault::CloseWithoutResponse),
            Transport,
        ),
        row(
            "connection reset during the body",
            Reply::openai_text("x").with_fault(Fault::ResetMidBody),
            Transport,
        ),
        row(
            "body stops half-way (content-length)",
            Reply::openai_text("x").with_fault(Fault::TruncateBody),
            Transport,
        ),
        row(
            "chunked body cut short",
            Reply::openai_text("x").with_fault(Fault::CutChunkedStream),
            Transport,
        ),
        row(
            "no answer within the timeout",
            Reply::openai_text("x").with_fault(Fault::Hang),
            Transport,
        ),
        row(
            "body trickling past the timeout",
            Reply::openai_text("x").with_fault(Fault::Trickle),
            Transport,
        ),
        row(
            "answer later than the timeout",
            Reply::openai_text("x").with_delay(Duration::from_secs(2)),
            Transport,
        ),
        row(
            "200 with an HTML page",
            Reply::raw(200, "text/html", html),
            Content,
        ),
        row(
            "200 with an error object",
            Reply::json(200, &json!({"error": {"message": "model overloaded"}})),
            Content,
        ),
        row(
            "200 with invalid UTF-8",
            Reply::raw(
                200,
                "application/json",
                b"{\"choices\": \"\xff\xfe\"}".to_vec(),
            ),
            Content,
        ),
        row(
            "200 with garbage",
            Reply::raw(200, "application/json", "}{ not json"),
            Content,
        ),
        row(
            "200 with empty choices",
            Reply::json(200, &json!({"choices": []})),
            Content,
        ),
        row(
            "200 with a body past the size limit",
            Reply::raw(200, "application/json", vec![b' '; 1024 * 1024]),
            Content,
        ),
    ];
    for (name, fault, class) in [
        ("anthropic 529 overloaded", Reply::error(529), Transport),
        (
            "anthropic 200 with an error object",
            Reply::json(
                200,
                &json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
            ),
            Content,
        ),
        ("anthropic 400 invalid request", Reply::error(400), Content),
    ] {
        rows.push(Row {
            name,
            anthropic: true,
            fault,
            class,
        });
    }
    rows
}

/// Serves the row's fault, then a good answer; returns (requests, retries, outcome).
async fn serve(row: &Row) -> (usize, u32, Result<String, (bool, String)>) {
    let good = if row.anthropic {
        Reply::anthropic_text("ok")
    } else {
        Reply::openai_text("ok")
    };
    let server = FakeServer::start([row.fault.clone(), good]).await.unwrap();
    let policy = RetryPolicy {
        max_retries: 1,
        ..RetryPolicy::default()
    };
    let provider: Box<dyn Provider> = if row.anthropic {
        Box::new(anthropic(&server, policy).0)
    } else {
        Box::new(openai(&server, policy).0)
    };
    let request = Request::new("x").with_timeout(Duration::from_millis(500));
    let result = provider.complete(&request).await;
    let requests = server.request_count();
    match result {
        Ok(response) => (requests, response.transport_retries, Ok(response.text)),
        Err(e) => (requests, e.retries, Err((e.is_retryable(), e.to_string()))),
    }
}

#[tokio::test]
async fn every_fault_gets_its_class() {
    let mut failures = Vec::new();
    println!("| fault | requests | outcome |\n|---|---|---|");
    for row in rows() {
        let (requests, retries, outcome) = serve(&row).await;
        let ok = match row.class {
            Class::Transport => requests == 2 && retries == 1 && outcome.as_deref() == Ok("ok"),
            Class::Content => requests == 1 && matches!(&outcome, Err((false, _))),
        };
        let shown = match &outcome {
            Ok(text) => format!("retried, then `{text}`"),
            Err((retryable, e)) => format!("error (retryable: {retryable}): {e}"),
        };
        println!("| {} | {requests} | {shown} |", row.name);
        if !ok {
            failures.push(format!(
                "{}: expected {:?}, got {requests} requests, {retries} retries, {shown}",
                row.name, row.class
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A command agent's faults: each script runs once (agents are not retried by default), with a
/// 1 s limit and a 1 MiB stdout limit; `Ok` holds the answer, `Err` the error's text.
async fn agent(script: &str) -> Result<String, String> {
    use rectify_provider::command::{CommandConfig, CommandProvider};
    let mut config = CommandConfig::new("sh", ["-c", script]);
    config.timeout = Duration::from_secs(1);
    config.kill_grace = Duration::from_millis(200);
    config.max_stdout_bytes = 1024 * 1024;
    let provider = CommandProvider::new(config).unwrap();
    // A prompt larger than a pipe's buffer, so an agent that never reads stdin is noticed.
    let prompt = "p".repeat(256 * 1024);
    match provider.complete(&Request::new(prompt)).await {
        Ok(response) => Ok(response.text),
        Err(e) => Err(e.to_string()),
    }
}

#[tokio::test]
async fn every_agent_fault_gets_its_class() {
    let rows: [(&str, &str, Result<&str, &str>); 6] = [
        ("hangs", "cat >/dev/null; sleep 30", Err("timed out")),
        (
            "floods stdout",
            "cat >/dev/null; head -c 5000000 /dev/zero",
            Err("larger than"),
        ),
        (
            "floods stderr, then answers",
            "cat >/dev/null; head -c 5000000 /dev/zero >&2; echo done",
            Ok("done"),
        ),
        ("killed by a signal", "kill -9 $$", Err("signal 9")),
        (
            "closes stdin early, then answers",
            "exec 0<&-; echo early",
            Ok("early"),
        ),
        (
            "exits 3 with a message",
            "cat >/dev/null; echo quota >&2; exit 3",
            Err("quota"),
        ),
    ];
    let mut failures = Vec::new();
    for (name, script, expected) in rows {
        let got = agent(script).await;
        let ok = match (&got, expected) {
            (Ok(text), Ok(want)) => text.trim() == want,
            (Err(e), Err(want)) => e.contains(want),
            _ => false,
        };
        println!("| agent {name} | {got:?} |");
        if !ok {
            failures.push(format!("{name}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
