//! Repairs converge: repairing the output again changes nothing, and valid JSON comes back
//! as the same value — through the fast path and through the lenient parser alike.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::testing::parse_lenient;
use rectify_repair::{JsonStyle, RepairOptions, repair, repair_to_json, repair_to_json_as};
use serde_json::Value;

fn corpus_inputs() -> Vec<String> {
    let corpus = include_str!("corpus/json_repair.jsonl").lines();
    let fixtures = include_str!("fixtures/rules.jsonl").lines();
    corpus
        .chain(fixtures)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["input"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn repairing_the_output_again_changes_nothing() {
    let options = RepairOptions::default().with_unsafe(true);
    for input in corpus_inputs() {
        let first = repair(&input, &options);
        let Some(text) = first.to_json() else {
            continue;
        };
        for again in [text.clone(), first.to_json_pretty().unwrap()] {
            let second = repair(&again, &options);
            assert!(
                second.is_unchanged(),
                "{input:?} → {text}: {:?}",
                second.repairs
            );
            assert_eq!(second.value, first.value, "{input:?}");
            assert_eq!(
                second.to_json().as_deref(),
                Some(text.as_str()),
                "{input:?}"
            );
        }
    }
}

#[test]
fn valid_corpus_inputs_parse_the_same_leniently() {
    let strict = RepairOptions::default().with_strict(true);
    for input in corpus_inputs() {
        let Ok(expected) = serde_json::from_str::<Value>(&input) else {
            continue;
        };
        let out = repair(&input, &strict);
        if out.repairs.iter().any(|r| r.code == "json.duplicate_key") {
            continue;
        }
        assert!(out.is_unchanged(), "{input:?}: {:?}", out.repairs);
        assert_eq!(out.value, Some(expected), "{input:?}");
    }
}

/// Number text survives repair (serde_json spells exponents as `e+`, so `1e+400` is used).
#[test]
fn number_text_is_kept_exactly() {
    let text = "{\"a\": 1.50, \"b\": 1e+400, \"c\": 12345678901234567890123, \"d\": -0.0}";
    let out = repair(text, &RepairOptions::default());
    assert_eq!(
        out.to_json().unwrap(),
        text.replace(": ", ":").replace(", ", ",")
    );
    let broken = format!("{},", &text[..text.len() - 1]);
    let out = repair(&broken, &RepairOptions::default());
    assert_eq!(
        out.to_json().unwrap(),
        text.replace(": ", ":").replace(", ", ",")
    );
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        "[ -~\\n\\t\"\\\\é☺]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"\\\\ ]{0,6}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Pieces inserted into valid JSON to break it.
const BREAKAGE: &[&str] = &[
    ",", "'", "\"", "}", "]", "{", "[", ":", " ", "\n", "True", "None", "// c\n", "...", "(", ")",
    " + ", "\\", "`", "\u{201c}", "a b", "1.", "-", "NaN", "```", "#",
];

/// `text` with each edit applied: at a fraction of the length, delete a character
/// (`None`) or insert a piece of [`BREAKAGE`].
fn broken(text: &str, edits: &[(f64, Option<usize>)]) -> String {
    let mut out: Vec<char> = text.chars().collect();
    for &(at, edit) in edits {
        let i = ((out.len() as f64) * at) as usize;
        match edit {
            None if i < out.len() => {
                out.remove(i);
            }
            None => {}
            Some(k) => {
                let piece = BREAKAGE[k % BREAKAGE.len()];
                for (j, c) in piece.chars().enumerate() {
                    out.insert((i + j).min(out.len()), c);
                }
            }
        }
    }
    out.into_iter().collect()
}

fn edits() -> impl Strategy<Value = Vec<(f64, Option<usize>)>> {
    prop::collection::vec((0.0f64..1.0, prop::option::of(0usize..64)), 0..5)
}

proptest! {
    #[test]
    fn lenient_parser_reads_valid_json_like_serde(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        let expected: Value = serde_json::from_str(&text).unwrap();
        let (value, repairs) = parse_lenient(&text);
        prop_assert!(repairs.is_empty(), "{}: {:?}", text, repairs);
        prop_assert_eq!(value, Some(expected));
    }

    /// The text path gives exactly the value path's text, repairs and diagnostics, and its
    /// output converges too.
    #[test]
    fn text_path_matches_the_value_path(
        v in json_value(),
        pretty in any::<bool>(),
        edits in edits(),
        allow_unsafe in any::<bool>(),
    ) {
        let valid = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        let text = broken(&valid, &edits);
        let options = RepairOptions::default().with_unsafe(allow_unsafe);
        let value = repair(&text, &options);
        let out = repair_to_json(&text, &options);
        prop_assert_eq!(&out.json, &value.to_json(), "{:?}", text);
        prop_assert_eq!(&out.repairs, &value.repairs, "{:?}", text);
        prop_assert_eq!(&out.diagnostics, &value.diagnostics, "{:?}", text);
        let indented = repair_to_json_as(&text, &options, JsonStyle::Pretty);
        prop_assert_eq!(indented.json, value.to_json_pretty(), "{:?}", text);
        prop_assert_eq!(indented.repairs, value.repairs, "{:?}", text);
        if let Some(json) = out.json {
            let again = repair_to_json(&json, &options);
            prop_assert!(again.is_unchanged(), "{:?} → {}: {:?}", text, json, again.repairs);
            prop_assert_eq!(again.json.as_deref(), Some(json.as_str()));
        }
    }
}

/// `text` with every brace outside strings doubled, as a prompt template escapes them.
fn doubled(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let (mut quoted, mut escaped) = (false, false);
    for c in text.chars() {
        out.push(c);
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' | '}' if !quoted => out.push(c),
            _ => {}
        }
    }
    out
}

