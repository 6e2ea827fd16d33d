//! The one-call entry points as a user calls them: typed extraction, errors, conversations,
//! the user's own function as the model, the blocking API, and user types that serde_json's
//! `arbitrary_precision` (on in this workspace) is known to break.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rectify::provider::{Request, from_fn};
use rectify::{Client, Error, Format, Message};
use rectify_test::scripted::ScriptedProvider;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

fn block<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// A price given either as a number or as text: an untagged enum holding numbers.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
enum Amount {
    Number(f64),
    Text(String),
}

/// Extra fields kept through `#[serde(flatten)]`, numbers among them.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Line {
    sku: String,
    price: Amount,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Order {
    #[serde(flatten)]
    header: Header,
    lines: Vec<Line>,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Header {
    id: u64,
    total: f64,
}

/// Decimals as models write them (`10.50`, `1e3`, `0.1`): with `arbitrary_precision` a
/// number that does not round-trip through f64 formatting reaches `flatten` and untagged
/// enums as a private map unless rectify converts it first.
const ORDER: &str = r#"{"id": 7, "total": 1010.50, "lines": [
    {"sku": "A-1", "price": 10.50, "qty": 2, "weight": 0.10},
    {"sku": "B-2", "price": 1e3, "qty": 1},
    {"sku": "C-3", "price": "on request"}
]}"#;

fn expected_order() -> Order {
    let extra = |pairs: &[(&str, serde_json::Value)]| {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    };
    Order {
        header: Header {
            id: 7,
            total: 1010.5,
        },
        lines: vec![
            Line {
                sku: "A-1".into(),
                price: Amount::Number(10.5),
                extra: extra(&[("qty", json!(2)), ("weight", json!(0.1))]),
            },
            Line {
                sku: "B-2".into(),
                price: Amount::Number(1000.0),
                extra: extra(&[("qty", json!(1))]),
            },
            Line {
                sku: "C-3".into(),
                price: Amount::Text("on request".into()),
                extra: BTreeMap::new(),
            },
        ],
    }
}

#[test]
fn flatten_and_untagged_numbers_survive_check_as() {
    let doc = rectify::read_str(ORDER, Format::Json).document.unwrap();
    let typed = rectify::check_as::<Order>(&doc);
    assert!(typed.diagnostics.is_empty(), "{:#?}", typed.diagnostics);
    assert_eq!(typed.value.unwrap(), expected_order());
}

#[test]
fn flatten_and_untagged_numbers_survive_the_typed_loop() {
    let model = from_fn("orders", |_| async { Ok::<_, String>(ORDER.to_owned()) });
    let order: Order = block(
        Client::new(model)
            .max_attempts(1)
            .extract("The order, please."),
    )
    .unwrap();
    assert_eq!(order, expected_order());
}

