//! `rectify repair`: the repaired value on stdout, repairs on stderr, exit codes.

use crate::support::{json, run_stdin};

#[test]
fn prose_fences_and_trailing_commas_are_repaired() {
    let text = "Sure! Here it is:\n```json\n{\"name\": \"Ada\", \"tags\": [\"x\",], // note\n \"age\": 36,}\n```\nHope it helps.";
    let r = run_stdin(&["repair", "-"], text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let value: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"name": "Ada", "tags": ["x"], "age": 36})
    );
    assert!(
        r.stderr.contains("repaired[json.trailing_comma] 3:29"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("repaired[json.comment] 3:33: `// note` → ``"),
        "{}",
        r.stderr
    );
}

#[test]
fn json_output_lists_repairs_with_locations() {
    let r = run_stdin(
        &["repair", "-", "--output", "json"],
        "{'a': True, 'b': None}",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["value"], serde_json::json!({"a": true, "b": null}));
    let codes: Vec<&str> = v["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"json.single_quotes") && codes.contains(&"json.python_literal"),
        "{codes:?}"
    );
    let literal = v["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["code"] == "json.python_literal")
        .unwrap();
    assert_eq!(literal["location"]["pointer"], "/a");
    assert_eq!(literal["before"], "True");
}

#[test]
fn strict_fails_when_a_repair_is_needed() {
    let r = run_stdin(&["repair", "-", "--strict"], "{\"a\": 1,}");
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("error[repair.strict]"), "{}", r.stderr);
    let r = run_stdin(&["repair", "-", "--strict"], "{\"a\": 1}");
    assert_eq!(r.code, 0, "valid input needs no repair: {}", r.stderr);
}

#[test]
fn no_payload_is_invalid() {
    for input in ["", "   \n", "only prose here, no data"] {
        let r = run_stdin(&["repair", "-", "--output", "json"], input);
        assert_eq!(r.code, 1, "input {input:?}");
        assert_eq!(json(&r)["valid"], false);
        assert!(json(&r)["value"].is_null());
    }
}

#[test]
fn invalid_utf8_and_nul_bytes_do_not_crash() {
    let r = run_stdin(
        &["repair", "-", "--output", "json"],
        b"{\"a\": \"\xff\x00\"}".to_vec(),
    );
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let v = json(&r);
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["line"] == 1),
        "{v}"
    );
}

#[test]
fn unsafe_flag_enables_meaning_changing_repairs() {
    let text = "{\"city\": New York, NY, \"zip\": 10001}";
    let r = run_stdin(&["repair", "-"], text);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let r = run_stdin(&["repair", "-", "--unsafe"], text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"New York, NY\""));
    assert!(r.stderr.contains("(unsafe)"), "{}", r.stderr);
}
