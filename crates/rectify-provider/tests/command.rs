//! Command-line agents, tested with small shell scripts in a temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::process::{wait_for_pid, wait_until_dead};
use rectify_provider::command::{CommandConfig, CommandProvider, PromptInput};
use rectify_provider::retry::{RecordingSleeper, Retrier, RetryPolicy};
use rectify_provider::{ErrorKind, Message, Provider, Request, Usage};

/// Writes `body` as a script and returns a config that runs it with `sh` (running the file
/// through `sh` avoids "text file busy" races with concurrently forking tests).
fn script(dir: &Path, name: &str, body: &str) -> CommandConfig {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    CommandConfig::new("sh", [path.to_string_lossy().into_owned()])
}

fn provider(config: CommandConfig) -> CommandProvider {
    CommandProvider::new(config).unwrap()
}

#[tokio::test]
async fn the_prompt_goes_to_stdin_and_stdout_is_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let config = script(dir.path(), "echo.sh", "printf 'got: '\ncat\n");
    let request = Request::new("do it").with_system("rules");
    let response = provider(config).complete(&request).await.unwrap();
    assert_eq!(response.text, "got: rules\n\ndo it");
    assert_eq!(response.raw, response.text);
    assert_eq!(response.usage, Usage::default());
}

#[tokio::test]
async fn arguments_are_passed_without_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = script(
        dir.path(),
        "args.sh",
        "for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\nprintf 'stdin=%s' \"$(cat)\"\n",
    );
    config
        .args
        .extend(["-p".into(), "{prompt}".into(), "--model={model}".into()]);
    config.max_turns_args = vec!["--max-turns".into(), "{max_turns}".into()];
    config.model = Some("m1".into());
    let mut request = Request::new("it's $(touch pwned) \"quoted\"");
    request.max_turns = Some(2);
    let provider = provider(config);
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(
        response.text,
        "[-p]\n[it's $(touch pwned) \"quoted\"]\n[--model=m1]\n[--max-turns]\n[2]\nstdin="
    );
    assert!(!Path::new("pwned").exists());
    assert_eq!(provider.name(), "command:sh:m1");
    assert!(provider.capabilities().agent);
}

#[tokio::test]
async fn conversations_are_flattened_into_one_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = script(dir.path(), "cat.sh", "cat\n");
    config.prompt_input = PromptInput::Stdin;
    let request = Request::from_messages(vec![
        Message::user("q"),
        Message::assistant("a"),
        Message::user("fix"),
    ]);
    let response = provider(config).complete(&request).await.unwrap();
    assert_eq!(response.text, "[user]\nq\n\n[assistant]\na\n\n[user]\nfix");
}

#[tokio::test]
async fn a_non_zero_exit_is_an_error_with_the_stderr_tail() {
    let dir = tempfile::tempdir().unwrap();
    let config = script(
        dir.path(),
        "fail.sh",
        "echo partial\necho 'model quota exceeded' >&2\nexit 7\n",
    );
    let error = provider(config)
        .complete(&Request::new("x"))
        .await
        .unwrap_err();
    assert_eq!(
        error.kind,
        ErrorKind::Process {
            exit_code: Some(7),
            signal: None,
            transient: false,
            stderr_tail: "model quota exceeded".into()
        }
    );
    assert!(!error.is_retryable());
    assert!(
        error
            .to_string()
            .contains("exited with code 7: model quota exceeded"),
        "{error}"
    );
}

