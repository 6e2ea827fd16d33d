//! Command agents streamed: stdout handed to the sink as the program writes it, tested with
//! small shell scripts that wait for the sink to have seen their first words.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::process::{wait_for_pid, wait_until_dead};
use rectify_provider::command::{CommandConfig, CommandProvider};
use rectify_provider::retry::{RecordingSleeper, Retrier, RetryPolicy};
use rectify_provider::{
    ErrorKind, FinishReason, Provider, ProviderError, Request, Response, STOPPED,
};

/// A config that runs `body` as a script with `sh`, with a time limit far above what the tests
/// take (a test that waited it out would fail on the timeout, not pass slowly).
fn script(dir: &Path, body: &str) -> CommandConfig {
    let path = dir.join("agent.sh");
    std::fs::write(&path, body).unwrap();
    let mut config = CommandConfig::new("sh", [path.to_string_lossy().into_owned()]);
    config.timeout = Duration::from_secs(120);
    config.kill_grace = Duration::from_millis(200);
    config
}

/// Streams one call; the pieces the sink was handed, and the call's result. `on_piece` sees
/// the text so far and says whether to go on.
async fn stream(
    config: CommandConfig,
    mut on_piece: impl FnMut(&str) -> ControlFlow<()> + Send,
) -> (Vec<String>, Result<Response, ProviderError>) {
    stream_with(CommandProvider::new(config).unwrap(), &mut on_piece).await
}

async fn stream_with(
    provider: CommandProvider,
    on_piece: &mut (dyn FnMut(&str) -> ControlFlow<()> + Send),
) -> (Vec<String>, Result<Response, ProviderError>) {
    assert!(provider.streams());
    let mut pieces = Vec::new();
    let mut sink = |piece: &str| {
        pieces.push(piece.to_owned());
        on_piece(&pieces.concat())
    };
    let result = provider
        .complete_streaming(&Request::new("x"), &mut sink)
        .await;
    (pieces, result)
}

/// The program writes its first words, then waits until a file exists; the sink makes the
/// file when it has seen those words. Had the text not been handed over before the program
/// ended, the call would hang until its time limit and fail.
#[tokio::test]
async fn text_reaches_the_sink_while_the_program_runs() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("seen");
    let body = format!(
        "printf 'first '\nwhile [ ! -e '{flag}' ]; do sleep 0.02; done\nprintf 'second'\n",
        flag = flag.display()
    );
    let (pieces, result) = stream(script(dir.path(), &body), |text| {
        if text.contains("first") {
            std::fs::write(&flag, "").unwrap();
        }
        ControlFlow::Continue(())
    })
    .await;
    let response = result.unwrap();
    assert_eq!(response.text, "first second");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(pieces.concat(), response.text);
    assert!(pieces.len() >= 2, "{pieces:?}");
}

/// The sink stops the answer at its first piece: the call returns at once with what arrived,
/// `finish_reason` stopped, and the program's whole group (the script and the `sleep` it
/// waits on) is killed, SIGTERM ignored or not.
#[tokio::test]
async fn a_stop_from_the_sink_kills_the_group_and_keeps_what_arrived() {
    let dir = tempfile::tempdir().unwrap();
    let (shell, child) = (dir.path().join("sh.pid"), dir.path().join("sleep.pid"));
    let body = format!(
        "trap '' TERM\necho $$ > '{shell}'\nsleep 300 &\necho $! > '{child}'\n\
         printf 'partial answer'\nwait\nprintf ' never'\n",
        shell = shell.display(),
        child = child.display()
    );
    let (pieces, result) = stream(script(dir.path(), &body), |_| ControlFlow::Break(())).await;
    let response = result.unwrap();
    assert_eq!(
        response.finish_reason,
        FinishReason::Other(STOPPED.to_owned())
    );
    assert_eq!(pieces.len(), 1);
    assert_eq!(response.text, pieces[0]);
    assert!(
        "partial answer".starts_with(&response.text),
        "{}",
        response.text
    );
    assert_eq!(response.raw, response.text);
    for pid in [wait_for_pid(&shell).await, wait_for_pid(&child).await] {
        assert!(wait_until_dead(pid).await, "{pid} survived the stop");
    }
}

