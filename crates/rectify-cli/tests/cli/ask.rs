//! `rectify ask` against the fake OpenAI-compatible server.

use assert_cmd::Command;
use rectify_test::fake_server::{FakeServer, Reply};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

use crate::support::{self, Run};

pub(crate) const VALID: &str = r#"{"name": "rectify", "tags": ["rust"]}"#;
pub(crate) const INVALID: &str = r#"{"name": "rectify", "tags": []}"#;
const HEADER: &str = "Your previous answer did not pass validation. Fix these problems and answer again with the complete corrected JSON only:";

/// A fake server (served by its own runtime's worker threads) and a directory with a schema.
pub(crate) struct Setup {
    server: FakeServer,
    dir: tempfile::TempDir,
    // Dropped last: it serves the server's connections.
    _runtime: Runtime,
}

impl Setup {
    pub(crate) fn new(replies: Vec<Reply>) -> Setup {
        let runtime = Runtime::new().unwrap();
        let server = runtime.block_on(FakeServer::start(replies)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let schema = json!({
            "type": "object",
            "required": ["name", "tags"],
            "properties": {
                "name": {"type": "string"},
                "tags": {"type": "array", "minItems": 1, "items": {"type": "string"}}
            }
        });
        std::fs::write(dir.path().join("schema.json"), schema.to_string()).unwrap();
        Setup {
            server,
            dir,
            _runtime: runtime,
        }
    }

    pub(crate) fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// `rectify ask` configured for the fake server through the environment.
    pub(crate) fn ask(&self, args: &[&str]) -> Command {
        let mut cmd = bare();
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", self.server.openai_base_url())
            .args([
                "ask",
                "Describe the project.",
                "--schema",
                &self.path("schema.json"),
            ])
            .args(args);
        cmd
    }

    /// The chat messages of the `n`th request the server received.
    fn messages(&self, n: usize) -> Vec<(String, String)> {
        let body = self.server.requests()[n].json().unwrap();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap().to_owned(),
                    m["content"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }
}

/// `rectify` without any provider variables from the caller's environment.
pub(crate) fn bare() -> Command {
    let mut cmd = support::rectify();
    for var in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "RECTIFY_PROVIDER",
        "RECTIFY_MODEL",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

pub(crate) fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn prints_the_valid_json_on_stdout() {
    let setup = Setup::new(vec![Reply::openai_text(&format!("```json\n{VALID}\n```"))]);
    let out = run(&mut setup.ask(&[]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let value: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value, json!({"name": "rectify", "tags": ["rust"]}));
    let body = setup.server.requests()[0].json().unwrap();
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(
        setup.messages(0),
        vec![("user".to_owned(), "Describe the project.".to_owned())]
    );
}

#[test]
fn the_token_budget_is_sent_with_every_request() {
    let setup = Setup::new(vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)]);
    let out = run(&mut setup.ask(&["--max-output-tokens", "77"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    for request in setup.server.requests() {
        let body = request.json().unwrap();
        assert_eq!(body["max_tokens"], 77, "{body}");
    }
}

#[test]
fn feeds_problems_back_and_retries() {
    let setup = Setup::new(vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)]);
    let out = run(&mut setup.ask(&["--system", "Be brief.", "--model", "m-1"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(setup.server.request_count(), 2);
    let feedback = format!("{HEADER}\n- tags: expected at least 1 item, got 0 (got [])");
    assert_eq!(
        setup.messages(1),
        vec![
            ("system".to_owned(), "Be brief.".to_owned()),
            ("user".to_owned(), "Describe the project.".to_owned()),
            ("assistant".to_owned(), INVALID.to_owned()),
            ("user".to_owned(), feedback),
        ]
    );
    assert_eq!(setup.server.requests()[1].json().unwrap()["model"], "m-1");
}

#[test]
fn re_asks_sample_at_the_retry_temperature() {
    let bodies = |extra: &[&str]| {
        let setup = Setup::new(vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)]);
        let out = run(&mut setup.ask(extra));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let requests = setup.server.requests();
        let temperature = |i: usize| requests[i].json().unwrap().get("temperature").cloned();
        (temperature(0), temperature(1))
    };
    assert_eq!(bodies(&[]), (None, Some(serde_json::json!(0.7))));
    let raised = bodies(&["--retry-temperature", "1.2"]);
    assert_eq!(raised, (None, Some(serde_json::json!(1.2))));
    assert_eq!(bodies(&["--retry-temperature", "keep"]), (None, None));
}

#[test]
fn prefix_feedback_is_one_message() {
    let setup = Setup::new(vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)]);
    let out = run(&mut setup.ask(&["--feedback", "prefix"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = format!(
        "## PREVIOUS VALIDATION FAILED\n\n{HEADER}\n- tags: expected at least 1 item, got 0 (got [])\n\nDescribe the project."
    );
    assert_eq!(setup.messages(1), vec![("user".to_owned(), expected)]);
}

#[test]
fn exhaustion_exits_3_with_the_errors_on_stderr() {
    let setup = Setup::new(vec![
        Reply::openai_text("no JSON here"),
        Reply::openai_text(INVALID),
    ]);
    let out = run(&mut setup.ask(&["--max-attempts", "2"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr
            .contains("error: no valid answer after 2 attempts"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("the best answer (attempt 2)"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("schema.min_items"), "{}", out.stderr);
}

#[test]
fn json_output_is_the_whole_outcome() {
    let setup = Setup::new(vec![
        Reply::openai_text("no JSON here"),
        Reply::openai_text(INVALID),
    ]);
    let out = run(&mut setup.ask(&["--max-attempts", "2", "--output", "json"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome["status"], "exhausted");
    assert_eq!(outcome["best_attempt"], 2);
    assert_eq!(outcome["value"], json!({"name": "rectify", "tags": []}));
    // The same diagnostic shape as `rectify check`: location fields flattened.
    assert_eq!(outcome["diagnostics"][0]["path"], "tags");
    assert_eq!(outcome["diagnostics"][0]["pointer"], "/tags");
    assert_eq!(outcome["limit"], json!({"kind": "attempts", "made": 2}));
    assert_eq!(outcome["message"], "no valid answer after 2 attempts");
    let attempts = outcome["attempts"].as_array().unwrap();
    assert_eq!(attempts[0]["raw"], "no JSON here");
    assert_eq!(attempts[0]["valid"], false);
    assert_eq!(attempts[0]["diagnostics"][0]["code"], "extract.no_payload");
    assert_eq!(attempts[0]["finish_reason"], "stop");
    assert!(attempts[0]["feedback"].as_str().is_some());
    assert_eq!(outcome["totals"]["attempts"], 2);
    assert_eq!(outcome["totals"]["input_tokens"], 20);
    assert!(
        out.stderr
            .contains("error: no valid answer after 2 attempts")
    );
}

#[test]
fn rate_limits_are_not_attempts() {
    let setup = Setup::new(vec![Reply::rate_limited("0"), Reply::openai_text(VALID)]);
    let out = run(&mut setup.ask(&["--max-attempts", "1", "--output", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome["status"], "valid");
    assert_eq!(outcome["totals"]["attempts"], 1);
    assert_eq!(outcome["attempts"][0]["transport_retries"], 1);
    assert_eq!(outcome["value"]["name"], "rectify");
    assert_eq!(setup.server.request_count(), 2);
}

#[test]
fn provider_errors_exit_4() {
    let setup = Setup::new(vec![Reply::error(401)]);
    let out = run(&mut setup.ask(&[]));
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("authentication failed (http status 401)"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("sk-test"),
        "the key leaked: {}",
        out.stderr
    );
}

#[test]
fn the_trace_file_has_every_attempt() {
    let setup = Setup::new(vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)]);
    let trace = setup.path("trace.jsonl");
    let out = run(&mut setup.ask(&["--trace", &trace]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&trace).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ends = events
        .iter()
        .filter(|e| e["event"] == "attempt_end")
        .count();
    assert_eq!(ends, 2);
    assert_eq!(events.last().unwrap()["status"], "valid");
}

#[test]
fn a_trace_that_cannot_be_written_is_an_error_not_a_silent_success() {
    let setup = Setup::new(vec![Reply::openai_text(VALID)]);
    let out = run(&mut setup.ask(&["--trace", "/dev/full"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("/dev/full"), "{}", out.stderr);
    assert!(
        out.stdout.contains('{'),
        "the answer is still printed: {}",
        out.stdout
    );
}

#[test]
fn the_prompt_can_come_from_stdin_and_rules_apply() {
    let setup = Setup::new(vec![
        Reply::openai_text(r#"{"name": "rectify", "tags": ["a", "a"]}"#),
        Reply::openai_text(VALID),
    ]);
    let rules = "rules:\n  - id: unique-tags\n    unique: \"$.tags[*]\"\n";
    std::fs::write(setup.path("rules.yaml"), rules).unwrap();
    let mut cmd = bare();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .args(["ask", "-", "--schema", &setup.path("schema.json")])
        .args(["--rules", &setup.path("rules.yaml")])
        .args([
            "--provider",
            "openai",
            "--base-url",
            &setup.server.openai_base_url(),
        ])
        .write_stdin("Tags, please.");
    let out = run(&mut cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(setup.messages(0)[0].1, "Tags, please.");
    let feedback = &setup.messages(1)[2].1;
    assert!(feedback.starts_with(HEADER), "{feedback}");
    assert!(feedback.contains("tags[1]"), "{feedback}");
}

#[test]
fn a_command_line_agent_after_the_double_dash() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(&schema, r#"{"type": "object", "required": ["ok"]}"#).unwrap();
    let script = r#"cat > /dev/null; printf '%s' '{"ok": true}'"#;
    let out = run(bare()
        .args(["ask", "Say ok.", "--schema"])
        .arg(&schema)
        .args(["--", "sh", "-c", script]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&out.stdout).unwrap(),
        json!({"ok": true})
    );
}

#[cfg(feature = "local")]
#[test]
fn without_a_key_the_local_model_is_the_default() {
    let schema = std::path::Path::new("examples")
        .join("plan")
        .join("tasks.schema.json");
    let out = run(bare()
        .args(["ask", "Plan.", "--schema"])
        .arg(&schema)
        .env("RECTIFY_MODEL_PATH", "/nonexistent/model.gguf"));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "model file `/nonexistent/model.gguf` does not exist (from RECTIFY_MODEL_PATH)"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("scripts/setup.sh"), "{}", out.stderr);
    let out = run(bare()
        .args(["ask", "Plan.", "--provider", "command", "--schema"])
        .arg(&schema));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("needs the agent command"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_bad_schema_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(&schema, r#"{"type": "frobnicate"}"#).unwrap();
    let out = run(bare()
        .args(["ask", "x", "--provider", "openai", "--schema"])
        .arg(&schema));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("cannot use the schema"),
        "{}",
        out.stderr
    );
}

/// The README's quick start: no key, no server, the embedded model answers with schema-valid
/// JSON. Needs the model (`scripts/setup.sh` fetches it); fails, not skips, without it.
#[cfg(feature = "local")]
#[test]
fn the_embedded_model_answers_with_schema_valid_json() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("city.schema.json");
    let schema_value = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 40},
            "country": {"type": "string", "maxLength": 40}
        },
        "required": ["city", "country"]
    });
    std::fs::write(&schema, schema_value.to_string()).unwrap();
    let out = run(bare()
        .args([
            "ask",
            "Name the capital of France and its country.",
            "--schema",
        ])
        .arg(&schema)
        .args(["--output", "json"]));
    assert_eq!(
        out.code, 0,
        "needs the model: run scripts/setup.sh\n{}",
        out.stderr
    );
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    let value = &outcome["value"];
    assert!(jsonschema::is_valid(&schema_value, value), "{value}");
    let attempt = &outcome["attempts"][0];
    assert!(
        attempt["provider"].as_str().unwrap().starts_with("local"),
        "{attempt}"
    );
}

/// llama-cpp-python's server answers `response_format: json_schema` with a 500; the first
/// call falls back to `json_object` (no attempt, no transport retry), the re-ask keeps it,
/// and the ledger and stderr say so.
#[test]
fn a_server_rejecting_json_schema_gets_json_object_for_the_rest_of_the_run() {
    let setup = Setup::new(vec![
        Reply::llama_cpp_python_rejects_json_schema(),
        Reply::openai_text(INVALID),
        Reply::openai_text(VALID),
    ]);
    let out = run(&mut setup.ask(&["--output", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "warning: openai:gpt-4o-mini: the server rejected `response_format: json_schema` (http status 500: "
        ),
        "{}",
        out.stderr
    );
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    let attempts = outcome["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    let notice = attempts[0]["notices"][0].as_str().unwrap();
    assert!(
        notice.ends_with("using `json_object` for the rest of the run"),
        "{notice}"
    );
    assert_eq!(attempts[1]["notices"], json!([]));
    let formats: Vec<Value> = setup
        .server
        .requests()
        .iter()
        .map(|r| r.json().unwrap()["response_format"]["type"].clone())
        .collect();
    assert_eq!(formats, ["json_schema", "json_object", "json_object"]);
    // After the fallback the schema is in the prompt of every request.
    assert!(setup.messages(2)[0].1.contains("matching this JSON Schema"));
}

#[test]
fn structured_output_can_be_chosen_by_flag_and_environment() {
    let setup = Setup::new(vec![Reply::openai_text(VALID), Reply::openai_text(VALID)]);
    let out = run(&mut setup.ask(&["--structured-output", "json_object"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = run(setup.ask(&[]).env("RECTIFY_STRUCTURED_OUTPUT", "off"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let requests = setup.server.requests();
    assert_eq!(
        requests[0].json().unwrap()["response_format"],
        json!({"type": "json_object"})
    );
    assert!(requests[1].json().unwrap().get("response_format").is_none());
    let out = run(&mut setup.ask(&["--structured-output", "xml"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// A missing key is a configuration error (exit 2): the error first, the hint under it.
#[test]
fn a_missing_key_is_a_configuration_error_with_a_hint_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("s.json");
    std::fs::write(&schema, r#"{"type": "object"}"#).unwrap();
    let out = crate::support::rectify()
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .args(["ask", "x", "--provider", "openai", "--schema"])
        .arg(&schema)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("OPENAI_API_KEY is not set"),
        "{stderr}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("  hint: set `OPENAI_API_KEY`, or point `--base-url` at a compatible server"),
        "{stderr}"
    );
}

/// Every outcome of `ask --output json` matches docs/output/ask.schema.json.
#[test]
fn ask_json_output_matches_its_documented_schema() {
    let refusal = {
        let mut body = rectify_test::fake_server::wire::openai_completion("", "stop", 5, 1);
        body["choices"][0]["message"]["refusal"] = json!("I can't help with that.");
        Reply::json(200, &body)
    };
    let cases = [
        (
            "valid",
            vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)],
            0,
        ),
        (
            "exhausted",
            vec![Reply::openai_text("no JSON"), Reply::openai_text(INVALID)],
            3,
        ),
        ("refused", vec![refusal.clone(), refusal], 3),
        ("provider_failed", vec![Reply::error(401)], 4),
    ];
    for (status, replies, code) in cases {
        let setup = Setup::new(replies);
        let out = run(&mut setup.ask(&["--max-attempts", "2", "--output", "json"]));
        assert_eq!(out.code, code, "{status}: {}", out.stderr);
        let value: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(value["status"], status, "{value:#}");
        crate::support::assert_wire_format("ask", &value);
    }
}

/// Snapshots of what `ask` shows when it runs out of attempts: stderr for people, and the JSON
/// wire format (times redacted).
#[test]
fn ask_output_snapshots() {
    for output in ["human", "json"] {
        let setup = Setup::new(vec![
            Reply::openai_text("Here you go: {\"name\": \"rectify\", \"tags\": [],}"),
            Reply::openai_text(INVALID),
        ]);
        let out = run(&mut setup.ask(&["--max-attempts", "2", "--output", output]));
        let shown = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            out.code, out.stdout, out.stderr
        );
        insta::with_settings!({filters => vec![
            (r#""(latency_ms|elapsed_ms)": \d+"#, r#""$1": 0"#),
            (r"schema:\S*schema\.json", "schema:[dir]/schema.json"),
        ]}, {
            insta::assert_snapshot!(format!("ask_exhausted_{output}"), shown);
        });
    }
}

/// A bad `--base-url` says so, without the missing-key hint.
#[test]
fn a_bad_base_url_is_its_own_error() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("s.json");
    std::fs::write(&schema, r#"{"type": "object"}"#).unwrap();
    let out = crate::support::rectify()
        .env_remove("OPENAI_API_KEY")
        .args([
            "ask",
            "x",
            "--provider",
            "openai",
            "--base-url",
            "not a url",
            "--schema",
        ])
        .arg(&schema)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("base url `not a url` is not http(s)"),
        "{stderr}"
    );
    assert!(!stderr.contains("OPENAI_API_KEY"), "{stderr}");
}

/// Ctrl-C during `ask` with a command agent: exit 130, the agent's whole process group is
/// killed (its background child too), and the trace holds the attempt that was under way.
#[test]
fn ctrl_c_stops_ask_and_kills_the_agents_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let pidfile = root.join("child.pid");
    std::fs::write(root.join("s.json"), r#"{"type": "object"}"#).unwrap();
    std::fs::write(
        root.join("hang.sh"),
        format!(
            "cat > /dev/null; sleep 60 & echo $! > '{}'; sleep 60\n",
            pidfile.display()
        ),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("rectify");
    let child = std::process::Command::new(bin)
        .args([
            "ask",
            "go",
            "--schema",
            "s.json",
            "--trace",
            "trace.jsonl",
            "--",
            "sh",
            "hang.sh",
        ])
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&pidfile)
        .unwrap_or_default()
        .trim()
        .is_empty()
        && start.elapsed().as_secs() < 20
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let agent_child = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: no answer; the attempts so far are in `trace.jsonl`"),
        "{stderr}"
    );
    let gone = crate::support::process_gone(&agent_child);
    assert!(
        gone,
        "the agent's background child is killed with its process group"
    );
    let trace = std::fs::read_to_string(root.join("trace.jsonl")).unwrap();
    assert!(trace.contains("attempt_start"), "{trace}");
}

/// `--timeout` limits each call: an agent that hangs is stopped after it (not after the
/// default 10 minutes) and the run ends as a provider failure (exit 4) naming the limit.
#[test]
fn timeout_stops_a_hanging_agent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("s.json"), r#"{"type": "object"}"#).unwrap();
    std::fs::write(root.join("hang.sh"), "cat > /dev/null; sleep 300\n").unwrap();
    let out = crate::support::rectify()
        .current_dir(root)
        .args([
            "ask",
            "go",
            "--schema",
            "s.json",
            "--timeout",
            "0.5",
            "--output",
            "json",
        ])
        .args(["--", "sh", "hang.sh"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["status"], "provider_failed", "{value:#}");
    assert_eq!(value["provider_error"]["kind"], "timeout", "{value:#}");
    let bad = crate::support::rectify()
        .current_dir(root)
        .args(["ask", "go", "--schema", "s.json", "--timeout", "soon"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// A recognisable key never appears in anything `ask` writes — stdout (human and JSON),
/// stderr, the trace — whatever the server does: answer, refuse the key, or echo the
/// `Authorization` header back in an error body or in the answer itself.
#[test]
fn the_api_key_appears_in_nothing_ask_writes() {
    const KEY: &str = "sk-CANARY-0123456789abcdef";
    let echo_error = Reply::json(
        500,
        &json!({"error": {"message": "bad auth header {{header:authorization}}"}}),
    )
    .echoing_headers();
    let echo_answer =
        Reply::openai_text("{\"name\": \"{{header:authorization}}\", \"tags\": [\"x\"]}")
            .echoing_headers();
    let cases = [
        vec![Reply::openai_text(INVALID), Reply::openai_text(VALID)],
        vec![Reply::error(401)],
        vec![echo_error.clone(); 6],
        vec![echo_answer],
    ];
    for (i, replies) in cases.into_iter().enumerate() {
        for output in ["human", "json"] {
            let setup = Setup::new(replies.clone());
            let trace = setup.path("trace.jsonl");
            let out = run(setup
                .ask(&["--output", output, "--trace", &trace])
                .env("OPENAI_API_KEY", KEY));
            let written = std::fs::read_to_string(&trace).unwrap_or_default();
            if i == 3 {
                assert!(
                    out.stdout.contains("Bearer ***"),
                    "the header was echoed, redacted: {}",
                    out.stdout
                );
            }
            for (what, text) in [
                ("stdout", &out.stdout),
                ("stderr", &out.stderr),
                ("trace", &written),
            ] {
                assert!(
                    !text.contains(KEY) && !text.contains("CANARY"),
                    "case {i}, {output}: the key is in {what}:\n{text}"
                );
            }
        }
    }
}
