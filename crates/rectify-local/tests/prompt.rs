//! The few-shot prompt and the example values it is built from.
#![allow(clippy::unwrap_used)] // helpers outside `#[test]` functions

use rectify_local::prompt::{ANSWER_MARKER, DEMO_REQUEST, build_prompt, example_for};
use rectify_provider::{Message, Request};
use serde_json::{Value, json};

fn valid(schema: &Value, value: &Value) -> bool {
    jsonschema::validator_for(schema).unwrap().is_valid(value)
}

#[test]
fn example_fills_every_property_and_respects_simple_bounds() {
    let schema = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 30, "maxLength": 40},
            "priority": {"enum": ["high", "low"]},
            "estimate": {"type": "integer", "minimum": 5, "maximum": 8},
            "ratio": {"type": "number", "maximum": 1},
            "done": {"type": "boolean"},
            "due": {"type": "string", "format": "date"},
            "steps": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 3},
            "owner": {"type": ["null", "string"]}
        },
        "required": ["title", "priority", "estimate", "ratio", "done", "due", "steps", "owner"],
        "additionalProperties": false
    });
    let example = example_for(&schema);
    assert!(valid(&schema, &example), "{example}");
    assert_eq!(example["priority"], "high");
    assert_eq!(example["estimate"], 5);
    assert_eq!(example["due"], "2024-05-01");
    assert_eq!(example["steps"].as_array().unwrap().len(), 2);
}

#[test]
fn example_follows_local_refs_and_terminates_on_recursion() {
    let schema = json!({
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                "required": ["name"]
            }
        },
        "$ref": "#/$defs/node"
    });
    let example = example_for(&schema);
    assert_eq!(example["name"], "example name");
    assert!(example["children"][0]["name"].is_string());
}

#[test]
fn array_items_differ_so_the_model_does_not_learn_to_repeat() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tasks": {"type": "array", "minItems": 2, "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^T[0-9]+$"},
                    "title": {"type": "string"},
                    "day": {"enum": ["monday", "tuesday"]},
                    "hours": {"type": "integer", "maximum": 10}
                }
            }},
            "goal": {"type": "string"}
        }
    });
    let example = example_for(&schema);
    assert_eq!(
        example,
        json!({
            "tasks": [
                {"id": "T1", "title": "example title 1", "day": "monday", "hours": 3},
                {"id": "T2", "title": "example title 2", "day": "tuesday", "hours": 4}
            ],
            "goal": "example goal"
        })
    );
    assert!(valid(&schema, &example));
}

#[test]
fn optional_reference_lists_start_empty_so_the_first_item_does_not_point_at_itself() {
    let schema = json!({
        "type": "object",
        "properties": {"tasks": {"type": "array", "minItems": 2, "items": {"type": "object", "properties": {
            "id": {"type": "string", "pattern": "^T[0-9]+$"},
            "dependsOn": {"type": "array", "minItems": 0, "items": {"type": "string", "pattern": "^T[0-9]+$"}},
            "notes": {"type": "array", "items": {"type": "string"}}
        }}}}
    });
    let example = example_for(&schema);
    assert_eq!(example["tasks"][0]["dependsOn"], json!([]));
    assert_eq!(example["tasks"][1]["dependsOn"], json!(["T1"]));
    // Without `minItems: 0` a list is shown with an item, so its shape is visible.
    assert_eq!(example["tasks"][0]["notes"], json!(["example note 1"]));
}

#[test]
fn numbered_items_in_a_small_range_get_distinct_values() {
    // A three-day plan: a clamped example (`3, 3`) made the model write `3` for every day.
    let schema = json!({
        "type": "array", "minItems": 3,
        "items": {"type": "object", "properties": {
            "day": {"type": "integer", "minimum": 1, "maximum": 3},
            "score": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 3},
            "budget": {"type": "integer", "minimum": 0, "maximum": 5000},
            "rank": {"type": "integer", "maximum": 3}
        }}
    });
    let example = example_for(&schema);
    let column = |key: &str| -> Vec<f64> {
        example
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i[key].as_f64().unwrap())
            .collect()
    };
    assert_eq!(column("day"), [1.0, 2.0]);
    assert_eq!(column("score"), [1.0, 2.0]);
    assert_eq!(column("budget"), [3.0, 4.0]);
    assert_eq!(column("rank"), [3.0, 3.0]);
    assert!(valid(&schema["items"], &example[0]) && valid(&schema["items"], &example[1]));
}