/// Runs `test` in a copy of this test binary with `OPENAI_API_KEY` set to `key` (the key
/// redacted is read from the environment); true when it is the copy.
fn with_key(test: &str, key: &str) -> bool {
    if std::env::var("OPENAI_API_KEY").is_ok_and(|k| k == key) {
        return true;
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture"])
        .env("OPENAI_API_KEY", key)
        .status()
        .unwrap();
    assert!(status.success(), "{test} failed with the key set");
    false
}

/// A key the agent writes in two parts (two writes, a pause between them) and a character
/// split between two writes: the sink never holds any part of the key, and gets the euro
/// sign whole.
#[tokio::test]
async fn a_key_split_between_reads_never_reaches_the_sink() {
    let key = "sk-test-0123456789abcdef";
    if !with_key("a_key_split_between_reads_never_reaches_the_sink", key) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let body = "printf 'key=sk-test-01'\nsleep 0.1\nprintf '23456789abcdef, 5 \\342\\202'\n\
                sleep 0.1\nprintf '\\254 sk-'\nsleep 0.1\nprintf 'tes'\n";
    let expected = "key=***, 5 € sk-tes";
    let mut seen = Vec::new();
    let (pieces, result) = stream(script(dir.path(), body), |text| {
        seen.push(text.to_owned());
        ControlFlow::Continue(())
    })
    .await;
    let response = result.unwrap();
    assert_eq!(response.text, expected);
    assert_eq!(pieces.concat(), expected);
    for text in &seen {
        assert!(expected.starts_with(text.as_str()), "handed over {text:?}");
    }
    assert!(pieces.len() >= 2, "{pieces:?}");
}

fn retrying(config: CommandConfig) -> CommandProvider {
    let policy = RetryPolicy {
        max_retries: 3,
        ..RetryPolicy::default()
    };
    let retrier = Retrier::new(policy).with_sleeper(Arc::new(RecordingSleeper::new()));
    CommandProvider::new(config).unwrap().with_retrier(retrier)
}

/// A transient exit before any text reached the sink is retried as without streaming; the
/// sink sees the answer of the try that succeeded only.
#[tokio::test]
async fn a_transient_exit_before_any_text_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("runs.log");
    let body = format!(
        "echo run >> '{log}'\nif [ \"$(wc -l < '{log}')\" -lt 2 ]; then echo busy >&2; exit 75; fi\nprintf ok\n",
        log = log.display()
    );
    let mut config = script(dir.path(), &body);
    config.transient_exit_codes = vec![75];
    let (pieces, result) =
        stream_with(retrying(config), &mut |_: &str| ControlFlow::Continue(())).await;
    let response = result.unwrap();
    assert_eq!(
        (response.text.as_str(), response.transport_retries),
        ("ok", 1)
    );
    assert_eq!(pieces, ["ok"]);
}

/// A failure after text reached the sink is the same error as without streaming (exit code,
/// stderr's tail), not retried (the sink already holds text), with what arrived as
/// `received`.
#[tokio::test]
async fn a_failure_after_text_is_the_same_error_with_what_arrived() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("runs.log");
    let body = format!(
        "echo run >> '{log}'\nprintf 'partial'\nsleep 0.1\nprintf ' more'\necho 'quota exceeded' >&2\nexit 75\n",
        log = log.display()
    );
    let mut config = script(dir.path(), &body);
    config.transient_exit_codes = vec![75];
    let (pieces, result) =
        stream_with(retrying(config), &mut |_: &str| ControlFlow::Continue(())).await;
    let error = result.unwrap_err();
    assert_eq!(
        error.kind,
        ErrorKind::Process {
            exit_code: Some(75),
            signal: None,
            transient: true,
            stderr_tail: "quota exceeded".into()
        }
    );
    assert_eq!(error.retries, 0);
    assert_eq!(
        error.received.as_deref().map(String::as_str),
        Some("partial more")
    );
    assert_eq!(pieces.concat(), "partial more");
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 1);
}

/// An agent whose answer is in a JSON envelope does not stream: the sink gets the answer
/// whole, once the envelope is complete.
#[tokio::test]
async fn an_answer_in_a_json_envelope_is_handed_over_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = script(dir.path(), "printf '{\"result\": \"hi\"}'\n");
    config.answer_pointer = Some("/result".into());
    let provider = CommandProvider::new(config).unwrap();
    assert!(!provider.streams());
    let mut pieces = Vec::new();
    let mut sink = |piece: &str| {
        pieces.push(piece.to_owned());
        ControlFlow::Continue(())
    };
    let response = provider
        .complete_streaming(&Request::new("x"), &mut sink)
        .await
        .unwrap();
    assert_eq!(response.text, "hi");
    assert_eq!(pieces, ["hi"]);
}
