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

/// Whether the repaired `text` fits `schema` (unsafe repairs allowed).
fn fits(text: &str, schema: Value) -> bool {
    repair(
        text,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_schema(schema),
    )
    .is_valid()
}

#[test]
fn numbers_in_prose() {
    let number = json!({"type": "number"});
    let price = read("$1,250.00", number.clone()).and_then(|v| v.as_f64());
    assert_eq!(price, Some(1250.0));
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
    assert_eq!(read("\"Paris\"", string.clone()), Some(json!("Paris")));
}

#[test]
fn a_string_answer_in_a_code_fence_is_the_code() {
    let string = json!({"type": "string"});
    let safe = RepairOptions::default().with_schema(string.clone());
    // Not a call wrapper around "hi", as the JSON repair would read it.
    let out = repair("```python\nprint(\"hi\")\n```\n", &safe);
    assert_eq!(out.value, Some(json!("print(\"hi\")")));
    assert_eq!(out.repairs[0].code, "extract.code_fence");
    // A fence holding a JSON string holds that string.
    assert_eq!(
        read("```json\n\"hello\"\n```", string),
        Some(json!("hello"))
    );
}

#[test]
fn emphasis_and_a_closing_stop_are_no_part_of_a_number() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "number"}}});
    let safe = RepairOptions::default().with_schema(schema);
    for (text, n) in [
        (r#"{"n": "**36**"}"#, json!(36)),
        (r#"{"n": "12.5."}"#, json!(12.5)),
    ] {
        let out = repair(text, &safe);
        assert_eq!(out.value, Some(json!({"n": n})), "{text}");
        assert_eq!(out.repairs[0].code, "coerce.string_to_number");
    }
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

/// `n` written with a comma between groups of three digits.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

proptest! {
    /// A number with a currency sign, or with thousands separators that cannot be decimal
    /// commas, is read safely; a single group (`1,250`, maybe a decimal comma) only unsafely.
    #[test]
    fn a_formatted_number_with_one_reading_is_read_safely(
        n in 1_000u64..1_000_000_000,
        cents in 0u32..100,
        sign in "[$€£¥]",
    ) {
        let schema = json!({"properties": {"v": {"type": "number"}}});
        let safe = RepairOptions::default().with_schema(schema.clone());
        let expected = n as f64 + f64::from(cents) / 100.0;
        for written in [
            format!("{sign}{}.{cents:02}", grouped(n)),
            format!("{}.{cents:02} {sign}", grouped(n)),
            format!("{}.{cents:02}", grouped(n)),
        ] {
            let text = format!("{{\"v\": \"{written}\"}}");
            let out = repair(&text, &safe);
            let got = out.value.as_ref().and_then(|v| v["v"].as_f64());
            prop_assert!(got.is_some_and(|g| (g - expected).abs() < 1e-6), "{} {:?}", text, out.value);
            prop_assert_eq!(out.repairs[0].code.as_str(), "coerce.string_to_number");
        }
        let single = format!("{{\"v\": \"{},{:03}\"}}", n % 999 + 1, cents);
        prop_assert!(!repair(&single, &safe).is_valid(), "{}", single);
    }
}

#[test]
fn a_number_format_with_two_readings_is_not_read_safely() {
    let schema = json!({"properties": {"v": {"type": "number"}}});
    let safe = RepairOptions::default().with_schema(schema);
    // A thousands point, a decimal comma before a trailing sign, digits of another script.
    for written in ["€1.500", "1.234 €", "1,250 $", "€1,250", "$1٢3", "1,250"] {
        let text = format!("{{\"v\": \"{written}\"}}");
        let out = repair(&text, &safe);
        assert!(!out.is_valid(), "{written}: {:?}", out.value);
    }
}

#[test]
fn a_const_matches_in_another_case() {
    assert_eq!(read("HI", json!({"const": "hi"})), Some(json!("hi")));
    assert_eq!(read("Yes", json!({"const": true})), Some(json!(true)));
    assert_eq!(
        read("no", json!({"enum": [false, "maybe"]})),
        Some(json!(false))
    );
    let schema = json!({"type": "object", "properties": {"a": {"const": "hi"}}});
    assert_eq!(read(r#"{"a": "HI"}"#, schema), Some(json!({"a": "hi"})));
}

#[test]
fn fractions_read_as_their_value() {
    let number = json!({"type": "number"});
    assert_eq!(read("1/5", number.clone()), Some(json!(0.2)));
    assert_eq!(read("8 / 10", number.clone()), Some(json!(0.8)));
    assert_eq!(read("3/4 cup", number.clone()), Some(json!(0.75)));
    assert_eq!(read("about 6/3", number.clone()), Some(json!(2)));
    // A date, a fraction beside another number, a zero denominator: nothing.
    assert_eq!(read("12/05/2024", number.clone()), None);
    assert_eq!(read("1/2 of 10", number.clone()), None);
    assert_eq!(read("1/0", number.clone()), None);
    let integer = json!({"type": "integer"});
    assert_eq!(read("3/4", integer.clone()), None);
    assert_eq!(read("8/4", integer), Some(json!(2)));
    let field = json!({"properties": {"rating": {"type": "number"}}});
    assert_eq!(
        read(r#"{"rating": 8/10}"#, field),
        Some(json!({"rating": 0.8}))
    );
}

#[test]
fn a_union_of_scalars_reads_the_text_by_its_first_branch_that_reads() {
    let schema = json!({"anyOf": [{"type": "integer"}, {"type": "string"}]});
    assert_eq!(read("hello", schema.clone()), Some(json!("hello")));
    assert_eq!(read("about 7 km", schema.clone()), Some(json!(7)));
    assert_eq!(read("12", schema), Some(json!(12)));
}

#[test]
fn a_union_takes_the_branch_that_changes_least() {
    // Rounding is unsafe and loses the fraction; the number's text keeps it.
    let int_or_string =
        json!({"properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}});
    assert_eq!(
        read(r#"{"v": 3.14}"#, int_or_string),
        Some(json!({"v": "3.14"}))
    );
    // Items written as strings beat the list's JSON text in one string (unsafe).
    let string_or_list = json!({"properties": {"v": {"anyOf": [
        {"type": "string"},
        {"type": "array", "items": {"type": "string"}}
    ]}}});
    assert_eq!(
        read(r#"{"v": [1, 2]}"#, string_or_list),
        Some(json!({"v": ["1", "2"]}))
    );
    // A tie goes to the first branch.
    let either = json!({"anyOf": [{"type": "integer"}, {"type": "number"}]});
    assert_eq!(read(r#""5""#, either), Some(json!(5)));
}

#[test]
fn a_required_property_left_out_is_empty_only_with_unsafe() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "any": {},
            "nick": {"type": "string", "default": "none"},
            "some": {"type": "array", "minItems": 1}
        },
        "required": ["name", "age", "tags"]
    });
    assert_eq!(
        read(r#"{"name": "Ada"}"#, schema.clone()),
        Some(json!({"name": "Ada", "age": null, "tags": []}))
    );
    let safe = repair(
        r#"{"name": "Ada"}"#,
        &RepairOptions::default().with_schema(schema.clone()),
    );
    assert_eq!(safe.value, Some(json!({"name": "Ada"})));
    assert!(!safe.is_valid());
    assert!(
        safe.diagnostics
            .iter()
            .any(|d| d.code == "repair.schema_mismatch")
    );
    // A property whose schema takes anything, has only a default, or wants a list that
    // may not be empty, is not filled.
    for other in ["any", "nick", "some"] {
        let mut wider = schema.clone();
        wider["required"] = json!(["name", other]);
        assert!(!fits(r#"{"name": "Ada"}"#, wider), "{other}");
    }
}

#[test]
fn a_list_of_one_answer_is_the_answer() {
    let schema = json!({"enum": ["ONE", "TWO"]});
    assert_eq!(read(r#"["two"]"#, schema.clone()), Some(json!("TWO")));
    // Several: which one would be a guess; the list is kept, and does not fit.
    assert!(!fits(r#"["ONE", "TWO"]"#, schema));
    let object = json!({"type": "object", "properties": {"key": {"type": "string"}}});
    assert_eq!(
        read(r#"[{"key": "value"}]"#, object.clone()),
        Some(json!({"key": "value"}))
    );
    assert!(!fits(r#"[{"key": "a"}, {"key": "b"}]"#, object));
}

#[test]
fn an_enum_value_with_a_description_in_a_field() {
    let schema = json!({"properties": {"a": {"enum": ["ONE", "TWO"]}}});
    assert_eq!(
        read(r#"{"a": "One: the first"}"#, schema.clone()),
        Some(json!({"a": "ONE"}))
    );
    assert_eq!(
        read(r#"{"a": "**two**"}"#, schema.clone()),
        Some(json!({"a": "TWO"}))
    );
    let out = repair(
        r#"{"a": "ONE or TWO"}"#,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_schema(schema),
    );
    assert!(!out.is_valid());
}

#[test]
fn a_string_target_takes_objects_as_their_text() {
    let string = json!({"type": "string"});
    assert_eq!(
        read(r#"{"key": "value"}"#, string.clone()),
        Some(json!(r#"{"key": "value"}"#))
    );
    assert_eq!(read("[1, 2]", string), Some(json!("[1, 2]")));
    let field = json!({"properties": {"a": {"type": "string"}}});
    assert_eq!(
        read(r#"{"a": {"b": [1, "c"]}}"#, field),
        Some(json!({"a": r#"{"b":[1,"c"]}"#}))
    );
}

#[test]
fn integers_are_rounded_only_when_unsafe_is_allowed() {
    let schema = json!({"properties": {"n": {"type": "integer"}}});
    assert_eq!(read(r#"{"n": 1.5}"#, schema.clone()), Some(json!({"n": 2})));
    assert_eq!(
        read(r#"{"n": -2.5}"#, schema.clone()),
        Some(json!({"n": -3}))
    );
    assert_eq!(
        read(r#"{"n": "3.2"}"#, schema.clone()),
        Some(json!({"n": 3}))
    );
    let safe = repair(
        r#"{"n": 1.5}"#,
        &RepairOptions::default().with_schema(schema),
    );
    assert!(safe.value.is_none());
    assert!(safe.diagnostics.iter().any(|d| d.code == "repair.unsafe"));
    // A string is allowed too: the number is kept, as its text.
    let either = json!({"properties": {"n": {"type": ["integer", "string"]}}});
    assert_eq!(read(r#"{"n": 1.5}"#, either), Some(json!({"n": "1.5"})));
}

#[test]
fn a_one_member_wrapper_around_a_scalar_answer() {
    let schema = json!({"enum": ["ONE", "TWO"]});
    assert_eq!(read(r#"{"answer": "two"}"#, schema), Some(json!("TWO")));
    assert_eq!(
        read(r#"{"count": 3}"#, json!({"type": "integer"})),
        Some(json!(3))
    );
    // Two members: which one is the answer would be a guess.
    assert!(!fits(r#"{"a": 3, "b": 4}"#, json!({"type": "integer"})));
    // A list wrapped in an object, where the list is wanted.
    let list = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(
        read(r#"{"items": ["a", "b"]}"#, list.clone()),
        Some(json!(["a", "b"]))
    );
    assert!(!fits(r#"{"items": ["a"], "more": ["b"]}"#, list));
    // Any string takes the object's text.
    assert_eq!(
        read(r#"{"answer": "two"}"#, json!({"type": "string"})),
        Some(json!(r#"{"answer": "two"}"#))
    );
}

#[test]
fn booleans_as_strings_and_strings_as_booleans_in_fields() {
    let string = json!({"properties": {"x": {"type": "string"}}});
    assert_eq!(read(r#"{"x": false}"#, string), Some(json!({"x": "false"})));
    let boolean = json!({"properties": {"done": {"type": "boolean"}}});
    assert_eq!(
        read(r#"{"done": "**Yes**"}"#, boolean.clone()),
        Some(json!({"done": true}))
    );
    assert_eq!(
        read(r#"{"done": "I think it is false"}"#, boolean.clone()),
        Some(json!({"done": false}))
    );
    assert!(!fits(r#"{"done": "true or false"}"#, boolean));
}

#[test]
fn an_unfenced_yaml_mapping_for_an_object_schema() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "age": {"type": "integer"}}});
    assert_eq!(
        read("name: John\nage: 30", schema.clone()),
        Some(json!({"name": "John", "age": 30}))
    );
    // Keys are matched as coercion matches them: in another case too.
    assert_eq!(
        read("Name: John\nAGE: 30", schema.clone()),
        Some(json!({"name": "John", "age": 30}))
    );
    // Prose lines around the YAML, and a reasoning block before it, are dropped, recorded.
    let out = repair(
        "<think>hm</think>\nHere is the result:\nname: Ada\nage: 36\n\nAnything else?",
        &RepairOptions::default().with_schema(schema.clone()),
    );
    assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})));
    let dropped: Vec<(&str, &str)> = out
        .repairs
        .iter()
        .map(|r| (r.code.as_str(), r.before.as_str()))
        .collect();
    assert_eq!(
        dropped,
        [
            ("extract.prose", "<think>hm</think>\nHere is the result:"),
            ("extract.prose", "Anything else?")
        ]
    );
    // Markdown around the keys, and bullets before an object's fields, are formatting.
    for text in [
        "Here you go:\n**Name:** Ada\n**Age:** 36",
        "- **name**: Ada\n- **age**: 36",
        "- name: Ada\n- age: 36",
    ] {
        let out = repair(text, &RepairOptions::default().with_schema(schema.clone()));
        assert_eq!(out.value, Some(json!({"name": "Ada", "age": 36})), "{text}");
        assert!(
            out.repairs.iter().any(|r| r.code == "yaml.markdown_keys"),
            "{text}"
        );
    }
    // A YAML sequence of mappings for an array of objects.
    let people = json!({"type": "array", "items": schema.clone()});
    assert_eq!(
        read("- name: Ada\n  age: 36\n- name: Bob\n  age: 40", people),
        Some(json!([{"name": "Ada", "age": 36}, {"name": "Bob", "age": 40}]))
    );
    // Prose with a colon shares no key with the schema: no payload.
    assert_eq!(read("Note: nothing was found", schema.clone()), None);
    // A flow mapping is JSON: one that needs an unsafe repair is refused, not read as YAML.
    let unsafe_json = "{\"name\": John Smith, Jr., \"age\": 30}";
    let refused = repair(
        unsafe_json,
        &RepairOptions::default().with_schema(schema.clone()),
    );
    assert!(refused.value.is_none());
    assert!(
        refused
            .diagnostics
            .iter()
            .any(|d| d.code == "repair.unsafe")
    );
    // Without a schema, prose is never read as YAML.
    assert_eq!(
        repair(
            "name: John\nage: 30",
            &RepairOptions::default().with_unsafe(true)
        )
        .value,
        None
    );
}

#[test]
fn words_for_nothing_are_null_where_null_is_allowed() {
    let schema = json!({"properties": {"n": {"type": ["integer", "null"]}}});
    for word in ["N/A", "", "none", "Unknown.", "-"] {
        let text = json!({ "n": word }).to_string();
        assert_eq!(
            read(&text, schema.clone()),
            Some(json!({"n": null})),
            "{word}"
        );
    }
    let branch = json!({"properties": {"n": {"anyOf": [{"type": "number"}, {"type": "null"}]}}});
    assert_eq!(read(r#"{"n": "n/a"}"#, branch), Some(json!({"n": null})));
    // A string is allowed: the word is kept. Null is not allowed: nothing is read.
    let string = json!({"properties": {"s": {"type": ["string", "null"]}}});
    assert_eq!(read(r#"{"s": "none"}"#, string), Some(json!({"s": "none"})));
    assert!(!fits(
        r#"{"n": "N/A"}"#,
        json!({"properties": {"n": {"type": "integer"}}})
    ));
}

#[test]
fn comma_separated_numbers_and_enum_values_in_a_field() {
    let ints = json!({"properties": {"ids": {"type": "array", "items": {"type": "integer"}}}});
    assert_eq!(
        read(r#"{"ids": "1, 2, 3"}"#, ints.clone()),
        Some(json!({"ids": [1, 2, 3]}))
    );
    // An item that does not fit: the string is not split.
    assert!(!fits(r#"{"ids": "1, two"}"#, ints));
    let colours =
        json!({"properties": {"c": {"type": "array", "items": {"enum": ["RED", "GREEN"]}}}});
    assert_eq!(
        read(r#"{"c": "red, Green"}"#, colours),
        Some(json!({"c": ["RED", "GREEN"]}))
    );
    // Strings may hold commas: the value is wrapped whole.
    let names = json!({"properties": {"n": {"type": "array", "items": {"type": "string"}}}});
    assert_eq!(
        read(r#"{"n": "Smith, John"}"#, names),
        Some(json!({"n": ["Smith, John"]}))
    );
}

#[test]
fn loosely_written_embedded_json_and_numbers_with_scales() {
    let object = json!({"properties": {"o": {"type": "object"}}});
    assert_eq!(
        read(r#"{"o": "{'a': 1, 'b': [true,],}"}"#, object),
        Some(json!({"o": {"a": 1, "b": [true]}}))
    );
    let number = json!({"type": "number"});
    assert_eq!(read("1.5k", number.clone()), Some(json!(1500)));
    assert_eq!(
        read("$2.4 billion", number.clone()),
        Some(json!(2_400_000_000_i64))
    );
    assert_eq!(
        read("about 3 million people", number.clone()),
        Some(json!(3_000_000))
    );
    assert_eq!(read("42 kg", number.clone()), Some(json!(42)));
    // `m` may be metres: nothing is read.
    assert_eq!(read("5 m", number), None);
    let numbered = json!({"properties": {"k": {"enum": ["1", "2"]}}});
    assert_eq!(read(r#"{"k": 2}"#, numbered), Some(json!({"k": "2"})));
}

proptest! {
    /// A fraction alone in the text reads as its quotient; with a second slash it is a
    /// date or a path and reads nothing.
    #[test]
    fn fractions_read_as_quotients(a in -1000i64..1000, b in 1i64..1000, c in 1i64..3000) {
        let number = json!({"type": "number"});
        let got = read(&format!("{a}/{b}"), number.clone()).and_then(|v| v.as_f64());
        #[allow(clippy::cast_precision_loss)]
        let want = a as f64 / b as f64;
        prop_assert!(got.is_some_and(|g| (g - want).abs() < 1e-9), "{a}/{b}: {got:?}");
        prop_assert_eq!(read(&format!("{a}/{b}/{c}"), number), None);
    }

    /// Any allowed value in a list of one reads as that value.
    #[test]
    fn a_list_of_one_enum_value_is_the_value(i in 0usize..4) {
        let allowed = ["red", "GREEN", "Blue sky", "in_progress"];
        let schema = json!({"enum": allowed});
        let text = serde_json::to_string(&[allowed[i]]).unwrap();
        prop_assert_eq!(read(&text, schema), Some(json!(allowed[i])));
    }
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
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
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

#[test]
fn a_value_alone_goes_into_the_one_property_wanted() {
    let answer = json!({"type": "object", "properties": {"answer": {"type": "string"}},
        "required": ["answer"]});
    let items = json!({"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "string"}}}});
    let value = json!({"type": "object", "properties": {"value": {"type": "integer"}}});
    assert_eq!(
        read("\"Hello\"", answer.clone()),
        Some(json!({"answer": "Hello"}))
    );
    assert_eq!(
        read("Hello world", answer.clone()),
        Some(json!({"answer": "Hello world"}))
    );
    assert_eq!(
        read("[\"a\", \"b\"]", items.clone()),
        Some(json!({"items": ["a", "b"]}))
    );
    assert_eq!(
        read("- a\n- b", items.clone()),
        Some(json!({"items": ["a", "b"]}))
    );
    assert_eq!(read("42", value.clone()), Some(json!({"value": 42})));
    // Unsafe: the key is the schema's guess, not the model's.
    let refused = repair("42", &RepairOptions::default().with_schema(value.clone()));
    assert_eq!(refused.value, None);
    // A value the property does not take, an object, or a schema of several properties:
    // nothing is wrapped.
    assert!(!fits("[1, 2]", value.clone()));
    let object = json!({"type": "object", "properties": {"key": {"type": "string"}}});
    assert!(!fits(r#"["a", "b"]"#, object));
    assert_eq!(
        read("{\"other\": 1}", value).map(|v| v["value"].clone()),
        Some(Value::Null)
    );
    let two = json!({"type": "object", "properties": {"a": {"type": "integer"},
        "b": {"type": "integer"}}, "required": ["a", "b"]});
    assert!(!fits("42", two));
}
