//! JavaScript-flavoured values models write: regular expression literals, mixed single
//! quotes (`` `foo´ ``), calls with no argument, a sign set apart from `Infinity`, a
//! string whose closing quote was lost before a last element or a concatenation, an
//! inner quote in a lone string, calls of several arguments, `=` for a colon, comments
//! inside a concatenation and a lone string escaped twice.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::{RepairOptions, repair};
use serde_json::{Value, json};

fn fixed(text: &str) -> (Option<Value>, Vec<String>) {
    let out = repair(text, &RepairOptions::default().with_unsafe(true));
    (out.value, out.repairs.into_iter().map(|r| r.code).collect())
}

#[test]
fn a_regex_literal_is_its_text() {
    let (value, codes) = fixed(r#"{"pattern": /^[a-z\/]+$/gi, "n": 1}"#);
    assert_eq!(value, Some(json!({"pattern": r"/^[a-z\/]+$/gi", "n": 1})));
    assert_eq!(codes, ["json.regex_literal"]);
    assert_eq!(fixed("/[a-z]_/").0, Some(json!("/[a-z]_/")));
    assert_eq!(fixed("[/[/]/, 2]").0, Some(json!(["/[/]/", 2])));
}

#[test]
fn slashes_that_are_not_a_literal_stay_what_they_were() {
    // A path goes on after its second slash: unquoted text, not a literal.
    let (value, codes) = fixed("{\"path\": /usr/bin/env}");
    assert_eq!(value, Some(json!({"path": "/usr/bin/env"})));
    assert!(
        !codes.contains(&"json.regex_literal".to_owned()),
        "{codes:?}"
    );
    // Comments are comments.
    assert_eq!(fixed("{\"a\": 1 /* two */}").0, Some(json!({"a": 1})));
    assert_eq!(fixed("{\"a\": 1 // two\n}").0, Some(json!({"a": 1})));
}

#[test]
fn a_backtick_string_closes_at_any_single_quote_that_ends_the_value() {
    assert_eq!(fixed("`foo´").0, Some(json!("foo")));
    assert_eq!(fixed("`foo'").0, Some(json!("foo")));
    assert_eq!(fixed("{`a´:`b´}").0, Some(json!({"a": "b"})));
    assert_eq!(fixed("{\u{2018}a':\u{2018}b`}").0, Some(json!({"a": "b"})));
}

#[test]
fn other_single_quotes_inside_a_backtick_string_are_content() {
    assert_eq!(
        fixed("[`single quote: '`, `it's ok`, `users' list`]").0,
        Some(json!(["single quote: '", "it's ok", "users' list"]))
    );
    // A plain single-quoted string still closes only at `'`.
    assert_eq!(fixed("['a`b']").0, Some(json!(["a`b"])));
}

#[test]
fn a_call_with_no_argument_is_null() {
    let (value, codes) = fixed("{\"n\": new NumberInt(), \"d\": Date( )}");
    assert_eq!(value, Some(json!({"n": null, "d": null})));
    assert_eq!(codes, ["json.call_wrapper", "json.call_wrapper"]);
    assert_eq!(fixed("{\"n\": NumberLong(3)}").0, Some(json!({"n": 3})));
}

#[test]
fn a_sign_apart_from_infinity_is_still_non_finite() {
    assert_eq!(fixed("- Infinity").0, Some(Value::Null));
    assert_eq!(fixed("[+ NaN, 1]").0, Some(json!([null, 1])));
    assert_eq!(fixed("- Infinity rocks").0, Some(json!("- Infinity rocks")));
}

#[test]
fn a_lost_quote_before_a_last_number_ends_the_string_there() {
    let (value, codes) = fixed("[\"https://www.bible.com/,2]");
    assert_eq!(value, Some(json!(["https://www.bible.com/", 2])));
    assert!(
        codes.contains(&"json.missing_closing_quote".to_owned()),
        "{codes:?}"
    );
    // Words after the comma are the string's own: nothing says the quote was lost there.
    assert_eq!(fixed("[\"hello, world]").0, Some(json!(["hello, world"])));
    // Cut off (no closing bracket): the whole rest is the string.
    assert_eq!(fixed("[\"a, 2").0, Some(json!(["a, 2"])));
}

#[test]
fn strings_that_end_with_a_comma_are_valid_as_they_stand() {
    // Found by the `repair` fuzz target: the lenient parser read the quote after `,` as
    // the start of the next element, although the value ends right after it.
    for text in [
        r#"["",",",",",":"]"#,
        r#"{"a": "x,", "b": "y,"}"#,
        r#"[",", "b"]"#,
    ] {
        let (value, codes) = rectify_repair::testing::parse_lenient(text);
        assert!(codes.is_empty(), "{text}: {codes:?}");
        assert_eq!(value, serde_json::from_str(text).ok());
    }
    // The lost quote it is there for is still found.
    assert_eq!(fixed(r#"["one, "two"]"#).0, Some(json!(["one", "two"])));
    assert_eq!(
        fixed(r#"{"a": "x, "b": "y"}"#).0,
        Some(json!({"a": "x", "b": "y"}))
    );
}

#[test]
fn a_quote_lost_before_a_concatenation_ends_the_first_part() {
    for (text, want) in [
        (r#"["abc+/*note*/"def"]"#, json!(["abcdef"])),
        (r#"["abc/*note*/+"def"]"#, json!(["abcdef"])),
        ("\"hello +\n \" world\"", json!("hello world")),
        (r#"{"a": "x +"y", "b": 1}"#, json!({"a": "xy", "b": 1})),
        (r#""abc +"def""#, json!("abcdef")),
    ] {
        let (value, codes) = fixed(text);
        assert_eq!(value, Some(want), "{text}");
        assert!(
            codes.contains(&"json.missing_closing_quote".to_owned()),
            "{text}: {codes:?}"
        );
        assert!(
            codes.contains(&"json.string_concatenation".to_owned()),
            "{text}: {codes:?}"
        );
    }
}

#[test]
fn a_concatenation_cut_off_drops_its_marker() {
    assert_eq!(fixed("\"hello +").0, Some(json!("hello")));
    assert_eq!(fixed("[\"hello +]").0, Some(json!(["hello"])));
    assert_eq!(fixed("[\"hello\" +]").0, Some(json!(["hello"])));
    // A `+` that is part of a word stays.
    assert_eq!(fixed("\"I love C++").0, Some(json!("I love C++")));
}

#[test]
fn a_plus_before_a_quote_that_is_content_stays() {
    // A doubled quote after `+`, and a `+` glued to the text, are not concatenations.
    let (value, _) = fixed(r#"{"traits": ''aged 60+'', "n": 1}"#);
    assert_eq!(value, Some(json!({"traits": "aged 60+", "n": 1})));
    let (value, codes) = rectify_repair::testing::parse_lenient(r#"["a +", "+", " + "]"#);
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(value, Some(json!(["a +", "+", " + "])));
}

#[test]
fn one_inner_quote_in_a_lone_string_is_content() {
    let (value, codes) = fixed(r#""The TV has a 24" screen""#);
    assert_eq!(value, Some(json!("The TV has a 24\" screen")));
    assert_eq!(codes, ["json.unescaped_quote"]);
    // Two quoted strings with prose between them are not one string.
    assert_ne!(
        fixed(r#""Paris" is the capital of "France""#).0,
        Some(json!("Paris\" is the capital of \"France"))
    );
}

#[test]
fn a_call_of_several_arguments_keeps_its_name() {
    let (value, codes) = fixed("{expr: foo(1, 2), \"id\": ObjectId(\"5f1\")}");
    assert_eq!(value, Some(json!({"expr": "foo(1, 2)", "id": "5f1"})));
    assert!(
        codes.contains(&"json.unquoted_text".to_owned()),
        "{codes:?}"
    );
    // Repairs inside the call's text are forgotten: it is kept as written.
    let (_, codes) = fixed("{expr: foo(a, 2)}");
    assert_eq!(codes, ["json.unquoted_key", "json.unquoted_text"]);
    assert_eq!(
        fixed("[max(a, [1,2]), 3]").0,
        Some(json!(["max(a, [1,2])", 3]))
    );
    // A JSONP callback around one value is still unwrapped.
    assert_eq!(fixed("cb({\"a\": 1})").0, Some(json!({"a": 1})));
}

#[test]
fn an_equals_sign_or_a_hash_rocket_stands_for_the_colon() {
    let (value, codes) = fixed("{\"a\" = 1, \"b\" => \"x\", \"c\": \"==\"}");
    assert_eq!(value, Some(json!({"a": 1, "b": "x", "c": "=="})));
    assert_eq!(codes, ["json.missing_colon", "json.missing_colon"]);
}

#[test]
fn comments_inside_a_concatenation_are_skipped() {
    assert_eq!(
        fixed("\"hello\" + /*comment*/ \" world\"").0,
        Some(json!("hello world"))
    );
    assert_eq!(
        fixed("\"hello\" /*c*/ + \" world\"").0,
        Some(json!("hello world"))
    );
    assert_eq!(
        fixed("[\"abc,/*comment*/\"def\"]").0,
        Some(json!(["abc", "def"]))
    );
}

#[test]
fn a_lone_string_escaped_twice_or_half_quoted_is_read() {
    assert_eq!(fixed("\\\"hello\"").0, Some(json!("hello")));
    assert_eq!(fixed("\\\"hello world\\").0, Some(json!("hello world")));
    assert_eq!(fixed("abc\"").0, Some(json!("abc")));
    // Prose with a quote in it is not one of them.
    assert_eq!(fixed("he said \"").0, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Two words joined by `+` after a string whose closing quote was lost come back as
    /// one string, inside an array and as a member.
    #[test]
    fn a_lost_quote_concatenation_joins_the_parts(
        a in "[a-z][a-z ]{0,10}[a-z]",
        b in "[a-z][a-z ]{0,10}",
        comment in any::<bool>(),
    ) {
        let marker = if comment { "+/*c*/" } else { " + " };
        let text = format!("{{\"k\": \"{a}{marker}\"{b}\", \"n\": 1}}");
        let (value, _) = fixed(&text);
        prop_assert_eq!(value, Some(json!({"k": format!("{a}{b}"), "n": 1})));
    }

    /// Any regular expression body without newlines, slashes or backslashes (and not
    /// starting with `*`, which makes a comment), written as a literal with flags in an
    /// object, comes back as its text.
    #[test]
    fn literals_keep_their_text(
        body in "[a-z0-9 ^$.+?()|{}-][a-z0-9 ^$.*+?()|{}-]{0,19}",
        flags in "[gimsuy]{0,3}",
    ) {
        let literal = format!("/{body}/{flags}");
        let text = format!("{{\"re\": {literal}, \"k\": 1}}");
        let (value, _) = fixed(&text);
        prop_assert_eq!(value, Some(json!({"re": literal, "k": 1})));
    }
}

proptest! {
    /// `\xHH` in a string is the character of those two hex digits, on both paths.
    #[test]
    fn hex_escapes_are_their_character(code in 0x20u32..0x100, upper in any::<bool>()) {
        let c = char::from_u32(code).unwrap();
        let hex = if upper { format!("{code:02X}") } else { format!("{code:02x}") };
        let text = format!("{{\"a\": \"<\\x{hex}>\"}}");
        let out = repair(&text, &RepairOptions::default());
        prop_assert_eq!(out.value.clone(), Some(json!({"a": format!("<{c}>")})), "{}", text);
        let written = rectify_repair::repair_to_json(&text, &RepairOptions::default());
        prop_assert_eq!(written.json, out.to_json());
    }
}

#[test]
fn a_backslash_ending_a_line_continues_the_string() {
    let (value, rules) = fixed("{a: 'line one \\\nline two', b: \"x\\\r\ny\"}");
    assert_eq!(value, Some(json!({"a": "line one line two", "b": "xy"})));
    assert!(rules.iter().any(|r| r == "json.invalid_escape"));
    // Not two hex digits: kept as written.
    let (value, _) = fixed(r#"{"a": "\xZZ"}"#);
    assert_eq!(value, Some(json!({"a": "\\xZZ"})));
}

#[test]
fn an_answer_that_is_one_loosely_written_number_is_that_number() {
    for (text, want) in [
        ("0x1f", json!(31)),
        ("-0X10", json!(-16)),
        ("1_000", json!(1000)),
    ] {
        let out = repair(text, &RepairOptions::default());
        assert_eq!(out.value, Some(want), "{text}");
        assert_eq!(out.repairs[0].code, "json.number_format");
    }
}
