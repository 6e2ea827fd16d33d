//! Fuzz target for the incremental reader and the prefix judge (`rectify_stream`, issue 40).
//! The first byte picks chunk sizes; the rest is the answer. Properties:
//!
//! - any chunking gives the same state, value and partial as one push;
//! - a value read to the end is the one serde_json reads from the same JSON text;
//! - every path said final in a partial holds the value it has in the end;
//! - the judge never dooms an answer the full judge accepts (under a fixed schema);
//! - no panic, no hang, and the reader never holds more than the text it was given.
//!
//! `cargo fuzz run stream` (from `fuzz/`).

#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use rectify_stream::{PrefixChecker, PrefixOptions, ReadState, Reader, StreamJudge, Verdict};
use serde_json::{Value, json};

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "a": {"enum": ["x", "y", 1]},
                "b": {"type": "string", "maxLength": 4},
                "c": {"type": "array", "items": {"type": "object", "required": ["d"]}}
            }
        })
    })
}

fn checker() -> &'static Arc<PrefixChecker> {
    static CHECKER: OnceLock<Arc<PrefixChecker>> = OnceLock::new();
    CHECKER.get_or_init(|| Arc::new(PrefixChecker::new(schema(), PrefixOptions::default())))
}

fuzz_target!(|data: &[u8]| {
    let Some((&step, bytes)) = data.split_first() else {
        return;
    };
    let step = usize::from(step % 16) + 1;
    let mut whole = Reader::new();
    let whole_ok = whole.push_bytes(bytes).is_ok() && whole.finish().is_ok();
    let mut chunked = Reader::new();
    let mut judge = StreamJudge::new(Arc::clone(checker()));
    let mut finals = Vec::new();
    let mut ok = true;
    let mut doomed = false;
    for chunk in bytes.chunks(step) {
        ok &= chunked.push_bytes(chunk).is_ok();
        doomed |= matches!(judge.push_bytes(chunk), Ok(Verdict::Doomed(_)));
        if let Some(partial) = chunked.partial() {
            for pointer in &partial.final_paths {
                finals.push((pointer.clone(), partial.value.pointer(pointer).cloned()));
            }
        }
    }
    ok &= chunked.finish().is_ok();
    assert_eq!(ok, whole_ok);
    if !ok {
        return;
    }
    assert!(chunked.text().len() <= bytes.len());
    assert_eq!(whole.state(), chunked.state());
    assert_eq!(whole.value(), chunked.value());
    assert_eq!(whole.partial(), chunked.partial());
    if chunked.state() == ReadState::Done {
        let value = chunked.value().cloned().unwrap_or_default();
        for (pointer, seen) in finals {
            assert_eq!(seen.as_ref(), value.pointer(&pointer), "{pointer}");
        }
    }
    if doomed && !judge.saw_repeated_key() && let Ok(judged) = rectify_judge::validate(chunked.text(), schema()) {
        assert!(!judged.is_valid(), "doomed but valid: {:?}", chunked.text());
    }
});
