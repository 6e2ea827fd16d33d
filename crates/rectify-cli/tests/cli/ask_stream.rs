//! `rectify ask --stream`: NDJSON events over the OpenAI-compatible SSE wire format, each
//! line checked against docs/output/ask-stream.schema.json.

use rectify_test::fake_server::Reply;
use serde_json::{Value, json};

use crate::ask::{Setup, VALID, bare, run};
use crate::support::{self, Run, assert_wire_format, root};

/// An answer whose first field can no longer be valid (`tags` needs an item), with a long
/// tail that is never paid for.
fn doomed() -> String {
    format!(r#"{{"tags": [], "name": "{}"}}"#, "rectify ".repeat(300))
}

/// Every line of stdout, each checked against the documented schema.
fn lines(out: &Run) -> Vec<Value> {
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for line in &lines {
        assert_wire_format("ask-stream", line);
    }
    assert_eq!(
        lines.last().map(|l| l["event"].clone()),
        Some(json!("final")),
        "{}",
        out.stdout
    );
    lines
}

fn events(lines: &[Value]) -> Vec<&str> {
    lines.iter().map(|l| l["event"].as_str().unwrap()).collect()
}

#[test]
fn a_doomed_answer_is_stopped_and_the_run_ends_with_the_json_document() {
    let setup = Setup::new(vec![
        Reply::openai_stream(&doomed(), 5),
        Reply::openai_stream(VALID, 5),
    ]);
    let out = run(&mut setup.ask(&["--stream"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = lines(&out);
    let kinds = events(&lines);
    let abort = kinds.iter().position(|k| *k == "abort").unwrap();
    assert_eq!(lines[abort]["attempt"], 1);
    assert_eq!(lines[abort]["diagnostics"][0]["pointer"], "/tags");
    assert!(lines[abort]["received"].as_u64().unwrap() < 60);
    assert_eq!(kinds[abort + 1], "attempt");
    assert_eq!(lines[abort + 1]["finish_reason"], "stopped_by_caller");
    assert!(
        lines.iter().any(|l| l["event"] == "partial"
            && l["attempt"] == 2
            && l["value"]["name"] == "rectify")
    );
    let last = lines.last().unwrap();
    assert_eq!(last["status"], "valid");
    assert_eq!(last["value"], json!({"name": "rectify", "tags": ["rust"]}));
    assert_eq!(last["attempts"].as_array().unwrap().len(), 2);
    assert!(last["attempts"][0]["raw"].as_str().unwrap().len() < 60);
}

/// Invalid, but only once the answer is complete (so the streamed run is not stopped early).
const MISSING: &str = r#"{"name": "rectify"}"#;

/// The `final` line is `--output json`'s document with `event` added, and the exit code is
/// the same, whatever the outcome.
#[test]
fn the_final_line_is_the_output_json_document() {
    let cases = [
        ("valid", vec![MISSING, VALID], 0),
        ("exhausted", vec!["no JSON", MISSING], 3),
    ];
    for (status, answers, code) in cases {
        let stream = Setup::new(answers.iter().map(|a| Reply::openai_stream(a, 7)).collect());
        let whole = Setup::new(answers.iter().map(|a| Reply::openai_text(a)).collect());
        let streamed = run(&mut stream.ask(&["--max-attempts", "2", "--stream"]));
        let printed = run(&mut whole.ask(&["--max-attempts", "2", "--output", "json"]));
        assert_eq!(
            (streamed.code, printed.code),
            (code, code),
            "{status}: {}",
            streamed.stderr
        );
        lines(&streamed);
        let streamed = streamed
            .stdout
            .lines()
            .last()
            .unwrap()
            .replace(&stream.path(""), "[dir]/");
        let mut last: Value = serde_json::from_str(&streamed).unwrap();
        let printed = printed.stdout.replace(&whole.path(""), "[dir]/");
        let mut document: Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(last["status"], status);
        last.as_object_mut().unwrap().remove("event");
        for doc in [&mut last, &mut document] {
            forget_times_and_usage(doc);
        }
        assert_eq!(last, document, "{status}");
    }
}

/// Times differ between two runs, and the streamed usage counts pieces.
fn forget_times_and_usage(doc: &mut Value) {
    let parts = [&mut doc["totals"]];
    for part in parts {
        for key in ["latency_ms", "elapsed_ms", "input_tokens", "output_tokens"] {
            part[key] = Value::Null;
        }
    }
    for attempt in doc["attempts"].as_array_mut().unwrap() {
        for key in ["latency_ms", "input_tokens", "output_tokens", "model"] {
            attempt[key] = Value::Null;
        }
    }
}

#[test]
fn a_provider_failure_ends_with_a_final_error_and_exit_4() {
    let setup = Setup::new(vec![Reply::error(401)]);
    let out = run(&mut setup.ask(&["--stream"]));
    assert_eq!(out.code, 4, "{}", out.stderr);
    let lines = lines(&out);
    assert_eq!(events(&lines), ["final"]);
    assert_eq!(lines[0]["status"], "provider_failed");
    assert_eq!(lines[0]["error"]["class"], "provider");
}

/// A command agent's stdout is read as it is written: its answer gives a `partial` line too.
#[test]
fn an_agent_streams_its_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(&schema, r#"{"type": "object", "required": ["ok"]}"#).unwrap();
    let script = r#"cat > /dev/null; printf '%s' '{"ok": true}'"#;
    let out = run(bare()
        .args(["ask", "Say ok.", "--stream", "--schema"])
        .arg(&schema)
        .args(["--", "sh", "-c", script]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = lines(&out);
    assert_eq!(events(&lines), ["partial", "attempt", "final"]);
    assert_eq!(lines[0]["value"], json!({"ok": true}));
    assert_eq!(lines[2]["value"], json!({"ok": true}));
}

/// A command agent whose first answer goes wrong in its first field (an enum value it does
/// not have), then waits a minute before it would go on: the answer is stopped there (an
/// `abort` line), the agent's process group is killed (it never gets past its wait), and the
/// second answer is valid.
#[test]
fn an_agent_whose_answer_goes_wrong_early_is_stopped_and_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    let kinds = json!({
        "type": "object",
        "required": ["kind", "title"],
        "properties": {"kind": {"enum": ["bug", "feature"]}, "title": {"type": "string"}}
    });
    std::fs::write(&schema, kinds.to_string()).unwrap();
    let state = dir.path().display();
    let script = format!(
        r#"cat > /dev/null
if [ -e '{state}/first.pid' ]; then printf '%s' '{{"kind": "bug", "title": "crash"}}'; exit 0; fi
echo $$ > '{state}/first.pid'
printf '%s' '{{"kind": "question", "title": "'
sleep 60
printf '%s' 'why?"}}'
touch '{state}/waited'"#
    );
    let out = run(bare()
        .args(["ask", "Classify: the app crashes.", "--stream", "--schema"])
        .arg(&schema)
        .args(["--", "sh", "-c", &script]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = lines(&out);
    let kinds = events(&lines);
    let abort = kinds.iter().position(|k| *k == "abort").unwrap();
    assert_eq!(lines[abort]["attempt"], 1);
    assert_eq!(lines[abort]["diagnostics"][0]["pointer"], "/kind");
    assert_eq!(kinds[abort + 1], "attempt");
    assert_eq!(lines[abort + 1]["finish_reason"], "stopped_by_caller");
    let last = lines.last().unwrap();
    assert_eq!(last["status"], "valid");
    assert_eq!(last["value"], json!({"kind": "bug", "title": "crash"}));
    let first = last["attempts"][0]["raw"].as_str().unwrap();
    assert!(first.starts_with(r#"{"kind": "question""#), "{first}");
    assert!(!first.contains("why"), "{first}");
    assert!(
        !dir.path().join("waited").exists(),
        "the first agent ran to its end"
    );
    let pid = std::fs::read_to_string(dir.path().join("first.pid")).unwrap();
    assert!(
        support::process_gone(pid.trim()),
        "the first agent {pid} lives on"
    );
}

#[test]
fn stream_and_output_are_exclusive() {
    let setup = Setup::new(vec![]);
    let out = run(&mut setup.ask(&["--stream", "--output", "json"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--output"), "{}", out.stderr);
}

/// The `final` event of the documented schema is `ask.schema.json`'s document and `event`.
#[test]
fn the_stream_schema_holds_the_ask_schema() {
    let read = |name: &str| -> Value {
        let text = std::fs::read_to_string(root().join("docs/output").join(name)).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let ask = read("ask.schema.json");
    let stream = read("ask-stream.schema.json");
    let mut fin = stream["$defs"]["final_event"].clone();
    fin["properties"].as_object_mut().unwrap().remove("event");
    assert_eq!(fin["properties"], ask["properties"]);
    assert_eq!(fin["allOf"], ask["allOf"]);
    let required = fin["required"].as_array().unwrap();
    assert_eq!(required[0], "event");
    assert_eq!(
        &required[1..],
        ask["required"].as_array().unwrap().as_slice()
    );
    for (name, def) in ask["$defs"].as_object().unwrap() {
        assert_eq!(&stream["$defs"][name], def, "$defs/{name}");
    }
}

/// A snapshot of a streamed run with an early stop (times redacted).
#[test]
fn ask_stream_snapshot() {
    let doomed = r#"{"tags": [], "name": "rectify makes the output of models trustworthy"}"#;
    let setup = Setup::new(vec![
        Reply::openai_stream(doomed, 6),
        Reply::openai_stream(VALID, 12),
    ]);
    let out = run(&mut setup.ask(&["--stream"]));
    let shown = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.code, out.stdout, out.stderr
    );
    insta::with_settings!({filters => vec![
        (r#""(latency_ms|elapsed_ms)":\d+"#, r#""$1":0"#),
        (r#"schema:[^"]*schema\.json"#, "schema:[dir]/schema.json"),
    ]}, {
        insta::assert_snapshot!("ask_stream", shown);
    });
}