#[tokio::test]
async fn a_killed_program_reports_the_signal() {
    let dir = tempfile::tempdir().unwrap();
    let config = script(dir.path(), "die.sh", "kill -9 $$\n");
    let error = provider(config)
        .complete(&Request::new("x"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.kind,
            ErrorKind::Process {
                exit_code: None,
                signal: Some(9),
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn megabytes_of_stderr_neither_block_nor_fill_memory() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        "head -c 5000000 /dev/zero | tr '\\0' e >&2\necho ' THE END' >&2\necho answer\nexit 3\n";
    let mut config = script(dir.path(), "noisy.sh", body);
    config.stderr_tail_bytes = 1000;
    let error = provider(config)
        .complete(&Request::new("x"))
        .await
        .unwrap_err();
    let ErrorKind::Process {
        exit_code: Some(3),
        stderr_tail,
        ..
    } = &error.kind
    else {
        panic!("unexpected {error:?}");
    };
    assert!(stderr_tail.len() <= 1000, "{}", stderr_tail.len());
    assert!(stderr_tail.ends_with("eee THE END"), "{stderr_tail}");

    let ok = script(
        dir.path(),
        "noisy_ok.sh",
        "head -c 5000000 /dev/zero | tr '\\0' e >&2\necho answer\n",
    );
    let response = provider(ok).complete(&Request::new("x")).await.unwrap();
    assert_eq!(response.text, "answer\n");
}

#[tokio::test]
async fn a_hanging_program_is_killed_with_its_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file: PathBuf = dir.path().join("child.pid");
    // Ignores SIGTERM (so the SIGKILL escalation is needed) and leaves a background child.
    let body = format!(
        "trap '' TERM\nsleep 300 &\necho $! > '{}'\necho 'working...' >&2\nwait\n",
        pid_file.display()
    );
    let mut config = script(dir.path(), "hang.sh", &body);
    config.timeout = Duration::from_millis(500);
    config.kill_grace = Duration::from_millis(100);
    let error = provider(config)
        .complete(&Request::new("x"))
        .await
        .unwrap_err();
    assert_eq!(
        error.kind,
        ErrorKind::Timeout {
            after: Duration::from_millis(500),
            stderr_tail: Some("working...".into())
        }
    );
    let pid = wait_for_pid(&pid_file).await;
    // The grandchild was reparented; give its reaper a moment (bounded), then it must be gone.
    assert!(
        wait_until_dead(pid).await,
        "background child {pid} survived the group kill"
    );
}

#[tokio::test]
async fn the_request_timeout_overrides_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = script(dir.path(), "slow.sh", "sleep 300\n");
    let request = Request::new("x").with_timeout(Duration::from_millis(200));
    let error = provider(config).complete(&request).await.unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Timeout { after, .. } if after == Duration::from_millis(200))
    );
    assert_eq!(error.retries, 0);
}

#[tokio::test]
async fn transient_exit_codes_are_retried() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("runs.log");
    let body = format!(
        "echo run >> '{log}'\nif [ \"$(wc -l < '{log}')\" -lt 3 ]; then exit 75; fi\necho ok\n",
        log = log.display()
    );
    let mut config = script(dir.path(), "flaky.sh", &body);
    config.transient_exit_codes = vec![75];
    let policy = RetryPolicy {
        max_retries: 3,
        ..RetryPolicy::default()
    };
    let sleeper = RecordingSleeper::new();
    let retrier = Retrier::new(policy).with_sleeper(Arc::new(sleeper.clone()));
    let response = provider(config)
        .with_retrier(retrier)
        .complete(&Request::new("x"))
        .await
        .unwrap();
    assert_eq!(response.text, "ok\n");
    assert_eq!(response.transport_retries, 2);
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 3);
    assert_eq!(sleeper.delays().len(), 2);
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let config = CommandConfig::new("/nonexistent/agent", Vec::<String>::new());
    let error = provider(config)
        .complete(&Request::new("x"))
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Spawn { ref message } if message.contains("not found")),
        "{error}"
    );
    assert!(!error.is_retryable());
}

#[tokio::test]
async fn cwd_and_environment_are_configurable() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let mut config = script(
        dir.path(),
        "env.sh",
        "pwd\necho \"foo=$FOO home=${HOME:-unset}\"\n",
    );
    config.cwd = Some(work.clone());
    config.env = vec![("FOO".into(), "bar".into())];
    config.env_remove = vec!["HOME".into()];
    let response = provider(config).complete(&Request::new("x")).await.unwrap();
    let canonical = work.canonicalize().unwrap();
    assert_eq!(
        response.text,
        format!("{}\nfoo=bar home=unset\n", canonical.display())
    );
}

#[tokio::test]
async fn too_much_stdout_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = script(dir.path(), "big.sh", "head -c 3000000 /dev/zero\n");
    config.max_stdout_bytes = 1024 * 1024;
    let error = provider(config)
        .complete(&Request::new("x"))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::TooLarge { limit: 1024 * 1024 });
}

