//! Grounding: the spans and numbers a request offers, and the grammar schema built from them.
#![allow(clippy::unwrap_used)] // helpers outside `#[test]` functions

use proptest::prelude::*;
use rectify_local::grounding::lists::complete_lists;
use rectify_local::grounding::schema::{Offer, ground};
use rectify_local::grounding::spans::{numbers, spans};
use rectify_local::grounding::{Grounding, grammar_schema, ungrounded};
use rectify_provider::Request;
use serde_json::{Value, json};

fn words() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[A-Za-z]{1,8}",
        "[0-9]{1,6}",
        "[0-9]{1,3},[0-9]{3}\\.[0-9]{2}",
        "-[0-9]{1,3}",
        "[\"'(]?[A-Za-z0-9.'-]{1,8}[\"').,;:!?]{0,2}",
    ];
    prop::collection::vec(word, 0..14).prop_map(|w| w.join(" "))
}

/// Words as requests write them: names with capitals, accents and `&`, bracketed labels,
/// units, dashes, currencies, codes, possessives and sentence ends.
fn prose() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "(home)", "Ltd", "&", "–", "Dr.", "and", "Ünal", "Zoë,", "naïve;", "Court", "Both",
        "Friday's",
    ])
    .prop_map(str::to_owned);
    // The fixed words weigh as much as they did one alternative each.
    let word = prop_oneof![
        1 => "[A-Z][a-z]{1,7}",
        1 => "[a-z]{1,8}",
        1 => "[0-9]{1,4}(%|-year-old| kg| GBP)?",
        12 => fixed,
        1 => "[A-Z]{2}[0-9]{2}(-[0-9]{4})?",
        1 => "[A-Za-zé]{1,6}[.,:;!?)]",
    ];
    prop::collection::vec(word, 0..24).prop_map(|w| w.join(" "))
}

/// Field names that switch on the rules for people, organisations, dates, units, roles,
/// codes, deadlines and names that hold the field's noun.
fn field_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "patient",
        "employer",
        "home_team",
        "original_date",
        "new_date",
        "discount_percent",
        "age",
        "total_weight_kg",
        "signed_by",
        "penalty",
        "reduced_penalty",
        "city",
        "note",
        "order_number",
        "vehicle_registration",
        "accept_by",
        "dropped_off_by",
        "court",
        "class_date",
        "due_day",
    ])
    .prop_map(str::to_owned)
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..4, 4u64..40)
            .prop_map(|(min, max)| json!({"type": "string", "minLength": min, "maxLength": max})),
        Just(json!({"type": "string"})),
        (-100i64..100, 0i64..5000)
            .prop_map(|(lo, span)| json!({"type": "integer", "minimum": lo, "maximum": lo + span})),
        (0i64..100).prop_map(|lo| json!({"type": "number", "exclusiveMinimum": lo})),
        Just(json!({"type": "number"})),
        Just(json!({"enum": ["a", "b"]})),
        Just(json!({"type": "string", "format": "date"})),
    ]
}

proptest! {
    #[test]
    fn spans_are_trimmed_pieces_of_the_text(text in words()) {
        let found = spans(&text);
        for span in &found {
            prop_assert!(!span.is_empty());
            prop_assert_eq!(span.trim(), span.as_str());
            prop_assert!(text.contains(span.as_str()), "{:?} not in {:?}", span, text);
        }
        for word in text.split_whitespace().filter(|w| w.chars().all(char::is_alphanumeric)) {
            prop_assert!(found.contains(word), "{:?} missing", word);
        }
    }

    #[test]
    fn numbers_are_json_numbers_written_in_the_text(text in words(), n in -5000i64..5000) {
        let text = format!("{text} total {n} units");
        let found = numbers(&text);
        prop_assert!(found.iter().any(|w| (w.value() - n as f64).abs() < 1e-9), "{} not in {:?}", n, found);
        for written in &found {
            prop_assert!(serde_json::from_str::<serde_json::Number>(&written.literal).is_ok(), "{:?}", written);
            if let Some(integer) = written.integer_literal() {
                prop_assert!(integer.parse::<i128>().is_ok(), "{:?}", written);
            }
        }
    }

    #[test]
    fn grounded_values_are_valid_against_the_original_schema(
        text in words(),
        leaves in prop::collection::vec(leaf_schema(), 1..5),
    ) {
        let properties: serde_json::Map<String, Value> = leaves
            .into_iter()
            .enumerate()
            .map(|(i, s)| (format!("f{i}"), s))
            .collect();
        let schema = json!({"type": "object", "properties": properties});
        let out = ground(&schema, &Offer::from_text(&text));
        for (key, leaf) in out["properties"].as_object().unwrap() {
            let original = &schema["properties"][key];
            let validator = jsonschema::validator_for(original).unwrap();
            let offered = leaf.get("enum").filter(|_| original.get("enum").is_none());
            if let Some(Value::Array(values)) = offered {
                prop_assert!(!values.is_empty());
                for value in values {
                    prop_assert!(validator.is_valid(value), "{} breaks {}", value, original);
                    prop_assert!(ungrounded(value, &text, None).is_empty(), "{} not in {:?}", value, text);
                }
            } else if original.get("enum").is_none() {
                prop_assert_eq!(leaf, original);
            }
        }
    }
}

