//! Non-container schema roots: the answer's text itself is a candidate (issue 12, item 7).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
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
    let status = json!({"enum": ["PENDING_REVIEW", "DONE"]});
    assert_eq!(
        read("The status is pending review.", status.clone()),
        Some(json!("PENDING_REVIEW"))
    );
    assert_eq!(read("It is pending-review or done", status), None);
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
    assert_eq!(read("maybe", boolean.clone()), None);
    assert_eq!(
        read("The answer is true.", boolean.clone()),
        Some(json!(true))
    );
    assert_eq!(read("**False**", boolean.clone()), Some(json!(false)));
    assert_eq!(read("not true, but false", boolean), None);
    let string = json!({"type": "string"});
    assert_eq!(read("  Paris  ", string.clone()), Some(json!("Paris")));
    assert_eq!(read("\"Paris\"", string), Some(json!("Paris")));
}

#[test]
fn a_number_with_thousands_separators_is_one_number() {
    // Read as JSON, `1,234.5` is the candidates 1 and 234.5, and 1 fits a number: the text,
    // one number as written, wins.
    let number = json!({"type": "number"});
    assert_eq!(read("1,234.5", number.clone()), Some(json!(1234.5)));
    assert_eq!(read("-1,234.5", number), Some(json!(-1234.5)));
    assert_eq!(
        read("12,000", json!({"type": "integer"})),
        Some(json!(12000))
    );
    // An array of numbers still takes the list.
    let list = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(read("1,234", list), Some(json!([1, 234])));
}

#[test]
fn a_const_matches_in_another_case() {
    assert_eq!(read("HI", json!({"const": "hi"})), Some(json!("hi")));
    let schema = json!({"type": "object", "properties": {"a": {"const": "hi"}}});
    assert_eq!(read(r#"{"a": "HI"}"#, schema), Some(json!({"a": "hi"})));
}

proptest! {
    /// Any number written with thousands separators, a sign and decimals reads as itself.
    #[test]
    fn thousands_separated_numbers_read_as_written(
        n in 1_000i64..1_000_000_000_000,
        cents in 0u32..100,
        negative in any::<bool>(),
    ) {
        let digits = n.to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        let sign = if negative { "-" } else { "" };
        let text = format!("{sign}{grouped}.{cents:02}");
        let want: f64 = format!("{sign}{n}.{cents:02}").parse().unwrap();
        let got = read(&text, json!({"type": "number"})).and_then(|v| v.as_f64());
        prop_assert_eq!(got, Some(want), "{}", text);
    }
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
