//! Nothing is lost silently: every key, string and number of a broken document is in the
//! repaired value, unless a recorded repair covers it (names it, with its snippet, as
//! removed or changed).
//!
//! Inputs are generated, not taken from the corpus: valid JSON documents whose keys,
//! strings and numbers are all distinct, broken by random edits of the kinds models make
//! (a quote, colon, comma or bracket deleted; junk inserted). The generator and the check
//! are `rectify_repair::testing::loss`, shared with the `no_silent_loss` fuzz target.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::testing::loss::{Edit, Shape, apply, build, lost};
use rectify_repair::{RepairOptions, repair};

fn shape() -> impl Strategy<Value = Shape> {
    let leaf = (0u8..8).prop_map(Shape::Leaf);
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Shape::Array),
            prop::collection::vec(inner, 1..5).prop_map(Shape::Object),
        ]
    })
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0u8..4, any::<usize>()).prop_map(|(c, w)| Edit::Delete(c, w)),
        1 => (0.0f64..1.0, any::<usize>()).prop_map(|(a, j)| Edit::Insert(a, j)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_token_is_lost_silently(
        shape in shape(),
        pretty in any::<bool>(),
        edits in prop::collection::vec(edit(), 1..4),
        allow_unsafe in any::<bool>(),
    ) {
        let mut tokens = Vec::new();
        let value = build(&shape, &mut 0, &mut tokens);
        let valid = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        let text = apply(&valid, &edits);
        let options = RepairOptions::default().with_unsafe(allow_unsafe);
        let lost = lost(&text, &tokens, &options);
        prop_assert!(lost.is_empty(), "{:?} lost {:?}", text, lost);
    }
}

/// The classes of silent loss issue 12 names, and what they repair to.
#[test]
fn the_named_classes_keep_their_content() {
    let options = RepairOptions::default().with_unsafe(true);
    for (text, expected) in [
        (r#"{name":"Ada"}"#, r#"{"name":"Ada"}"#),
        (r#"{"a" 5}"#, r#"{"a":5}"#),
        (r#"[{"x":1,{"x":2}]"#, r#"[{"x":1},{"x":2}]"#),
        ("{k 'v'}", r#"{"k":"v"}"#),
    ] {
        let out = repair(text, &options);
        assert_eq!(out.to_json().as_deref(), Some(expected), "{text}");
    }
}

/// Counts the cases that lose a token over many generated inputs and prints some
/// (`cargo test --test no_silent_loss -- --ignored --nocapture`); for measuring.
#[test]
#[ignore = "a survey for measuring, not a check"]
fn survey_losses() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let cases: usize = std::env::var("SURVEY_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let mut runner = TestRunner::deterministic();
    let strategy = (
        shape(),
        any::<bool>(),
        prop::collection::vec(edit(), 1..4),
        any::<bool>(),
    );
    let (mut losing, mut shown) = (0, 0);
    for _ in 0..cases {
        let (shape, pretty, edits, allow_unsafe) =
            strategy.new_tree(&mut runner).unwrap().current();
        let mut tokens = Vec::new();
        let value = build(&shape, &mut 0, &mut tokens);
        let valid = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        let text = apply(&valid, &edits);
        let options = RepairOptions::default().with_unsafe(allow_unsafe);
        let lost = lost(&text, &tokens, &options);
        if !lost.is_empty() {
            losing += 1;
            if shown < 60 && text.len() < 160 {
                shown += 1;
                let out = repair(&text, &options);
                println!(
                    "{text:?} unsafe={allow_unsafe} lost {lost:?} -> {:?}",
                    out.to_json()
                );
            }
        }
    }
    println!("{losing} of {cases} cases lose a token");
}

/// Found by the `no_silent_loss` fuzz target: a duplicate key's record names the earlier
/// member, whose value is the one dropped — also when that member was read before the
/// object's missing brace was known, or before the object was closed too early.
#[test]
fn a_duplicate_key_names_the_member_it_drops() {
    for (text, dropped) in [
        ("{\nTrue  \"k2x\"True \"s3q\"\n}", "k2x"),
        ("[\n \\: -2.25\n\\]", "-2.25"),
        ("{\"a\":1}, \"a\": 2}", "1"),
    ] {
        let out = repair(text, &RepairOptions::default().with_unsafe(true));
        let dup = out
            .repairs
            .iter()
            .find(|r| r.code == "json.duplicate_key")
            .unwrap();
        assert!(dup.before.contains(dropped), "{text:?}: {:?}", dup.before);
    }
}
