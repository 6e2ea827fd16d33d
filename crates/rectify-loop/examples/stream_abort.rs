//! Benchmark (issue 40): tokens paid and time to a valid answer, with and without streaming,
//! when the first answer goes wrong in its first field.
//!
//! A local server speaks OpenAI's SSE format, one token (a few characters) per event every
//! `TOKEN_MS` ms, on one clock for both paths: token `i` is ready `i * TOKEN_MS` after the
//! request, and a non-streamed answer is sent whole when its last token is ready. The first answer of every run has a wrong enum value in its first field,
//! then ~2,000 tokens; the second is valid. Without streaming the loop pays for the whole
//! first answer; with [`Streaming`] it stops it at the first field and asks again.
//!
//! With `rule` as the second argument the answer is a plan of ~2,000 tokens of tasks, and the
//! first answer's third task names a phase the rules file's plan document does not have
//! (`each: $.tasks[*].phase`, `in: plan:$.phases[*]`): a rule error on a completed array item.
//!
//! `cargo run --release -p rectify-loop --example stream_abort [runs] [enum|rule]`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rectify_check::{Checker, RuleSet};
use rectify_loop::{Engine, LoopConfig, Task};
use rectify_provider::openai::{OpenAiConfig, OpenAiProvider};
use rectify_stream::{PrefixChecker, PrefixOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TOKEN_MS: u64 = 1;
const TOKENS: usize = 2_000;

/// What goes wrong in the first answer.
#[derive(Clone, Copy, PartialEq)]
enum Scenario {
    /// A wrong enum value in the first field.
    Enum,
    /// The third item of a list names a phase another document does not have.
    Rule,
}

fn schema(scenario: Scenario) -> Value {
    match scenario {
        Scenario::Enum => json!({
            "type": "object",
            "required": ["status", "notes"],
            "properties": {
                "status": {"enum": ["open", "closed"]},
                "notes": {"type": "array", "items": {"type": "string"}}
            }
        }),
        Scenario::Rule => json!({
            "type": "object",
            "required": ["goal", "tasks"],
            "properties": {
                "goal": {"type": "string"},
                "tasks": {"type": "array", "items": {
                    "type": "object",
                    "required": ["id", "phase"],
                    "properties": {"id": {"type": "string"}, "phase": {"type": "string"}}
                }}
            }
        }),
    }
}

/// The rules of [`Scenario::Rule`], with the plan document they refer to.
fn rules() -> Checker {
    let rules = RuleSet::from_value(
        &json!({"rules": [{"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*]"}]}),
        None,
    )
    .unwrap();
    let plan = rectify_core::Document::from_value(json!({"phases": ["design", "build"]}));
    Checker::builder()
        .rules(rules)
        .reference("plan", plan)
        .build()
        .unwrap()
}

/// The answer's tokens, cut in ~4-byte pieces, about `TOKENS` of them: `{"status": ...,
/// "notes": [...]}` or `{"goal": ..., "tasks": [...]}`.
fn tokens(scenario: Scenario, bad: bool) -> Vec<String> {
    let text = match scenario {
        Scenario::Enum => {
            let notes: Vec<String> = (0..TOKENS / 3).map(|i| format!("n{i}")).collect();
            let status = if bad { "OPENED!" } else { "open" };
            json!({"status": status, "notes": notes}).to_string()
        }
        Scenario::Rule => {
            let tasks: Vec<Value> = (0..TOKENS / 8)
                .map(|i| {
                    let phase = if bad && i == 2 { "ship" } else { "build" };
                    json!({"id": format!("t{i}"), "phase": phase})
                })
                .collect();
            json!({"goal": "release", "tasks": tasks}).to_string()
        }
    };
    text.as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

/// Serves answers in turn (bad, good, bad, good, ...), counting tokens sent.
async fn serve(listener: TcpListener, sent: Arc<AtomicU64>, scenario: Scenario) {
    let mut turn = 0u64;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let bad = turn.is_multiple_of(2);
        turn += 1;
        tokio::spawn(answer(stream, tokens(scenario, bad), Arc::clone(&sent)));
    }
}

async fn answer(mut stream: TcpStream, tokens: Vec<String>, sent: Arc<AtomicU64>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).await.unwrap_or(0);
        head.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&head);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if head.len() >= end + 4 + length {
                break;
            }
        }
        if n == 0 {
            return;
        }
    }
    if !String::from_utf8_lossy(&head).contains("\"stream\":true") {
        return whole(stream, tokens, sent).await;
    }
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let count = tokens.len();
    let start = tokio::time::Instant::now();
    for (i, token) in tokens.into_iter().enumerate() {
        // Token i is ready at its slot on one clock (no drift from per-token timers): the
        // last one at `count * TOKEN_MS`, when `whole` sends its body.
        tokio::time::sleep_until(start + slot(i + 1)).await;
        let event = format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": token}}]})
        );
        if chunk(&mut stream, &event).await.is_err() {
            return; // the client stopped reading: no more tokens are paid
        }
        sent.fetch_add(1, Ordering::Relaxed);
    }
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 50, "completion_tokens": count}});
    let _ = chunk(&mut stream, &format!("data: {end}\n\ndata: [DONE]\n\n")).await;
    let _ = stream.write_all(b"0\r\n\r\n").await;
}