#[test]
fn exhaustion_is_an_error_that_lists_the_problems_and_keeps_the_ledger() {
    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Person {
        name: String,
        age: u8,
    }
    let model = from_fn("bad", |_| async {
        Ok::<_, String>(r#"{"age": 300}"#.into())
    });
    let error = block(Client::new(model).max_attempts(2).extract::<Person>("Who?")).unwrap_err();
    let Error::Exhausted(exhausted) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(exhausted.ledger.totals.attempts, 2);
    assert_eq!(exhausted.best.as_ref().unwrap().attempt, 2);
    assert_eq!(error.ledger().unwrap().attempts.len(), 2);
    let text = error.to_string();
    assert!(
        text.starts_with("no valid answer after 2 attempts; the best answer (attempt 2) still has 2 problems:\n- "),
        "{text}"
    );
    assert!(
        text.contains("\n- missing required field \"name\""),
        "{text}"
    );
    assert!(text.contains("\n- age: "), "{text}");
    // A real std error, usable with `?` into Box<dyn Error>.
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(error);
    assert!(boxed.to_string().contains("problems"));
}

#[test]
fn refusals_and_provider_failures_are_their_own_variants() {
    // Refused twice (a first refusal is re-asked once).
    let refusing = ScriptedProvider::new("r")
        .refusal("No.")
        .refusal("I cannot help with that.");
    let error = block(Client::new(refusing).extract_value("x", json!({}))).unwrap_err();
    assert!(
        matches!(&error, Error::Refused { message, .. } if message == "I cannot help with that.")
    );
    assert_eq!(
        error.to_string(),
        "the model refused to answer: I cannot help with that."
    );

    let failing = from_fn("down", |_| async { Err::<String, _>("connection refused") });
    let error = block(Client::new(failing).extract_value("x", json!({}))).unwrap_err();
    let Error::Provider {
        error: inner,
        ledger,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(inner.provider, "fn:down");
    assert!(ledger.attempts.is_empty());
    assert_eq!(
        error.to_string(),
        "fn:down: the provider function failed: connection refused"
    );

    let error =
        block(Client::new(ScriptedProvider::new("s")).extract_value("x", json!({"type": 7})))
            .unwrap_err();
    assert!(matches!(error, Error::Config { .. }), "{error:?}");
}

#[test]
fn a_fallback_rung_and_the_clients_rules_and_validators_apply() {
    let first = ScriptedProvider::new("small").text(r#"{"n": 1}"#);
    let second = ScriptedProvider::new("large")
        .text(r#"{"n": 2}"#)
        .text(r#"{"n": 4}"#);
    let client = Client::new(first)
        .max_attempts(1)
        .fallback_with_attempts(second, 2)
        .validator("even", |v| {
            if v["n"].as_i64().is_some_and(|n| n % 2 == 0) {
                vec![]
            } else {
                vec![rectify::Diagnostic::error(
                    "custom.odd",
                    rectify::Location::from_pointer("/n"),
                    "must be even",
                )]
            }
        })
        .validator("big", |v| {
            if v["n"].as_i64().is_some_and(|n| n > 3) {
                vec![]
            } else {
                vec![rectify::Diagnostic::error(
                    "custom.small",
                    rectify::Location::from_pointer("/n"),
                    "must be more than 3",
                )]
            }
        });
    let task = client
        .task("n?")
        .schema(json!({"required": ["n"]}))
        .unwrap();
    let outcome = block(client.run(&task));
    assert_eq!(outcome.value(), Some(&json!({"n": 4})));
    let providers: Vec<&str> = outcome
        .ledger()
        .attempts
        .iter()
        .map(|a| a.provider.as_str())
        .collect();
    assert_eq!(providers, ["small", "large", "large"]);
}

#[test]
fn conversations_and_feedback_reach_the_users_function() {
    let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
    let log = Arc::clone(&seen);
    let model = from_fn("mine", move |request: Request| {
        log.lock().unwrap().push(request.clone());
        async move {
            Ok::<_, String>(match request.feedback {
                None => r#"{"city": "Paris"}"#.to_owned(),
                Some(_) => r#"{"city": "Paris", "country": "France"}"#.to_owned(),
            })
        }
    });
    let value = block(Client::new(model).system("Be brief.").extract_value(
        [
            Message::user("I live in Paris."),
            Message::assistant("Nice!"),
            Message::user("Where do I live, as JSON?"),
        ],
        json!({"required": ["city", "country"]}),
    ))
    .unwrap();
    assert_eq!(value["country"], "France");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let first: Vec<(&str, &str)> = seen[0]
        .messages
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(first[0], ("system", "Be brief."));
    assert_eq!(first[1], ("user", "I live in Paris."));
    assert_eq!(first[2], ("assistant", "Nice!"));
    assert!(
        first[3]
            .1
            .starts_with("Where do I live, as JSON?\n\nAnswer with JSON only")
    );
    assert!(
        seen[1]
            .feedback
            .as_deref()
            .unwrap()
            .contains("missing required field \"country\"")
    );
}

#[test]
fn the_blocking_client_needs_no_runtime() {
    let model = ScriptedProvider::new("s").text("```json\n{\"ok\": true,}\n```");
    let client = rectify::blocking::Client::new(model)
        .unwrap()
        .configure(|c| c.max_attempts(1));
    let value = client
        .extract_value("ok?", json!({"required": ["ok"]}))
        .unwrap();
    assert_eq!(value, json!({"ok": true}));
}
