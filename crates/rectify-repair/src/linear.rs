//! Repair is linear in the answer's length (issue 34, item 6), checked without a clock: the
//! work counted by [`crate::work`] — bytes located, repairs visited when candidates are left
//! out, candidates chosen between, values coerced — stays under a constant times the length,
//! for generated answers of growing size. The quadratic choice between candidates this
//! replaced visited every repair for each candidate left out: about `n² / 200` units for an
//! answer of `n` bytes of such candidates, over the bound from 100 of them on (the second
//! test fails with it at its first size).

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{RepairOptions, repair, repair_to_json, work};

/// Work allowed per byte of the answer.
const PER_BYTE: usize = 8;

/// One value of an answer, in the ways models write them: fitting the schemas below after
/// coercion or not, repaired or not, after prose or not.
fn item(kind: u8, i: usize) -> String {
    match kind % 8 {
        0 => format!("{{\"a\": \"{i}\"}}"),
        1 => format!("answer: {{'a': {i},}}"),
        2 => format!("{{'id': '{i}', status: 'DONE', tags: 'x, y'}}"),
        3 => format!("[{i}, '{i}',]"),
        4 => format!("\"{i}\""),
        5 => format!("{{a: {{b: [{{c: '{i}'}}]}}}}"),
        6 => format!("{i}"),
        _ => format!("'text {i} with \\n escapes'"),
    }
}

fn schema(which: u8) -> Option<Value> {
    let item = json!({"type": "object", "required": ["id"], "properties": {
        "id": {"type": "integer"}, "status": {"enum": ["todo", "in_progress", "done"]},
        "tags": {"type": "array", "items": {"type": "string"}}}});
    match which % 5 {
        0 => None,
        1 => Some(
            json!({"type": "object", "properties": {"a": {"type": "integer"}},
                         "required": ["a"]}),
        ),
        2 => Some(json!({"type": "array", "items": item})),
        3 => Some(json!({"type": "array", "items": {"type": "integer"}})),
        _ => Some(item),
    }
}

/// `count` items of `kinds` (taken in turn), written as candidates one after the other, as
/// an array or as an object's members, separated by `sep`.
fn answer(kinds: &[u8], count: usize, shape: u8, sep: &str) -> String {
    let items = (0..count).map(|i| item(kinds.get(i % kinds.len()).copied().unwrap_or(0), i));
    match shape % 3 {
        0 => items.collect::<Vec<_>>().join(sep),
        1 => format!("[{}]", items.collect::<Vec<_>>().join(",")),
        _ => {
            let members: Vec<String> = items
                .enumerate()
                .map(|(i, v)| format!("k{i}: {v}"))
                .collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn repair_work_is_linear_in_the_answer(
        kinds in proptest::collection::vec(0u8..8, 1..4),
        shape in 0u8..3,
        sep in prop::sample::select(vec![" ", "\n", ", ", " and "]),
        which in 0u8..5,
        allow_unsafe: bool,
    ) {
        let mut options = RepairOptions::default().with_unsafe(allow_unsafe);
        if let Some(schema) = schema(which) {
            options = options.with_schema(schema);
        }
        for count in [100, 400, 1_600] {
            let text = answer(&kinds, count, shape, sep);
            work::take();
            let out = repair(&text, &options);
            let value_path = work::take();
            drop(repair_to_json(&text, &options));
            let text_path = work::take();
            let bound = PER_BYTE * text.len();
            prop_assert!(
                value_path <= bound && text_path <= bound,
                "{count} items, {} bytes: work {value_path} (value), {text_path} (text) > {bound}; \
                 {} repairs, {} diagnostics",
                text.len(),
                out.repairs.len(),
                out.diagnostics.len(),
            );
        }
    }
}

/// The case of the issue: many candidates, each repaired, none fitting but the last, so the
/// schema alone decides and the repairs inside all the others are forgotten.
#[test]
fn candidates_left_out_are_forgotten_in_linear_work() {
    let options = RepairOptions::default().with_schema(
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
    );
    for count in [1_000, 4_000, 8_000] {
        let mut text = String::new();
        for i in 0..count {
            text.push_str("answer: {'a': ");
            text.push_str(&i.to_string());
            text.push_str(",} ");
        }
        text.push_str("{\"id\": 5}");
        work::take();
        let out = repair(&text, &options);
        let done = work::take();
        assert_eq!(out.value, Some(json!({"id": 5})));
        assert!(
            done <= PER_BYTE * text.len(),
            "{count}: {done} > 8 × {}",
            text.len()
        );
    }
}
