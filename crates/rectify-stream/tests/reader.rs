//! The incremental reader: any chunking reads the same value as one push, final paths never
//! change, bad input stops it cleanly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::{RepairOptions, repair};
use rectify_stream::{Keys, ReadState, Reader, ReaderOptions, StreamError};
use serde_json::{Value, json};

fn read_in(text: &str, cuts: &[usize]) -> Reader {
    let mut reader = Reader::new();
    let mut from = 0;
    for &cut in cuts {
        let cut = cut.clamp(from, text.len());
        reader.push_bytes(&text.as_bytes()[from..cut]).unwrap();
        from = cut;
    }
    reader.push_bytes(&text.as_bytes()[from..]).unwrap();
    reader.finish().unwrap();
    reader
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-zA-Z0-9 é€😀\\\\\"\n\t/]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"é]{0,5}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn container() -> impl Strategy<Value = Value> {
    json_value().prop_map(|v| match v {
        v @ (Value::Array(_) | Value::Object(_)) => v,
        other => json!({"v": other}),
    })
}

fn wrapped(value: &Value, style: u8) -> String {
    match style % 4 {
        0 => serde_json::to_string(value).unwrap(),
        1 => serde_json::to_string_pretty(value).unwrap(),
        2 => format!(
            "```json\n{}\n```\n",
            serde_json::to_string_pretty(value).unwrap()
        ),
        _ => format!(
            "  \n{} trailing words",
            serde_json::to_string(value).unwrap()
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any chunking of a JSON answer reads the value one parse reads (serde_json's, and the
    /// repair's), and every path said final holds its final value.
    #[test]
    fn any_chunking_reads_the_whole_value(
        value in container(),
        style in any::<u8>(),
        mut cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let text = wrapped(&value, style);
        let mut cuts: Vec<usize> = cuts.drain(..).map(|i| i.index(text.len() + 1)).collect();
        cuts.sort_unstable();
        let mut reader = Reader::new();
        let mut from = 0;
        for cut in cuts {
            reader.push_bytes(&text.as_bytes()[from..cut]).unwrap();
            from = cut;
            if let Some(partial) = reader.partial() {
                for pointer in &partial.final_paths {
                    prop_assert_eq!(partial.value.pointer(pointer), value.pointer(pointer), "{}", pointer);
                }
            }
        }
        reader.push_bytes(&text.as_bytes()[from..]).unwrap();
        reader.finish().unwrap();
        prop_assert_eq!(reader.state(), ReadState::Done);
        prop_assert_eq!(reader.value(), Some(&value));
        let repaired = repair(&text, &RepairOptions::default()).value;
        prop_assert_eq!(repaired.as_ref(), Some(&value));
    }

    /// The reader agrees with serde_json on JSON with one edit (an escape, a number, a
    /// comma or a bracket put in or taken out): what serde_json reads whole (a container),
    /// the reader reads to the same value; whenever the reader says it is done, its value is
    /// there (values are built from the text only when asked for, so nothing it let through
    /// may be refused then).
    #[test]
    fn the_reader_agrees_with_serde_json(
        value in container(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..3,
        edit in prop::sample::select(vec![
            "", ",", "]", "}", "[", "{", "\\", "\"", "\\ud800", "\\udc00x", "\\ud83d\\ude00",
            "\\u00e9", "\\x", "\\u12", "01", "1.", "-", "1e5", "-0.5E-3", "+1", "1.2.3", "tru",
            "null", " ", "\u{1}",
        ]),
    ) {
        let mut text = serde_json::to_string(&value).unwrap();
        let mut i = at.index(text.len() + 1);
        while !text.is_char_boundary(i) { i -= 1; }
        let mut end = (i + cut).min(text.len());
        while !text.is_char_boundary(end) { end += 1; }
        text.replace_range(i..end, edit);
        let reader = read_in(&text, &[text.len() / 2]);
        if reader.state() == ReadState::Done {
            prop_assert!(reader.value().is_some(), "{:?}", text);
        }
        if let Ok(whole) = serde_json::from_str::<Value>(&text)
            && (whole.is_object() || whole.is_array())
        {
            prop_assert_eq!(reader.state(), ReadState::Done, "{:?}", text);
            prop_assert_eq!(reader.value(), Some(&whole), "{:?}", text);
        }
    }

    /// Any text, any chunking: the same state, value and partial as one push.
    #[test]
    fn chunking_never_changes_what_is_read(
        text in "[{}\\[\\]\",:a-z0-9 \n`\\\\é-]{0,80}",
        cuts in prop::collection::vec(0usize..100, 0..10),
    ) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        let whole = read_in(&text, &[]);
        let chunked = read_in(&text, &cuts);
        prop_assert_eq!(whole.state(), chunked.state());
        prop_assert_eq!(whole.value(), chunked.value());
        prop_assert_eq!(whole.partial(), chunked.partial());
    }
}

#[test]
fn a_partial_holds_the_string_in_progress_and_leaves_numbers_out() {
    let mut reader = Reader::new();
    reader.push(r#"{"a": [1, 2], "b": "he\u00e9l"#).unwrap();
    let partial = reader.partial().unwrap();
    assert_eq!(partial.value, json!({"a": [1, 2], "b": "heél"}));
    assert_eq!(partial.in_progress.as_deref(), Some("/b"));
    assert!(partial.is_final("/a/1") && !partial.is_final("/b"));
    reader.push(r#"lo", "n": 12"#).unwrap();
    let partial = reader.partial().unwrap();
    assert_eq!(partial.value, json!({"a": [1, 2], "b": "heéllo"}));
    // A cut escape is left out until it is whole.
    let mut reader = Reader::new();
    reader.push(r#"["x\u00"#).unwrap();
    assert_eq!(reader.partial().unwrap().value, json!(["x"]));
}

#[test]
fn with_last_wins_keys_nothing_in_an_object_is_final_before_it_closes() {
    let mut reader = Reader::with_options(ReaderOptions {
        keys: Keys::LastWins,
        ..ReaderOptions::default()
    });
    reader.push(r#"[[1], {"a": 1, "b": [2"#).unwrap();
    let partial = reader.partial().unwrap();
    assert_eq!(partial.final_paths, vec!["/0".to_owned()]);
}

#[test]
fn prose_first_is_read_but_not_judgeable() {
    let mut reader = Reader::new();
    reader.push("Here you are:\n{\"a\": 1}").unwrap();
    assert_eq!(reader.value(), Some(&json!({"a": 1})));
    assert!(!reader.judgeable());
    let mut reader = Reader::new();
    reader.push("```json\n{\"a\": 1}").unwrap();
    assert!(reader.judgeable());
}

#[test]
fn loose_json_stops_the_reader_with_a_reason() {
    for text in [
        "{'a': 1}",
        "{a: 1}",
        "{\"a\": True}",
        "{\"a\": 01}",
        "{\"a\": \"x\ny\"}",
        "[1 2]",
        "{\"a\" 1}",
        "[\"\\q\"]",
    ] {
        let reader = read_in(text, &[]);
        let ReadState::GaveUp(why) = reader.state() else {
            panic!("{text:?} read as {:?}", reader.state())
        };
        assert!(why.contains("byte"), "{why}");
        assert_eq!(reader.text(), text);
    }
}

#[test]
fn deep_nesting_gives_up_without_overflowing() {
    let mut reader = Reader::new();
    for _ in 0..10_000 {
        reader.push("[{\"a\":").unwrap();
    }
    assert_eq!(
        reader.state(),
        ReadState::GaveUp("the value nests deeper than 256 levels".into())
    );
    // 255 levels read and the partial built without recursion trouble.
    let mut reader = Reader::new();
    reader.push(&"[".repeat(255)).unwrap();
    reader.push(&"]".repeat(255)).unwrap();
    assert_eq!(reader.state(), ReadState::Done);
}

#[test]
fn too_much_text_is_an_error_and_nothing_more_is_kept() {
    let mut reader = Reader::with_options(ReaderOptions {
        max_bytes: 16,
        ..ReaderOptions::default()
    });
    reader.push("[\"0123456789").unwrap();
    assert_eq!(
        reader.push("0123456789"),
        Err(StreamError::TooLarge { limit: 16 })
    );
    assert_eq!(reader.text().len(), 12);
}

#[test]
fn utf8_split_across_chunks_is_joined_and_bad_bytes_are_errors() {
    let text = "{\"k\": \"é€😀\"}";
    let cuts: Vec<usize> = (1..text.len()).collect();
    let reader = read_in(text, &cuts);
    assert_eq!(reader.value(), Some(&json!({"k": "é€😀"})));
    let mut reader = Reader::new();
    reader.push_bytes(b"{\"k\": \"").unwrap();
    assert_eq!(
        reader.push_bytes(b"\xc3\x28"),
        Err(StreamError::InvalidUtf8 { offset: 7 })
    );
    let mut reader = Reader::new();
    reader.push_bytes(b"[\"\xe2\x82").unwrap();
    assert_eq!(reader.finish(), Err(StreamError::InvalidUtf8 { offset: 2 }));
}

#[test]
fn garbage_never_panics_or_hangs() {
    let mut reader = Reader::new();
    for i in 0..2_000u32 {
        let byte = (i.wrapping_mul(2_654_435_761) >> 24) as u8;
        let _ = reader.push_bytes(&[byte]);
        let _ = reader.partial();
    }
}
