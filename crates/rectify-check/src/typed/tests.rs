use rectify_core::Format;
use rectify_parse::{Limits, read};
use serde::Deserialize;

use super::*;

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Task {
    id: u32,
    phase_id: String,
    #[serde(default)]
    acceptance_criteria: Vec<String>,
    status: Status,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Status {
    Todo,
    Done,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Plan {
    tasks: Vec<Task>,
}

/// A count that the schema only knows as an integer, but serde rejects when odd.
#[derive(Debug, Deserialize)]
#[serde(try_from = "u32")]
struct Even(u32);

impl TryFrom<u32> for Even {
    type Error = String;
    fn try_from(n: u32) -> Result<Self, String> {
        if n.is_multiple_of(2) {
            Ok(Even(n))
        } else {
            Err(format!("{n} is odd"))
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Pairs {
    #[schemars(with = "u32")]
    count: Even,
}

fn doc(text: &str) -> Document {
    read(text.to_owned(), Format::Json, &Limits::default())
        .document
        .unwrap()
}

#[test]
fn valid_documents_deserialize() {
    let typed = check_as::<Plan>(&doc(
        r#"{"tasks": [{"id": 1, "phaseId": "p1", "status": "todo"}]}"#,
    ));
    assert!(typed.diagnostics.is_empty(), "{:#?}", typed.diagnostics);
    let plan = typed.into_result().unwrap();
    assert_eq!(plan.tasks[0].phase_id, "p1");
    assert_eq!(plan.tasks[0].status, Status::Todo);
    assert!(plan.tasks[0].acceptance_criteria.is_empty());
}

#[test]
fn schema_violations_are_located() {
    let typed = check_as::<Plan>(&doc(
        "{\"tasks\": [\n  {\"id\": 1, \"phaseId\": \"p1\", \"status\": \"todo\"},\n  {\"id\": -3, \"status\": \"doing\"}\n]}",
    ));
    assert!(!typed.is_valid());
    let codes: Vec<(&str, &str)> = typed
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.location.pointer.as_str()))
        .collect();
    assert!(
        codes.contains(&("schema.required", "/tasks/1/phaseId")),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("schema.minimum", "/tasks/1/id")),
        "{codes:?}"
    );
    assert!(
        codes.iter().any(|(_, p)| *p == "/tasks/1/status"),
        "{codes:?}"
    );
    let d = typed
        .diagnostics
        .iter()
        .find(|d| d.code == "schema.required")
        .unwrap();
    assert_eq!(d.message, "missing required field \"phaseId\"");
    assert_eq!(d.location.span.unwrap().line, 3);
    assert_eq!(d.source, "schema:type Plan");
}

#[test]
fn serde_errors_the_schema_missed_become_diagnostics() {
    let typed = check_as::<Pairs>(&doc("{\n  \"count\": 3\n}"));
    assert!(typed.value.is_none());
    assert_eq!(typed.diagnostics.len(), 1, "{:#?}", typed.diagnostics);
    let d = &typed.diagnostics[0];
    assert_eq!(d.code, "type.deserialize");
    assert_eq!(d.message, "3 is odd");
    assert_eq!(d.location.pointer, "/count");
    assert_eq!(d.location.span.unwrap().line, 2);
    assert_eq!(d.received.as_deref(), Some("3"));
    let pairs = check_value_as::<Pairs>(&serde_json::json!({"count": 4}));
    assert_eq!(pairs.into_result().unwrap().count.0, 4);
}

#[test]
fn schemas_are_generated_once_per_type() {
    let a = schema_of::<Plan>().unwrap();
    let b = schema_of::<Plan>().unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let c = schema_of::<Task>().unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    let typed = TypedSchema::<Task>::new().unwrap();
    assert!(Arc::ptr_eq(&typed.schema, &c));
    let t = typed.check(&Document::from_value(serde_json::json!(
        {"id": 2, "phaseId": "x", "status": "done", "acceptanceCriteria": ["a"]}
    )));
    assert_eq!(t.value.unwrap().acceptance_criteria, vec!["a".to_owned()]);
}
