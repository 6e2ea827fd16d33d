//! Fuzz target for schema-guided repair (issue 12, item 8: fuzzed schemas): the bytes before
//! the first NUL are the schema (any JSON object; otherwise one of a few recursive and
//! scalar schemas, chosen by the first byte), the bytes after it the model's text.
//!
//! - no panic, and termination on every schema (libFuzzer's `-timeout` catches a hang);
//! - a value that fits is stable: its JSON, repaired again with the same schema, needs no
//!   repair and is the same value;
//! - nothing the schema changes goes unrecorded: a fitting value that differs from the one
//!   repaired without the schema carries a repair that one does not, records the choice
//!   among candidates that the schema made, or was read in the format the schema chose.
//!
//! `cargo fuzz run coerce` (from `fuzz/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rectify_repair::{RepairOptions, repair};
use serde_json::{Value, json};

fuzz_target!(|data: &[u8]| {
    let (head, tail) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b""[..], data),
    };
    let Ok(text) = std::str::from_utf8(tail) else {
        return;
    };
    let schema = schema(head, data.first().copied().unwrap_or(0));
    let options = RepairOptions::default()
        .with_unsafe(true)
        .with_schema(schema);
    let out = repair(text, &options);
    if !out.is_valid() {
        return;
    }
    let plain = repair(text, &RepairOptions::default().with_unsafe(true));
    // The schema may also choose the format: an unfenced YAML mapping for an object schema
    // is read as YAML, which the result's format says.
    if plain.value != out.value && plain.format == out.format {
        let choice = ["extract.multiple_values", "extract.schema_choice"];
        assert!(
            out.repairs
                .iter()
                .any(|r| !plain.repairs.contains(r) || choice.contains(&r.code.as_str())),
            "the schema changed {:?} into {:?} without a record: {:?}",
            plain.value,
            out.value,
            out.repairs
        );
    }
    let json = out.to_json().expect("a valid result has JSON");
    let again = repair(&json, &options);
    assert!(again.is_valid(), "a fitting value no longer fits: {json}");
    assert!(
        again.is_unchanged(),
        "a fitting value was repaired again: {json}: {:?}",
        again.repairs
    );
    assert_eq!(again.value, out.value);
});

/// The schema the head holds, or a built-in one.
fn schema(head: &[u8], pick: u8) -> Value {
    if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(head) {
        return v;
    }
    let node = json!({"type": "object", "properties": {
        "name": {"type": "string"},
        "n": {"type": ["integer", "null"]},
        "tags": {"type": "array", "items": {"enum": ["A", "B"]}},
        "next": {"$ref": "#"}}});
    match pick % 6 {
        0 => node,
        1 => json!({"type": "array", "items": {"$ref": "#"}}),
        2 => json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        3 => json!({"enum": ["ONE", "TWO", "THREE"]}),
        4 => json!({"type": "number"}),
        _ => json!({"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "done": {"type": "boolean"}}, "required": ["id"]}}),
    }
}
