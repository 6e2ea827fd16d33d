//! Events: a JSON Lines trace of every attempt, and closures as sinks.

use std::sync::Mutex;

use rectify_loop::{Engine, Event, EventKind, JsonLinesSink};
use serde_json::Value;

use crate::*;

#[test]
fn the_trace_file_has_one_line_per_event() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let sink = Arc::new(JsonLinesSink::create(&path).unwrap());
    let provider = scripted(
        "p",
        &[
            TWO_ERRORS,
            "```json\n{\"name\": \"r\", \"tags\": [\"x\"],}\n```",
        ],
    );
    let engine = Engine::new(provider).sink(sink.clone());
    valid(&block(engine.run(&task().step("describe"))));
    drop(engine);
    assert!(!sink.failed());
    let text = std::fs::read_to_string(&path).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec![
            "run_start",
            "attempt_start",
            "diagnostics",
            "attempt_end",
            "attempt_start",
            "repairs",
            "attempt_end",
            "outcome"
        ]
    );
    assert!(events.iter().all(|e| e["step"] == "describe"));
    assert!(events.iter().all(|e| e["elapsed_ms"].is_number()));
    assert_eq!(events[2]["diagnostics"].as_array().unwrap().len(), 2);
    assert_eq!(events[3]["valid"], false);
    assert_eq!(events[3]["usage"]["input_tokens"], 10);
    assert_eq!(events[5]["repairs"][0]["code"], "extract.code_fence");
    assert_eq!(events[7]["status"], "valid");
    assert_eq!(events[7]["attempts"], 2);
}

#[test]
fn closures_are_sinks() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let sink = move |event: &Event| {
        if let EventKind::AttemptEnd { attempt, valid, .. } = &event.kind {
            record.lock().unwrap().push((*attempt, *valid));
        }
    };
    let engine = Engine::new(scripted("p", &[ONE_ERROR, VALID])).sink(Arc::new(sink));
    valid(&block(engine.run(&task())));
    assert_eq!(*seen.lock().unwrap(), vec![(1, false), (2, true)]);
}

#[cfg(unix)]
#[test]
fn the_trace_file_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.jsonl");
    let _ = JsonLinesSink::create(&new).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&new), 0o600);
    // An existing file that others could read is made private too.
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "secret prompt\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    let _ = JsonLinesSink::create(&old).unwrap();
    assert_eq!(mode(&old), 0o600);
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "", "truncated");
}
