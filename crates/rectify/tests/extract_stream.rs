//! `Client::extract_stream` over the OpenAI-compatible SSE wire format (issue 40): partial
//! values, a doomed answer stopped and asked again, attempts, then the value.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rectify::provider::openai::{OpenAiConfig, OpenAiProvider};
use rectify::provider::{STOPPED, from_fn};
use rectify::stream::Update;
use rectify::{Client, Error};
use rectify_test::fake_server::{FakeServer, Reply};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Closed,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Ticket {
    status: Status,
    notes: Vec<String>,
}

fn client(server: &FakeServer) -> Client {
    let config = OpenAiConfig::new("m").with_base_url(server.openai_base_url());
    Client::new(OpenAiProvider::new(config).unwrap())
}

/// Every update of a stream, in order.
async fn collect<R: Send + 'static>(mut stream: rectify::stream::RunStream<R>) -> Vec<Update<R>> {
    let mut updates = Vec::new();
    while let Some(update) = stream.next().await {
        updates.push(update);
    }
    updates
}

fn bad_then_good() -> [Reply; 2] {
    let notes: Vec<String> = (0..200).map(|i| format!("note {i}")).collect();
    let bad = json!({"status": "lost", "notes": notes}).to_string();
    let good = json!({"status": "open", "notes": ["a", "b"]}).to_string();
    [
        Reply::openai_stream(&bad, 4),
        Reply::openai_stream(&good, 4),
    ]
}

#[tokio::test]
async fn a_doomed_answer_is_stopped_then_the_value_arrives_in_pieces() {
    let server = FakeServer::start(bad_then_good()).await.unwrap();
    let updates = collect(client(&server).extract_stream::<Ticket>("ticket?")).await;

    let abort = updates
        .iter()
        .position(|u| matches!(u, Update::Abort { attempt: 1, diagnostics, received } if diagnostics[0].location.pointer == "/status" && *received < 40))
        .expect("the first answer is stopped at its first field");
    let Some(Update::Attempt(first)) = updates.get(abort + 1) else {
        panic!("the stopped attempt ends next: {updates:?}")
    };
    assert_eq!((first.number, first.valid), (1, false));
    assert_eq!(
        first.finish_reason,
        rectify::provider::FinishReason::Other(STOPPED.into())
    );
    assert!(
        first
            .diagnostics
            .iter()
            .any(|d| d.location.pointer == "/status")
    );
    assert!(
        first
            .notices
            .iter()
            .any(|n| n.contains("stopped by rectify"))
    );

    let partials: Vec<_> = updates
        .iter()
        .filter_map(|u| match u {
            Update::Partial {
                attempt: 2,
                partial,
            } => Some(partial),
            _ => None,
        })
        .collect();
    assert!(!partials.is_empty(), "{updates:?}");
    assert!(
        partials
            .iter()
            .any(|p| p.is_final("/status") && p.value["status"] == "open")
    );

    let n = updates.len();
    let Update::Attempt(second) = &updates[n - 2] else {
        panic!("{updates:?}")
    };
    assert!(second.valid && second.number == 2);
    let Update::Done(Ok(ticket)) = &updates[n - 1] else {
        panic!("{:?}", updates[n - 1])
    };
    assert_eq!(ticket.status, Status::Open);
    assert_eq!(ticket.notes, ["a", "b"]);
}

#[tokio::test]
async fn the_result_is_the_error_extract_gives_when_no_answer_is_valid() {
    let server = FakeServer::start(bad_then_good()).await.unwrap();
    let result = client(&server)
        .max_attempts(1)
        .extract_stream::<Ticket>("ticket?")
        .result()
        .await
        .unwrap();
    let Err(Error::Exhausted(exhausted)) = result else {
        panic!("{result:?}")
    };
    assert_eq!(exhausted.ledger.attempts.len(), 1);
    assert!(exhausted.ledger.attempts[0].raw.len() < 40);
}

#[tokio::test]
async fn a_provider_that_does_not_stream_gives_its_attempts_and_the_value() {
    let model = from_fn("whole", |_request| async {
        Ok::<_, std::io::Error>(r#"{"status": "closed", "notes": []}"#.to_owned())
    });
    let schema = serde_json::to_value(schemars::schema_for!(Ticket)).unwrap();
    let updates = collect(Client::new(model).extract_value_stream("ticket?", schema)).await;
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert!(matches!(&updates[0], Update::Attempt(a) if a.valid && a.provider == "fn:whole"));
    let Update::Done(Ok(value)) = &updates[1] else {
        panic!("{updates:?}")
    };
    assert_eq!(value["status"], "closed");
}

#[tokio::test]
async fn a_schema_that_does_not_compile_ends_the_stream_at_once() {
    let model = from_fn("never", |_request| async {
        Ok::<_, std::io::Error>(String::new())
    });
    let schema: Value = json!({"type": 12});
    let updates = collect(Client::new(model).extract_value_stream("q", schema)).await;
    assert!(
        matches!(&updates[..], [Update::Done(Err(Error::Config { .. }))]),
        "{updates:?}"
    );
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Task {
    id: String,
    phase: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Plan {
    goal: String,
    tasks: Vec<Task>,
}

/// A task whose phase is not one of the plan's is a rule error (a rules file's reference
/// into another document): the answer is stopped as soon as that task's item is complete,
/// and only that is fed back.
#[tokio::test]
async fn an_item_that_breaks_a_rule_stops_the_answer() {
    let tasks: Vec<Value> = (0..100)
        .map(|i| json!({"id": format!("T{i}"), "phase": if i == 0 { "ship" } else { "build" }}))
        .collect();
    let bad = json!({"goal": "g", "tasks": tasks}).to_string();
    let good = json!({"goal": "g", "tasks": [{"id": "T0", "phase": "design"}]}).to_string();
    let server = FakeServer::start([
        Reply::openai_stream(&bad, 4),
        Reply::openai_stream(&good, 4),
    ])
    .await
    .unwrap();
    let rules = rectify::check::RuleSet::from_value(
        &json!({"rules": [{"id": "phase", "each": "$.tasks[*].phase", "in": "plan:$.phases[*]"}]}),
        None,
    )
    .unwrap();
    let checker = rectify::check::Checker::builder()
        .rules(rules)
        .reference(
            "plan",
            rectify::Document::from_value(json!({"phases": ["design", "build"]})),
        )
        .build()
        .unwrap();
    let client = client(&server).rules(checker);
    let updates = collect(client.extract_stream::<Plan>("plan?")).await;
    let (diagnostics, received) = updates
        .iter()
        .find_map(|u| match u {
            Update::Abort {
                attempt: 1,
                diagnostics,
                received,
            } => Some((diagnostics, *received)),
            _ => None,
        })
        .expect("the first answer is stopped");
    assert_eq!(diagnostics[0].code, "rule.ref");
    assert_eq!(diagnostics[0].location.pointer, "/tasks/0/phase");
    assert!(
        received < 80,
        "stopped after {received} of {} bytes",
        bad.len()
    );
    let Some(Update::Done(Ok(plan))) = updates.last() else {
        panic!("the second answer is the value: {updates:?}")
    };
    assert_eq!((plan.goal.as_str(), plan.tasks[0].id.as_str()), ("g", "T0"));
    assert_eq!(plan.tasks[0].phase, "design");
    let first = updates
        .iter()
        .find_map(|u| match u {
            Update::Attempt(a) if a.number == 1 => Some(a),
            _ => None,
        })
        .unwrap();
    let errors: Vec<&str> = first
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(errors, ["rule.ref"], "only why it was stopped");
}