#[tokio::test]
async fn a_json_envelope_gives_answer_and_usage() {
    let dir = tempfile::tempdir().unwrap();
    let body = r#"echo '{"type":"result","result":"{\"a\":1}","usage":{"input_tokens":3,"output_tokens":4}}'"#;
    let mut config = script(dir.path(), "envelope.sh", body);
    config.answer_pointer = Some("/result".into());
    let response = provider(config.clone())
        .complete(&Request::new("x"))
        .await
        .unwrap();
    assert_eq!(response.text, "{\"a\":1}");
    assert_eq!(response.usage, Usage::new(3, 4));

    // Output that is not the envelope is a content problem: all of stdout is the answer (to
    // be read, repaired or sent back), with a notice for the ledger; not a provider failure.
    config.answer_pointer = Some("/missing".into());
    let response = provider(config.clone())
        .complete(&Request::new("x"))
        .await
        .unwrap();
    assert!(
        response.text.starts_with(r#"{"type":"result""#),
        "{}",
        response.text
    );
    assert!(
        response.notices[0].contains("nothing at `/missing`"),
        "{:?}",
        response.notices
    );
    let mut prose = script(dir.path(), "prose.sh", r#"echo 'Sure! {"a": 2}'"#);
    prose.answer_pointer = Some("/result".into());
    let response = provider(prose).complete(&Request::new("x")).await.unwrap();
    assert_eq!(response.text.trim(), r#"Sure! {"a": 2}"#);
    assert!(
        response.notices[0].contains("not the expected JSON envelope"),
        "{:?}",
        response.notices
    );
}

#[tokio::test]
async fn an_empty_program_is_a_config_error() {
    let error = CommandProvider::new(CommandConfig::default()).unwrap_err();
    assert!(matches!(error.kind, ErrorKind::Config { .. }));
}

#[tokio::test]
async fn a_cancelled_call_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file: PathBuf = dir.path().join("child.pid");
    let body = format!("sleep 300 &\necho $! > '{}'\nwait\n", pid_file.display());
    let config = script(dir.path(), "long.sh", &body);
    let provider = provider(config);
    let request = Request::new("x");
    // The caller gives up (drops the future) once the background child exists, long before
    // the command's own 600 s timeout.
    tokio::select! {
        result = provider.complete(&request) => panic!("the call ended by itself: {result:?}"),
        pid = wait_for_pid(&pid_file) => {
            drop(provider);
            assert!(wait_until_dead(pid).await, "background child {pid} survived the cancelled call");
        }
    }
}

/// A background child that keeps stdout open after the program exits does not hold the call
/// until the timeout: the output is read for `kill_grace` more, then the group is killed and
/// the answer is what the program printed.
#[tokio::test]
async fn a_background_child_holding_stdout_does_not_hold_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file: PathBuf = dir.path().join("child.pid");
    let body = format!(
        "echo '{{\"a\": 1}}'\nsleep 300 &\necho $! > '{}'\n",
        pid_file.display()
    );
    let mut config = script(dir.path(), "leaves_a_child.sh", &body);
    config.timeout = std::time::Duration::from_secs(120);
    config.kill_grace = std::time::Duration::from_millis(200);
    let response = provider(config)
        .complete(&Request::new("x"))
        .await
        .expect("the answer, not a timeout");
    assert_eq!(response.text.trim(), r#"{"a": 1}"#);
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_until_dead(pid).await,
        "the background child {pid} is killed"
    );
}

/// Issue 34, finding 8: a child that left the process group (`setsid`) and holds stdout open
/// cannot be killed with the group; the call still ends with the answer the program printed,
/// `kill_grace` after the group was killed, instead of a timeout.
#[tokio::test]
async fn a_setsid_child_holding_stdout_does_not_hold_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file: PathBuf = dir.path().join("child.pid");
    let body = format!(
        "echo '{{\"a\": 1}}'\nsetsid sh -c 'echo $$ > \"{}\"; exec sleep 30' &\nsleep 0.2\n",
        pid_file.display()
    );
    let mut config = script(dir.path(), "leaves_a_session.sh", &body);
    config.timeout = std::time::Duration::from_secs(20);
    config.kill_grace = std::time::Duration::from_millis(200);
    let response = provider(config)
        .complete(&Request::new("x"))
        .await
        .expect("the answer, not a timeout");
    assert_eq!(response.text.trim(), r#"{"a": 1}"#);
    if let Ok(pid) = std::fs::read_to_string(&pid_file) {
        let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    }
}

/// Issue 34: a key given to an agent through `pass_env` that the agent echoes is not kept in
/// its answer.
#[tokio::test]
async fn a_key_an_agent_echoes_is_redacted_from_its_answer() {
    let Ok(key) = std::env::var("OPENAI_API_KEY") else {
        // The variable is set for this test by the command below when absent.
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "a_key_an_agent_echoes_is_redacted_from_its_answer",
                "--exact",
                "--nocapture",
            ])
            .env("OPENAI_API_KEY", "sk-test-0123456789abcdef")
            .status()
            .unwrap();
        assert!(status.success());
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut config = script(dir.path(), "echo_key.sh", "echo \"key=$OPENAI_API_KEY\"\n");
    config.env_remove.clear();
    let response = provider(config).complete(&Request::new("x")).await.unwrap();
    assert!(!response.text.contains(&key), "{}", response.text);
    assert!(response.text.contains("key=***"), "{}", response.text);
    assert!(!response.raw.contains(&key));
}