#[test]
fn explicit_examples_const_and_default_win() {
    assert_eq!(
        example_for(&json!({"type": "string", "examples": ["x"]})),
        json!("x")
    );
    assert_eq!(example_for(&json!({"const": 7})), json!(7));
    assert_eq!(
        example_for(&json!({"type": "integer", "default": 2})),
        json!(2)
    );
    assert_eq!(
        example_for(&json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]})),
        json!(true)
    );
}

#[test]
fn prompt_shows_demo_then_schema_example_request_and_open_answer() {
    let schema =
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let request = Request::new("Capital of France?")
        .with_system("You answer geography questions.")
        .with_schema(schema.clone());
    let prompt = build_prompt(&request);
    let text = &prompt.text;
    assert!(
        text.starts_with("You answer geography questions.\n\nSchema:\n"),
        "{text}"
    );
    let demo_at = text.find(DEMO_REQUEST).unwrap();
    let demo_answer_at = text.find(r#"{"name":"Ada Lovelace","born":1815"#).unwrap();
    let schema_at = text.find(&format!("Schema:\n{schema}\n")).unwrap();
    let example_at = text
        .find("Example:\n{\"city\":\"example city\"}\n")
        .unwrap();
    let question_at = text.find("Request:\nCapital of France?\n\n").unwrap();
    assert!(
        demo_at < demo_answer_at && demo_answer_at < schema_at,
        "{text}"
    );
    assert!(schema_at < example_at && example_at < question_at, "{text}");
    assert!(
        text.ends_with(&format!("Capital of France?\n\n{ANSWER_MARKER}\n")),
        "{text:?}"
    );
    assert_eq!(
        prompt.stop,
        ["\nRequest:", "\nSchema:", "\nExample:", "\n\n"].map(String::from)
    );
}

#[test]
fn the_demo_answer_follows_the_demo_schema_shape() {
    let text = build_prompt(&Request::new("x").with_schema(json!({"type": "object"}))).text;
    let demo_schema: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let demo_answer: Value = serde_json::from_str(text.lines().nth(8).unwrap()).unwrap();
    assert!(valid(&demo_schema, &demo_answer), "{text}");
    assert!(valid(&demo_schema, &example_for(&demo_schema)));
}

#[test]
fn prior_answers_and_feedback_become_transcript_turns() {
    let request = Request::from_messages(vec![
        Message::user("List two colours."),
        Message::assistant("{\"colours\": [\"red\"]"),
        Message::user("Your previous answer did not pass validation."),
    ])
    .with_schema(json!({"type": "object"}));
    let text = build_prompt(&request).text;
    let first = text.find("List two colours.").unwrap();
    let answer = text.find("Answer:\n{\"colours\": [\"red\"]").unwrap();
    let feedback = text.find("Request:\nYour previous answer").unwrap();
    assert!(first < answer && answer < feedback, "{text}");
    assert!(text.ends_with("Answer:\n"));
}

#[test]
fn plain_requests_have_no_schema_header_and_keep_caller_stops() {
    let mut request = Request::new("Say hello.");
    request.stop = vec!["END".into()];
    let prompt = build_prompt(&request);
    assert_eq!(prompt.text, "Request:\nSay hello.\n\nAnswer:\n");
    assert_eq!(
        prompt.stop,
        ["END", "\nRequest:", "\nSchema:", "\nExample:"].map(String::from)
    );
    let json_mode = Request {
        json: true,
        ..Request::new("x")
    };
    assert!(
        build_prompt(&json_mode)
            .text
            .starts_with("Every answer is one JSON value.\n\n")
    );
}

#[test]
fn extraction_requests_get_a_demo_read_from_its_request_and_no_placeholder_example() {
    let schema = json!({"type": "object", "properties": {"customer": {"type": "string"}}});
    let request = Request::new("Extract the invoice: ACME Corp owes 1250.00 EUR.")
        .with_schema(schema.clone());
    let demo = rectify_local::prompt::demo_for(&request);
    assert!(valid(&demo.schema, &demo.answer), "{}", demo.answer);
    let missing = rectify_local::grounding::ungrounded(&demo.answer, demo.request, None);
    // Every value of the demonstration is in its request (booleans are not values to find).
    assert!(missing.is_empty(), "{missing:?}");
    let text = build_prompt(&request).text;
    assert!(
        text.contains(demo.request) && !text.contains(DEMO_REQUEST),
        "{text}"
    );
    assert!(
        !text.contains("Example:") && !text.contains("example customer"),
        "{text}"
    );
    // Other requests keep the general demonstration and the schema-built example.
    let general = build_prompt(&Request::new("Who founded ACME?").with_schema(schema)).text;
    assert!(general.contains(DEMO_REQUEST) && general.contains("example customer"));
}