proptest! {
    /// `json.doubled_braces`: an object whose braces are all doubled comes back as the
    /// object, with that one repair, on both paths.
    #[test]
    fn doubled_braces_give_back_the_document(v in json_value(), pretty in any::<bool>()) {
        let v = serde_json::json!({"answer": v});
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        let expected: Value = serde_json::from_str(&text).unwrap();
        let input = doubled(&text);
        let out = repair(&input, &RepairOptions::default());
        prop_assert_eq!(out.value, Some(expected), "{}", input);
        let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
        prop_assert_eq!(codes, vec!["json.doubled_braces"]);
        let text_path = repair_to_json(&input, &RepairOptions::default());
        prop_assert_eq!(text_path.repairs, out.repairs);
    }

    /// Reasoning blocks before the answer hold no payload, whatever they hold: the answer
    /// after them comes back as it is, with only the block dropped as prose.
    #[test]
    fn reasoning_blocks_are_dropped_whatever_they_hold(
        v in json_value(),
        thought in "[ -~\n]{0,60}",
        tag in prop::sample::select(vec!["think", "thinking", "reasoning"]),
    ) {
        prop_assume!(!thought.contains("</"));
        let v = serde_json::json!({"answer": v});
        let answer = v.to_string();
        let input = format!("<{tag}>{thought}</{tag}>\n{answer}");
        let out = repair(&input, &RepairOptions::default());
        let expected: Value = serde_json::from_str(&answer).unwrap();
        prop_assert_eq!(out.value, Some(expected), "{}", input);
        let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
        prop_assert_eq!(codes, vec!["extract.prose"]);
    }
}

/// Found by the `repair` fuzz target: a document nested 128 deep (too deep for serde_json's
/// fast path, so read by the lenient parser) whose key holds `: ` and an escaped quote more
/// than a window's length before its closing quote. The colon was read as the end of a key
/// missing its closing quote, so the repaired output was repaired again.
#[test]
fn a_long_valid_key_holding_a_colon_is_read_whole() {
    converges(include_bytes!("fixtures/repair_fuzz_long_key.bin"));
    let key = format!("a: {}\\\"b", "x".repeat(400));
    let text = format!("{{\"{key}\": 1, \"c\": 2,}}");
    let (value, repairs) = parse_lenient(&text);
    assert_eq!(repairs, ["json.trailing_comma"]);
    assert_eq!(value.unwrap().as_object().unwrap().len(), 2);
}

/// Found by the property above in CI: a closed object followed by more members.
#[test]
fn closed_object_followed_by_members_agrees() {
    let text = "{}\n  \"\": [\n    null\n  ]\n}";
    for allow_unsafe in [false, true] {
        let options = RepairOptions::default().with_unsafe(allow_unsafe);
        let value = repair(text, &options);
        let out = repair_to_json(text, &options);
        assert_eq!(out.json, value.to_json(), "unsafe {allow_unsafe}");
        assert_eq!(out.repairs, value.repairs, "unsafe {allow_unsafe}");
        assert_eq!(out.diagnostics, value.diagnostics, "unsafe {allow_unsafe}");
    }
}

proptest! {
    /// Found by the `repair` fuzz target: a member's string with a comma, then more than
    /// two windows of text with characters of several bytes, then a colon. The run of
    /// plain content copied at once ended where the look-ahead window did, inside a
    /// character, and the copy of that run was lost without a record.
    #[test]
    fn a_long_value_of_wide_characters_is_read_whole(
        chars in prop::collection::vec(prop::sample::select(vec!['\u{fffd}', 'é', '€', '😀', 'x', ' ']), 300..700),
        escapes in 0usize..20,
    ) {
        let body: String = chars.into_iter().collect();
        let value = format!(",{body}{}:", "\u{0}".repeat(escapes));
        let text = serde_json::json!({"t": value, "u": "a, b: c"}).to_string();
        let (lenient, repairs) = parse_lenient(&text);
        prop_assert!(repairs.is_empty(), "{:?}", repairs);
        prop_assert_eq!(lenient, Some(serde_json::from_str::<Value>(&text).unwrap()));
    }
}

#[test]
fn the_fuzz_input_whose_window_ended_in_a_character_converges() {
    converges(include_bytes!("fixtures/repair_fuzz_window_in_char.bin"));
}

/// Repairing `bytes` (unsafe repairs allowed) and then the output again changes nothing.
fn converges(bytes: &[u8]) {
    let options = RepairOptions::default().with_unsafe(true);
    let out = rectify_repair::repair_bytes(bytes, &options);
    let text = out.to_json().unwrap();
    let again = repair(&text, &options);
    assert!(again.is_unchanged(), "{:?}", again.repairs);
    assert_eq!(again.value, out.value);
}