/// A non-streamed answer: generated at the same pace, all tokens paid, sent as one body.
async fn whole(mut stream: TcpStream, tokens: Vec<String>, sent: Arc<AtomicU64>) {
    let count = tokens.len();
    tokio::time::sleep(slot(count)).await;
    sent.fetch_add(count as u64, Ordering::Relaxed);
    let body = json!({"model": "scripted", "choices": [{"index": 0, "message": {"role": "assistant", "content": tokens.concat()}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 50, "completion_tokens": count}}).to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body.as_bytes()).await;
}

/// When the `n`th token of an answer is ready, from the request.
fn slot(n: usize) -> Duration {
    Duration::from_millis(TOKEN_MS * n as u64)
}

async fn chunk(stream: &mut TcpStream, data: &str) -> std::io::Result<()> {
    stream
        .write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
        .await?;
    stream.flush().await
}

async fn run(streaming: bool, runs: usize, scenario: Scenario) -> (u64, Duration, usize) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicU64::new(0));
    tokio::spawn(serve(listener, Arc::clone(&sent), scenario));
    let provider = OpenAiProvider::new(OpenAiConfig::new("scripted").with_base_url(url)).unwrap();
    let rules = Arc::new(rules());
    let engine = Engine::new(provider).with_config(LoopConfig::default());
    let mut task = Task::new("Answer as JSON.")
        .schema(schema(scenario))
        .unwrap();
    let mut checker = PrefixChecker::new(&schema(scenario), PrefixOptions::default());
    if scenario == Scenario::Rule {
        task = task.checker(Arc::clone(&rules));
        checker = checker.with_rules(&rules);
    }
    let engine = if streaming {
        engine.streaming(&Arc::new(checker), None)
    } else {
        engine
    };
    let start = Instant::now();
    let mut valid = 0;
    for _ in 0..runs {
        if engine.run(&task).await.is_valid() {
            valid += 1;
        }
    }
    // Let a server task notice a closed connection before counting.
    tokio::time::sleep(Duration::from_millis(50)).await;
    (sent.load(Ordering::Relaxed), start.elapsed(), valid)
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let scenario = match std::env::args().nth(2).as_deref() {
        Some("rule") => Scenario::Rule,
        _ => Scenario::Enum,
    };
    let (tokens_plain, time_plain, valid_plain) = run(false, runs, scenario).await;
    let (tokens_stream, time_stream, valid_stream) = run(true, runs, scenario).await;
    let per = |t: u64, v: usize| t as f64 / v.max(1) as f64;
    println!(
        "runs: {runs}, tokens per answer: ~{}",
        tokens(scenario, false).len()
    );
    println!(
        "without streaming: {valid_plain} valid, {:.0} output tokens per valid answer, {:.2} s per valid answer",
        per(tokens_plain, valid_plain),
        time_plain.as_secs_f64() / valid_plain.max(1) as f64
    );
    println!(
        "with streaming:    {valid_stream} valid, {:.0} output tokens per valid answer, {:.2} s per valid answer",
        per(tokens_stream, valid_stream),
        time_stream.as_secs_f64() / valid_stream.max(1) as f64
    );
    println!(
        "tokens saved: {:.1}%, time ratio (stream/plain): {:.2}",
        100.0 * (1.0 - per(tokens_stream, valid_stream) / per(tokens_plain, valid_plain)),
        time_stream.as_secs_f64() / time_plain.as_secs_f64()
    );
}
