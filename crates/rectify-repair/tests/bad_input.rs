//! Hostile and degenerate input: a clear result or diagnostic, never a panic or a hang.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_repair::{RepairOptions, repair, repair_bytes};

fn codes(out: &rectify_repair::Repaired) -> Vec<&str> {
    out.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn empty_whitespace_and_prose_have_no_payload() {
    for text in [
        "",
        "   \n\t ",
        "Sorry, I cannot help with that.",
        "/",
        "]",
        "}",
    ] {
        let out = repair(text, &RepairOptions::default());
        assert!(out.value.is_none(), "{text:?}");
        assert_eq!(codes(&out)[0], "extract.no_payload", "{text:?}");
    }
    // One line of prose could be a string value: that reading is named, and refused.
    let out = repair("Sorry, I cannot help with that.", &RepairOptions::default());
    assert_eq!(codes(&out), vec!["extract.no_payload", "repair.unsafe"]);
    assert!(out.diagnostics[1].message.contains("extract.bare_text"));
    // Several lines of prose are never a value, unsafe repairs or not.
    let prose = "Sorry, I cannot help with that.\nAsk me something else.";
    let out = repair(prose, &RepairOptions::default().with_unsafe(true));
    assert!(out.value.is_none());
    assert_eq!(codes(&out), vec!["extract.no_payload"]);
    let out = repair("", &RepairOptions::default());
    assert_eq!(out.diagnostics[0].message, "the text is empty");
}

#[test]
fn a_hundred_thousand_open_brackets_stop_at_the_depth_limit() {
    for unit in ["[", "{\"a\":", "{a: [", "("] {
        let text = unit.repeat(100_000);
        let out = repair(&text, &RepairOptions::default().with_unsafe(true));
        assert!(out.value.is_none(), "{unit}");
        assert_eq!(codes(&out), vec!["parse.depth"], "{unit}");
        let span = out.diagnostics[0].location.span.unwrap();
        assert!(span.start > 0);
    }
    // Just past the limit: the depth error alone, no repair invented while unwinding.
    let text = format!("{}{}", "[".repeat(130), "]".repeat(130));
    let out = repair(&text, &RepairOptions::default().with_unsafe(true));
    assert_eq!(codes(&out), vec!["parse.depth"]);
    assert!(out.repairs.is_empty(), "{:?}", out.repairs.first());
}

#[test]
fn nesting_below_the_limit_is_repaired() {
    let text = "[".repeat(100);
    let out = repair(&text, &RepairOptions::default());
    assert!(out.is_valid());
    let closers = out
        .repairs
        .iter()
        .filter(|r| r.code == "json.missing_closing_bracket");
    assert_eq!(closers.count(), 100);
    assert!(codes(&out).contains(&"repair.truncated"));
}

#[test]
fn a_fifty_megabyte_string_valid_or_cut_off() {
    let body = "x".repeat(50 * 1024 * 1024);
    let valid = format!("{{\"a\": \"{body}\"}}");
    let out = repair(&valid, &RepairOptions::default());
    assert!(out.is_unchanged());
    assert_eq!(
        out.value.unwrap()["a"].as_str().map(str::len),
        Some(body.len())
    );
    let cut = format!("{{'a': '{body}");
    let out = repair(&cut, &RepairOptions::default());
    assert!(out.is_valid(), "{:?}", out.diagnostics);
    assert_eq!(
        out.value.unwrap()["a"].as_str().map(str::len),
        Some(body.len())
    );
}

#[test]
fn invalid_utf8_is_an_unsafe_repair_that_says_where() {
    let bytes = b"{\"a\":\n \"x\xffy\"}";
    let out = repair_bytes(bytes, &RepairOptions::default());
    assert!(out.value.is_none());
    let d = &out.diagnostics[0];
    assert_eq!(d.code, "repair.unsafe");
    assert!(d.message.contains("text.invalid_utf8"));
    let span = d.location.span.unwrap();
    assert_eq!((span.line, span.column), (2, 4));
    let out = repair_bytes(bytes, &RepairOptions::default().with_unsafe(true));
    assert_eq!(out.value.unwrap()["a"], "x\u{fffd}y");
    let out = repair_bytes(b"{\"a\": 1}", &RepairOptions::default());
    assert!(out.is_valid() && out.is_unchanged());
}

#[test]
fn nul_bytes_are_escaped_inside_strings_and_dropped_outside() {
    let out = repair("{\"a\": \"x\0y\"}", &RepairOptions::default());
    assert_eq!(out.value.unwrap()["a"], "x\u{0}y");
    let out = repair("{\0\"a\": 1}", &RepairOptions::default().with_unsafe(true));
    assert_eq!(out.value.unwrap()["a"], 1);
    let out = repair("\0\0\0", &RepairOptions::default());
    assert!(out.value.is_none());
}

#[test]
fn pathological_quotes_and_brackets_finish() {
    let inputs = [
        "{\"a\": \"".to_owned() + &"\" x ".repeat(50_000),
        "[".to_owned() + &"\"a\" \"".repeat(50_000),
        "{".to_owned() + &"a: b, ".repeat(50_000),
        "[".to_owned() + &"}".repeat(50_000),
        "{\"a\": \"".to_owned() + &", b: ".repeat(50_000),
        "```".repeat(50_000),
        "{".to_owned() + &":".repeat(100_000),
        // Every `/` at a value's start is tried as a regular expression literal whose class
        // never closes on this line: bounded, so the line stays linear.
        "[".to_owned() + &"/[x, ".repeat(100_000) + "]",
        // Every quote after a comment's end is tried as the next part of a concatenation
        // whose first part lost its quote: only the end of the string is looked at.
        "{\"a\": \"x".to_owned() + &"*/\"x".repeat(100_000),
        "[\"x".to_owned() + &" + \"x".repeat(100_000),
        "```\nnote\n".repeat(20_000) + &"```json\n[1]\n```\n".repeat(20_000),
        // Forty thousand candidates of two kinds form a list: keeping each was a linear
        // search of the list, quadratic in all (7.5 s in a debug build).
        "```\nnote\n```\n".repeat(20_000) + &"```json\n[1]\n```\n".repeat(20_000),
    ];
    for text in &inputs {
        let out = repair(text, &RepairOptions::default().with_unsafe(true));
        assert!(out.value.is_some() || !out.diagnostics.is_empty());
    }
}

#[test]
fn repairs_past_the_recording_limit_are_counted_not_listed() {
    let text = "[".to_owned() + &"'a' ".repeat(50_000);
    let out = repair(&text, &RepairOptions::default());
    assert!(out.is_valid(), "{:?}", codes(&out));
    assert_eq!(
        out.value.as_ref().and_then(|v| v.as_array()).map(Vec::len),
        Some(50_000)
    );
    assert!(out.repairs.len() <= 10_001);
    assert!(codes(&out).contains(&"repair.unrecorded"));
    assert!(codes(&out).contains(&"repair.truncated"));
    let last = out.repairs.last().unwrap().location.span.unwrap();
    assert!(last.column > 1000, "columns are counted on one long line");
}

#[test]
fn an_unsafe_repair_past_the_limit_is_still_refused() {
    let text = "[".to_owned() + &"'a' ".repeat(20_000) + "New York]";
    let out = repair(&text, &RepairOptions::default());
    assert!(out.value.is_none());
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.message.contains("json.unquoted_text"))
    );
}