proptest! {
    #[test]
    fn role_rules_offer_only_valid_request_values(
        text in prose(),
        fields in prop::collection::vec((field_name(), leaf_schema()), 1..6),
    ) {
        let properties: serde_json::Map<String, Value> = fields.into_iter().collect();
        let schema = json!({"type": "object", "properties": properties});
        let out = ground(&schema, &Offer::from_text(&text));
        for (key, leaf) in out["properties"].as_object().unwrap() {
            let original = &schema["properties"][key];
            let validator = jsonschema::validator_for(original).unwrap();
            if let Some(Value::Array(values)) = leaf.get("enum").filter(|_| original.get("enum").is_none()) {
                prop_assert!(!values.is_empty());
                for value in values {
                    prop_assert!(validator.is_valid(value), "{} breaks {}", value, original);
                    prop_assert!(ungrounded(value, &text, None).is_empty(), "{} not in {:?}", value, text);
                }
            }
        }
    }

    #[test]
    fn a_completed_list_keeps_its_items_and_takes_only_request_text(
        text in prose(),
        picks in prop::collection::vec(0usize..64, 0..4),
        max_items in 1u64..6,
    ) {
        let offered: Vec<String> = spans(&text).into_iter().collect();
        let chosen: Vec<Value> = picks
            .iter()
            .filter_map(|&i| offered.get(i % offered.len().max(1)).cloned())
            .map(Value::String)
            .collect();
        let schema = json!({"properties": {"list": {"type": "array", "maxItems": max_items,
            "items": {"type": "string", "maxLength": 30}}}});
        let mut value = json!({ "list": chosen.clone() });
        let added = complete_lists(&mut value, &schema, &text);
        let list = value["list"].as_array().unwrap();
        if added == 0 {
            prop_assert_eq!(list, &chosen);
        } else {
            prop_assert_eq!(list.len(), chosen.len() + added);
            prop_assert!(list.len() as u64 <= max_items);
            for item in &chosen {
                prop_assert!(list.contains(item), "{} dropped from {:?}", item, list);
            }
            for item in list {
                let item = item.as_str().unwrap();
                prop_assert!(text.contains(item) && item.chars().count() <= 30, "{:?}", item);
            }
        }
    }
}

#[test]
fn the_quick_start_request_offers_its_own_values_only() {
    let schema: Value = serde_json::from_str(include_str!(
        "../../../examples/quickstart/invoice.schema.json"
    ))
    .unwrap();
    let request = Request::new(
        "Extract the invoice from this sentence: ACME Corp owes 1250.00 EUR for the March deliveries.",
    )
    .with_schema(schema.clone());
    let grammar = grammar_schema(Grounding::Auto, true, &request).unwrap();
    let customers = grammar["properties"]["customer"]["enum"]
        .as_array()
        .unwrap();
    assert!(customers.contains(&json!("ACME Corp")));
    assert!(!customers.contains(&json!("example customer")));
    assert_eq!(
        grammar["properties"]["total"]["enum"].to_string(),
        "[1250.00]"
    );
    // The currency enum keeps the one choice the request names.
    assert_eq!(grammar["properties"]["currency"], json!({"enum": ["EUR"]}));
    assert!(grammar_schema(Grounding::Off, true, &request).is_none());
    // Without numbers, the total is the schema's own and the strings are still tied.
    let strings_only = grammar_schema(Grounding::Auto, false, &request).unwrap();
    assert_eq!(
        strings_only["properties"]["total"],
        schema["properties"]["total"]
    );
    assert_eq!(
        strings_only["properties"]["customer"],
        grammar["properties"]["customer"]
    );
    assert_eq!(
        strings_only["properties"]["currency"],
        json!({"enum": ["EUR"]})
    );
}
