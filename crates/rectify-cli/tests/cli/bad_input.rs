//! Bad input: each gets a clear message and the right exit code, never a panic or a hang.

use std::fmt::Write as _;
use std::io::Write;

use crate::support::{json, run, run_stdin};

fn temp_file(contents: &[u8], suffix: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    f.write_all(contents).unwrap();
    f
}

#[test]
fn nonexistent_file_is_a_usage_error() {
    let r = run(&["check", "does/not/exist.json"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("error: cannot read `does/not/exist.json`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("No such file"), "{}", r.stderr);
}

#[test]
fn directory_is_a_usage_error() {
    let r = run(&["check", "examples"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("it is a directory, not a file"),
        "{}",
        r.stderr
    );
}

#[test]
fn empty_file_is_invalid_content() {
    let f = temp_file(b"", ".json");
    let r = run(&["check", f.path().to_str().unwrap(), "--output", "json"]);
    assert_eq!(r.code, 1);
    assert_eq!(json(&r)["diagnostics"][0]["code"], "parse.empty");
    assert_eq!(
        json(&r)["diagnostics"][0]["message"],
        "the document is empty"
    );
}

#[test]
fn invalid_utf8_says_where() {
    let r = run_stdin(
        &["check", "-", "--format", "json", "--output", "json"],
        b"{\"a\": \"\xc3\x28\"}".to_vec(),
    );
    assert_eq!(r.code, 1);
    let d = &json(&r)["diagnostics"][0];
    assert_eq!(d["code"], "parse.encoding");
    assert_eq!(
        (d["line"].as_i64(), d["column"].as_i64()),
        (Some(1), Some(8))
    );
}

#[test]
fn fifty_megabyte_document_is_checked() {
    let mut text = String::from("{\"items\": [");
    let item = "{\"id\": 12345, \"name\": \"a reasonably long name for an item\", \"ok\": true},";
    while text.len() < 50 * 1024 * 1024 {
        text.push_str(item);
    }
    text.push_str("{\"id\": \"last\"}]}");
    let f = temp_file(text.as_bytes(), ".json");
    let schema = temp_file(
        br#"{"properties": {"items": {"items": {"properties": {"id": {"type": "integer"}}}}}}"#,
        ".json",
    );
    let r = run(&[
        "check",
        f.path().to_str().unwrap(),
        "--schema",
        schema.path().to_str().unwrap(),
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let d = &json(&r)["diagnostics"][0];
    assert_eq!(d["code"], "schema.type");
    assert_eq!(d["received"], "\"last\"");
}

#[test]
fn nesting_100000_deep_is_refused() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let r = run_stdin(&["check", "-", "--output", "json"], deep.clone());
    assert_eq!(r.code, 1);
    assert_eq!(json(&r)["diagnostics"][0]["code"], "parse.depth");
    let yaml_deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let r = run_stdin(
        &["check", "-", "--format", "yaml", "--output", "json"],
        yaml_deep,
    );
    assert_eq!(r.code, 1);
    assert_eq!(json(&r)["diagnostics"][0]["code"], "parse.depth");
}

#[test]
fn yaml_alias_bomb_is_refused() {
    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["b", "c", "d", "e", "f", "g", "h", "i"];
    let mut prev = "a";
    for n in names {
        writeln!(
            bomb,
            "{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
        .unwrap();
        prev = n;
    }
    let r = run_stdin(
        &["check", "-", "--format", "yaml", "--output", "json"],
        bomb,
    );
    assert_eq!(r.code, 1);
    assert_eq!(json(&r)["diagnostics"][0]["code"], "yaml.alias_limit");
}

#[test]
fn yaml_duplicate_keys_are_reported() {
    let r = run_stdin(
        &["check", "-", "--format", "yaml", "--output", "json"],
        "id: 1\nname: a\nid: 2\n",
    );
    assert_eq!(r.code, 1);
    let d = &json(&r)["diagnostics"][0];
    assert_eq!(d["code"], "yaml.duplicate_key");
    assert_eq!(d["line"], 3);
}

#[test]
fn schema_with_broken_ref_is_a_configuration_error() {
    let schema = temp_file(
        br##"{"properties": {"a": {"$ref": "#/$defs/missing"}}}"##,
        ".json",
    );
    let r = run_stdin(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--schema",
            schema.path().to_str().unwrap(),
        ],
        "{\"a\": 1}",
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("/$defs/missing") || r.stderr.contains("$defs/missing"),
        "{}",
        r.stderr
    );
}

#[test]
fn schema_that_is_not_json_is_a_configuration_error() {
    let schema = temp_file(b"{\"type\": ", ".json");
    let r = run_stdin(
        &["check", "-", "--schema", schema.path().to_str().unwrap()],
        "{}",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not valid: line 1"), "{}", r.stderr);
}

/// Spans that end inside a multi-byte character used to panic the code-frame printer (exit 101).
#[test]
fn spans_inside_multibyte_characters_are_printed_not_a_panic() {
    for input in [
        &b"[\xe2\x80\x8b:"[..],
        b"\xcd [1] [2]",
        b"{\"a\": \"\xc3\xa9\xc3\xa9\" \xe2\x80\x8b}",
    ] {
        let r = run_stdin(&["repair", "-"], input.to_vec());
        assert!(
            matches!(r.code, 0 | 1),
            "{input:?}: exit {} {}",
            r.code,
            r.stderr
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
}

/// A reader that went away ends the output early; it never changes the exit status.
#[test]
fn a_closed_stdout_keeps_the_exit_status() {
    let bad = temp_file(b"{\"id\": \"x\"}", ".json");
    let schema = temp_file(
        b"{\"properties\": {\"id\": {\"type\": \"integer\"}}}",
        ".json",
    );
    let garbage = temp_file(b"no json here", ".txt");
    let cases: [(Vec<&str>, i32); 2] = [
        (
            vec![
                "check",
                bad.path().to_str().unwrap(),
                "--schema",
                schema.path().to_str().unwrap(),
                "--output",
                "json",
            ],
            1,
        ),
        (vec!["repair", garbage.path().to_str().unwrap()], 1),
    ];
    for (args, code) in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("rectify"))
            .args(&args)
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A closed standard input (`rectify check - <&-`) is a usage error, not an empty document.
#[test]
fn a_closed_standard_input_is_an_error_not_an_empty_document() {
    let bin = assert_cmd::cargo::cargo_bin("rectify");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' check - <&-", bin.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("standard input is closed"), "{stderr}");
    // Open but empty is still an empty document (exit 1).
    let empty = run_stdin(&["check", "-"], "");
    assert_eq!(empty.code, 1, "{}", empty.stderr);
}
