//! Fuzz target for the one judge (`rectify_judge::Validator`, issue 35): the first byte picks
//! the reading (answer or file), the format, the repair policy and how the answer ended; the
//! rest is the text, judged against a small schema. Properties:
//!
//! - no panic, on any text and any choice;
//! - an answer cut off at the token limit is never valid, in any reading (the loop behind
//!   `rectify ask` and every workflow step judge through this one function);
//! - repair is kept only when it helps: a text that reads as written is never judged with
//!   more errors than as written (a text that does not read at all has no count to beat);
//! - a file's repaired text, judged again, is valid when the repair made it valid (what is
//!   written back reads back the same).
//!
//! `cargo fuzz run judge` (from `fuzz/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_core::Format;
use rectify_judge::{Ending, Reading, RepairPolicy, Validator};

fn validator(choice: u8) -> Validator {
    let schema = serde_json::json!({
        "type": "object", "required": ["id"],
        "properties": {"id": {"type": "string"}, "n": {"type": "integer"},
                       "tags": {"type": "array", "items": {"type": "string"}}}
    });
    let reading = if choice & 1 == 0 {
        Reading::Answer
    } else {
        Reading::File
    };
    let format = match (choice >> 1) & 3 {
        0 => None,
        1 => Some(Format::Json),
        2 => Some(Format::Yaml),
        _ => Some(Format::Markdown),
    };
    let policy = if choice & 8 == 0 {
        RepairPolicy::Safe
    } else {
        RepairPolicy::Unsafe
    };
    Validator::builder()
        .schema_value(schema)
        .reading(reading)
        .format(format)
        .repair(policy)
        .build()
        .expect("the schema compiles")
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let judge = validator(choice);
    let ending = match choice >> 4 {
        0 => Ending::Truncated,
        1 => Ending::Refused,
        _ => Ending::Complete,
    };
    let judged = judge.judge(text, ending);
    if ending != Ending::Complete {
        assert!(!judged.is_valid(), "a {ending:?} answer was judged valid");
    }
    let as_written = judge
        .clone()
        .with_repair(RepairPolicy::Off)
        .judge(text, ending);
    // A Markdown fence's content is judged in both; with repair off nothing else changes.
    if as_written.value.is_some() {
        assert!(
            judged.errors() <= as_written.errors(),
            "repair made it worse: {} > {}",
            judged.errors(),
            as_written.errors()
        );
    }
    if let Some(fixed) = &judged.repaired_text
        && judged.is_valid()
        && judge.format() != Some(Format::Markdown)
    {
        let again = judge.validate(fixed);
        assert!(
            again.is_valid(),
            "the written-back text does not read back: {fixed}"
        );
    }
});
