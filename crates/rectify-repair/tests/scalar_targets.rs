//! Non-container schema roots: the answer's text itself is a candidate (issue 12, item 7).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify_repair::{RepairOptions, repair};
use serde_json::{Value, json};

fn read(text: &str, schema: Value) -> Option<Value> {
    repair(
        text,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_schema(schema),
    )
    .value
}

#[test]
fn numbers_in_prose() {
    let number = json!({"type": "number"});
    assert_eq!(read("$1,250.00", number.clone()), Some(json!(1250.0)));
    assert_eq!(read("about 7 km", number.clone()), Some(json!(7)));
    assert_eq!(read("-3.5", number.clone()), Some(json!(-3.5)));
    assert_eq!(read("3 out of 4", number), None);
    let integer = json!({"type": "integer"});
    assert_eq!(read("€ 1,000", integer.clone()), Some(json!(1000)));
    assert_eq!(read("2.5 apples", integer), None);
}

#[test]
fn enums_named_in_prose() {
    let schema = json!({"enum": ["ONE", "TWO", "THREE"]});
    assert_eq!(
        read("The answer is TWO.", schema.clone()),
        Some(json!("TWO"))
    );
    assert_eq!(read("three", schema.clone()), Some(json!("THREE")));
    assert_eq!(
        read("ONE: the first option", schema.clone()),
        Some(json!("ONE"))
    );
    assert_eq!(read("ONE or TWO", schema.clone()), None);
    assert_eq!(read("TWOFOLD", schema), None);
    assert_eq!(read("yes, 5", json!({"const": 5})), Some(json!(5)));
}

#[test]
fn booleans_and_strings() {
    let boolean = json!({"type": "boolean"});
    assert_eq!(read("Yes", boolean.clone()), Some(json!(true)));
    assert_eq!(read("False", boolean.clone()), Some(json!(false)));
    assert_eq!(read("maybe", boolean), None);
    let string = json!({"type": "string"});
    assert_eq!(read("  Paris  ", string.clone()), Some(json!("Paris")));
    assert_eq!(read("\"Paris\"", string), Some(json!("Paris")));
}

#[test]
fn unsafe_readings_need_permission() {
    let out = repair(
        "The answer is TWO.",
        &RepairOptions::default().with_schema(json!({"enum": ["ONE", "TWO"]})),
    );
    assert!(out.value.is_none());
    assert!(out.diagnostics.iter().any(|d| d.code == "repair.unsafe"));
    assert_eq!(out.repairs[0].code, "coerce.text_as_enum");
}