#[test]
fn candidates_put_in_a_list_stay_within_the_depth_limit() {
    // Found by the `repair` fuzz target: an object and an array 128 deep (the limit) form a
    // list 129 deep, which repairing again refused. The list is refused the same way now,
    // through both paths; one level less is kept.
    let options = RepairOptions::default().with_unsafe(true);
    let nested = |n: usize| format!("{{\"a\": 1}}\n{}{}", "[".repeat(n), "]".repeat(n));
    let out = repair(&nested(128), &options);
    assert!(out.value.is_none());
    assert!(
        codes(&out).contains(&"parse.depth"),
        "{:?}",
        out.diagnostics
    );
    let fast = rectify_repair::repair_to_json(&nested(128), &options);
    assert!(fast.json.is_none());
    assert_eq!(fast.diagnostics, out.diagnostics);
    let out = repair(&nested(127), &options);
    let text = out.to_json().unwrap();
    assert!(repair(&text, &options).is_unchanged());
}

#[test]
fn brackets_that_nest_no_value_do_not_count_toward_the_depth_of_a_list() {
    // Found by the `repair` fuzz target: tuples of one value (unwrapped) and a call of
    // several arguments (kept as a string) nested 128 deep, beside another candidate. The
    // value path gave the shallow list; the text path refused it with `parse.depth`, going by
    // the parser's deepest bracket.
    let options = RepairOptions::default().with_unsafe(true);
    for inner in [
        format!("{}2{}", "(".repeat(128), ")".repeat(128)),
        format!("[f({}1, 2{})]", "(".repeat(126), ")".repeat(126)),
    ] {
        let text = format!("{{\"a\": 1}}\n{inner}");
        let out = repair(&text, &options);
        assert!(out.value.is_some(), "{:?}", out.diagnostics);
        let fast = rectify_repair::repair_to_json(&text, &options);
        assert_eq!(fast.json, out.to_json());
        assert_eq!(fast.diagnostics, out.diagnostics);
    }
}
