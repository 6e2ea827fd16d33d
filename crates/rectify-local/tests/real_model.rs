//! Tests against the real default model (see `rectify_local::fetch::DEFAULT_MODEL`).
//!
//! They need the model file: `RECTIFY_MODEL_PATH`, or the default model in the cache, put there
//! by `scripts/setup.sh`. Without it they fail (not skip) and say how to get it. One model
//! instance is shared and the tests run one at a time, on one thread each.
#![allow(clippy::unwrap_used, clippy::panic)] // helpers outside `#[test]` functions

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rectify_local::fetch::{DEFAULT_MODEL, cache_dir, default_model_path};
use rectify_local::{LocalModel, LocalOptions, LocalProvider};
use rectify_provider::{FinishReason, Message, Provider, Request, Response, STOPPED};
use serde_json::{Value, json};
use tokio::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::const_new(());

fn model_path() -> PathBuf {
    match std::env::var_os("RECTIFY_MODEL_PATH").filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => default_model_path(&cache_dir().unwrap()),
    }
}

fn model() -> Arc<LocalModel> {
    static MODEL: OnceLock<Arc<LocalModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let path = model_path();
            assert!(
                path.is_file(),
                "these tests need the model file {}, which is missing.\n\
                 Run `scripts/setup.sh` (or `cargo run -p rectify-local --example fetch-model`), \
                 or set RECTIFY_MODEL_PATH to a GGUF file.",
                path.display()
            );
            if std::env::var_os("RECTIFY_MODEL_PATH").is_some_and(|p| !p.is_empty()) {
                return LocalModel::shared(&path).unwrap();
            }
            // The default model as `rectify ask` runs it: converted on first use when its
            // catalog entry says so.
            LocalProvider::from_env_or_default(LocalOptions {
                model: Some(DEFAULT_MODEL.name.to_owned()),
                ..LocalOptions::default()
            })
            .unwrap()
            .load()
            .unwrap()
        })
        .clone()
}

async fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().await
}

fn provider(options: LocalOptions) -> LocalProvider {
    LocalProvider::with_model(
        model(),
        LocalOptions {
            threads: Some(1),
            ..options
        },
    )
}

fn raw(response: &Response) -> Value {
    serde_json::from_str(&response.raw).unwrap()
}

/// Asks under the schema and asserts a complete, schema-valid answer sampled under the grammar.
async fn assert_valid_answer(prompt: &str, schema: Value) -> Value {
    let provider = provider(LocalOptions::default());
    let request = Request::new(prompt)
        .with_schema(schema.clone())
        .with_max_output_tokens(300);
    let response = provider.complete(&request).await.unwrap();
    let meta = raw(&response);
    assert_eq!(
        response.finish_reason,
        FinishReason::Stop,
        "{}\n{meta}",
        response.text
    );
    let value: Value = serde_json::from_str(&response.text)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", response.text));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{value}: {errors:?}");
    assert_eq!(meta["constrained"], true, "{meta}");
    assert_eq!(meta["grammar"], "llguidance");
    // Every token was sampled under the mask or forced by the grammar.
    assert_eq!(
        meta["masked_steps"].as_u64().unwrap() + meta["forced_tokens"].as_u64().unwrap(),
        meta["output_tokens"].as_u64().unwrap(),
        "every token was masked or forced: {meta}"
    );
    assert!(response.usage.output_tokens > 0 && response.usage.input_tokens > 0);
    assert_eq!(
        response.usage.output_tokens,
        meta["output_tokens"].as_u64().unwrap()
    );
    value
}

/// The default model runs in the quantization its catalog entry converts it to (made on
/// first use beside the verified file, which stays as fetched).
#[tokio::test]
async fn the_default_model_runs_converted_beside_the_verified_file() {
    let _serial = serial().await;
    let (Some(conversion), false) = (
        DEFAULT_MODEL.convert_to,
        std::env::var_os("RECTIFY_MODEL_PATH").is_some_and(|p| !p.is_empty()),
    ) else {
        return;
    };
    let running = model().path().to_path_buf();
    let verified = model_path();
    assert_eq!(running.parent(), verified.parent());
    let name = running.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.ends_with(&format!(".{}.gguf", conversion.name())),
        "{name}"
    );
    assert!(verified.is_file(), "the verified file stays");
    let answer = assert_valid_answer(
        "Extract the invoice: ACME Corp owes 1250 EUR.",
        json!({"type": "object", "properties": {"customer": {"type": "string"}, "total": {"type": "number"}}, "required": ["customer", "total"], "additionalProperties": false}),
    )
    .await;
    assert_eq!(answer["total"], json!(1250));
}

#[tokio::test]
async fn flat_object_with_bounds_is_valid() {
    let _serial = serial().await;
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 40},
            "born": {"type": "integer", "minimum": 1000, "maximum": 2100},
            "fields": {"type": "array", "items": {"type": "string", "maxLength": 30}, "minItems": 1, "maxItems": 3}
        },
        "required": ["name", "born", "fields"],
        "additionalProperties": false
    });
    let value = assert_valid_answer("Describe the mathematician Ada Lovelace.", schema).await;
    assert!(value["born"].is_i64());
}

#[tokio::test]
async fn nested_plan_with_enums_is_valid() {
    let _serial = serial().await;
    let schema = json!({
        "type": "object",
        "properties": {
            "goal": {"type": "string", "maxLength": 80},
            "tasks": {
                "type": "array", "minItems": 1, "maxItems": 3,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "pattern": "^T[0-9]+$"},
                        "title": {"type": "string", "maxLength": 60},
                        "priority": {"enum": ["high", "medium", "low"]}
                    },
                    "required": ["id", "title", "priority"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["goal", "tasks"],
        "additionalProperties": false
    });
    let value = assert_valid_answer("Plan how to paint a fence.", schema).await;
    assert!(!value["tasks"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn refs_and_formats_are_valid() {
    let _serial = serial().await;
    let schema = json!({
        "$defs": {
            "person": {
                "type": "object",
                "properties": {"name": {"type": "string", "maxLength": 40}, "email": {"type": "string", "format": "email", "maxLength": 60}},
                "required": ["name", "email"],
                "additionalProperties": false
            }
        },
        "type": "object",
        "properties": {
            "organizer": {"$ref": "#/$defs/person"},
            "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "online": {"type": "boolean"}
        },
        "required": ["organizer", "date", "online"],
        "additionalProperties": false
    });
    assert_valid_answer(
        "Extract the meeting: Bob Smith (bob@example.org) hosts a video call on 2025-03-04.",
        schema,
    )
    .await;
}

#[tokio::test]
async fn the_quick_start_answer_takes_its_values_from_the_request() {
    let _serial = serial().await;
    let schema: Value = serde_json::from_str(include_str!(
        "../../../examples/quickstart/invoice.schema.json"
    ))
    .unwrap();
    let value = assert_valid_answer(
        "Extract the invoice from this sentence: ACME Corp owes 1250.00 EUR for the March deliveries.",
        schema,
    )
    .await;
    assert_eq!(value["customer"], "ACME Corp", "{value}");
    assert_eq!(value["total"].as_f64(), Some(1250.0), "{value}");
    assert_eq!(value["currency"], "EUR", "{value}");
}

/// A list the request names is filled: the model writes the list's opening bracket itself
/// (with the first item's quote, one token for Qwen's tokenizer), where a forced `":[` token
/// made it close the list empty.
#[tokio::test]
async fn a_list_the_request_names_is_not_closed_empty() {
    let _serial = serial().await;
    let value = assert_valid_answer(
        "Extract the trip details from this email: Hi, this is Hamish Dunbar. I am driving in \
         Japan and South Africa next spring.",
        json!({"type": "object", "properties": {
            "traveller": {"type": "string", "maxLength": 40},
            "countries": {"type": "array", "items": {"type": "string", "maxLength": 30}, "maxItems": 4}
        }, "required": ["traveller", "countries"], "additionalProperties": false}),
    )
    .await;
    assert_eq!(
        value["countries"],
        json!(["Japan", "South Africa"]),
        "{value}"
    );
}

#[tokio::test]
async fn the_token_budget_cuts_the_answer_with_finish_reason_length() {
    let _serial = serial().await;
    let provider = provider(LocalOptions::default());
    // At least 200 characters: no answer fits in 6 tokens.
    let schema = json!({
        "type": "object",
        "properties": {"story": {"type": "string", "minLength": 200}},
        "required": ["story"]
    });
    let request = Request::new("Tell a long story about a dragon.")
        .with_schema(schema)
        .with_max_output_tokens(6);
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(
        response.finish_reason,
        FinishReason::Length,
        "{}",
        response.text
    );
    assert_eq!(response.usage.output_tokens, 6);
    assert!(
        response.text.starts_with("{\"story\":"),
        "{}",
        response.text
    );
    assert!(serde_json::from_str::<Value>(&response.text).is_err());
}

#[tokio::test]
async fn unconstrained_mode_samples_without_a_grammar() {
    let _serial = serial().await;
    let provider = provider(LocalOptions {
        constrained: false,
        ..LocalOptions::default()
    });
    let request = Request::new("Name a colour.")
        .with_schema(json!({"type": "object", "properties": {"colour": {"type": "string"}}}))
        .with_max_output_tokens(40);
    let response = provider.complete(&request).await.unwrap();
    let meta = raw(&response);
    assert_eq!(meta["constrained"], false, "{meta}");
    assert_eq!(meta["masked_steps"], 0, "{meta}");
    assert!(
        !response.text.contains("\nRequest:"),
        "stop sequence cut: {}",
        response.text
    );
}

#[tokio::test]
async fn sampling_at_temperature_is_valid_and_seeded_per_call() {
    let _serial = serial().await;
    let provider = provider(LocalOptions::default());
    let schema = json!({
        "type": "object",
        "properties": {"animal": {"type": "string", "maxLength": 30}, "legs": {"type": "integer", "minimum": 0, "maximum": 100}},
        "required": ["animal", "legs"],
        "additionalProperties": false
    });
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut seeds = Vec::new();
    for _ in 0..2 {
        let request = Request::new("Name an animal and its number of legs.")
            .with_schema(schema.clone())
            .with_temperature(0.7)
            .with_max_output_tokens(100);
        let response = provider.complete(&request).await.unwrap();
        let value: Value = serde_json::from_str(&response.text).unwrap();
        assert!(validator.is_valid(&value), "{value}");
        seeds.push(raw(&response)["seed"].clone());
    }
    assert_ne!(seeds[0], seeds[1]);
}

#[tokio::test]
async fn a_prompt_longer_than_the_context_is_a_configuration_error() {
    let _serial = serial().await;
    let provider = provider(LocalOptions {
        max_context: 64,
        ..LocalOptions::default()
    });
    let request = Request::new("word ".repeat(200));
    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        error.to_string().contains("but the context holds 64"),
        "{error}"
    );
}

#[tokio::test]
async fn a_list_does_not_repeat_its_items_until_the_token_limit() {
    let _serial = serial().await;
    // Grounding off: the answer is exactly what was sampled (no repeats dropped afterwards).
    let provider = provider(LocalOptions {
        grounding: rectify_local::Grounding::Off,
        ..LocalOptions::default()
    });
    let schema = json!({
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 20}}},
        "required": ["tags"]
    });
    let request = Request::new(
        "Extract the tags from this note: the incident touched databases and reliability.",
    )
    .with_schema(schema)
    .with_max_output_tokens(300);
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(
        response.finish_reason,
        FinishReason::Stop,
        "{}",
        response.text
    );
    let value: Value = serde_json::from_str(&response.text).unwrap();
    let tags: Vec<&Value> = value["tags"].as_array().unwrap().iter().collect();
    for (i, tag) in tags.iter().enumerate() {
        assert!(!tags[..i].contains(tag), "repeated item: {}", response.text);
    }
}

#[tokio::test]
async fn a_repeated_prompt_reuses_the_cache_and_answers_the_same() {
    let _serial = serial().await;
    let provider = provider(LocalOptions::default());
    let schema = json!({
        "type": "object",
        "properties": {"customer": {"type": "string"}, "total": {"type": "number"}},
        "required": ["customer", "total"]
    });
    let ask = |prompt: &str| {
        Request::new(prompt)
            .with_schema(schema.clone())
            .with_max_output_tokens(60)
    };
    // Another prompt first, so the cache holds something that shares only a prefix.
    let first = ask("Extract the order: Dana Holt pays 40 USD.");
    provider.complete(&first).await.unwrap();
    let request = ask("Extract the order: Kim Berg pays 75 USD.");
    let fresh = provider.complete(&request).await.unwrap();
    let again = provider.complete(&request).await.unwrap();
    let (fresh_meta, again_meta) = (raw(&fresh), raw(&again));
    let prompt = again_meta["prompt_tokens"].as_u64().unwrap();
    assert!(
        fresh_meta["reused_prompt_tokens"].as_u64().unwrap() > 0,
        "the shared instruction is reused: {fresh_meta}"
    );
    assert_eq!(
        again_meta["reused_prompt_tokens"].as_u64(),
        Some(prompt - 1),
        "all but the last token: {again_meta}"
    );
    assert_eq!(fresh.text, again.text);
}

/// A re-ask (the loop's next attempt: the request, the answer, the feedback) evaluates only
/// what the first attempt's prompt did not have: the request's turns come from the cache.
#[tokio::test]
async fn a_re_ask_evaluates_only_the_turns_after_the_request() {
    let _serial = serial().await;
    let provider = provider(LocalOptions::default());
    let schema = json!({
        "type": "object",
        "properties": {"customer": {"type": "string"}, "total": {"type": "integer"}},
        "required": ["customer", "total"]
    });
    let prompt = "Extract the order: Kim Berg pays 75 USD for two lamps.";
    let first = Request::new(prompt)
        .with_schema(schema.clone())
        .with_max_output_tokens(60);
    let answer = provider.complete(&first).await.unwrap();
    let first_prompt = raw(&answer)["prompt_tokens"].as_u64().unwrap();
    let again = Request::from_messages(vec![
        Message::user(prompt),
        Message::assistant(answer.text.clone()),
        Message::user("/total: got 75, expected the total in cents (7500). Answer again."),
    ])
    .with_schema(schema)
    .with_max_output_tokens(60);
    let meta = raw(&provider.complete(&again).await.unwrap());
    let reused = meta["reused_prompt_tokens"].as_u64().unwrap();
    assert!(
        reused + 4 >= first_prompt,
        "the first prompt ({first_prompt} tokens) is restored, not evaluated again: {meta}"
    );
    assert!(meta["prompt_tokens"].as_u64().unwrap() > first_prompt);
}

/// Two providers in one process (a constrained and a free one, the calls of an MCP server, or
/// runs after one another) share the model: the second finds the instance the first loaded
/// (not a second load) and, with it, the first one's prompt cache. (A workflow run goes
/// further and uses one provider for all its steps: rectify-flow's `SpecFactory`.)
#[tokio::test]
async fn a_second_provider_shares_the_loaded_model_and_its_cache() {
    let _serial = serial().await;
    let model = model();
    assert!(Arc::ptr_eq(
        &model,
        &LocalModel::shared(model.path()).unwrap()
    ));
    let ask = |customer: &str| {
        Request::new(format!("Extract the order: {customer} pays 40 USD."))
            .with_schema(json!({"type": "object", "properties": {"customer": {"type": "string"}}}))
            .with_max_output_tokens(40)
    };
    provider(LocalOptions::default())
        .complete(&ask("Dana Holt"))
        .await
        .unwrap();
    let next_step = LocalProvider::with_model(
        LocalModel::shared(model.path()).unwrap(),
        LocalOptions {
            threads: Some(1),
            ..LocalOptions::default()
        },
    );
    let meta = raw(&next_step.complete(&ask("Kim Berg")).await.unwrap());
    assert!(
        meta["reused_prompt_tokens"].as_u64().unwrap() > 10,
        "the shared instruction comes from the first provider's cache: {meta}"
    );
}

/// Streams `request` into a sink that stops once `stop_at` is in the text; the pieces handed
/// over and the answer.
async fn stream(
    provider: &LocalProvider,
    request: &Request,
    stop_at: Option<&str>,
) -> (Vec<String>, Response) {
    let mut pieces: Vec<String> = Vec::new();
    let mut sink = |piece: &str| {
        pieces.push(piece.to_owned());
        match stop_at {
            Some(stop) if pieces.concat().contains(stop) => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    };
    let response = provider
        .complete_streaming(request, &mut sink)
        .await
        .unwrap();
    (pieces, response)
}

/// Streaming (issue 40): the answer is handed over as it is decoded, its pieces joining into
/// the same text a whole answer has (a character split between byte-level tokens joined);
/// a stop from the sink ends decoding right there, the answer being what the sink was handed.
#[tokio::test]
async fn a_streamed_answer_arrives_as_it_is_decoded_and_stops_when_asked() {
    let _serial = serial().await;
    let provider = provider(LocalOptions::default());
    assert!(provider.streams());
    // Free text: one token at a time.
    let request =
        Request::new("Write one sentence about the café Zoë runs.").with_max_output_tokens(24);
    let whole = provider.complete(&request).await.unwrap();
    let (pieces, streamed) = stream(&provider, &request, None).await;
    assert_eq!(streamed.text, whole.text);
    assert_eq!(pieces.concat(), streamed.text);
    assert!(pieces.len() > 5, "{pieces:?}");
    // Under a grammar that forces most of the answer (the grounded values), in larger pieces.
    let schema = json!({
        "type": "object",
        "properties": {"customer": {"type": "string"}, "total": {"type": "number"}},
        "required": ["customer", "total"]
    });
    let request = Request::new("Extract the order: Zoë Brandt pays 75 USD.")
        .with_schema(schema)
        .with_max_output_tokens(60);
    let whole = provider.complete(&request).await.unwrap();
    let (pieces, streamed) = stream(&provider, &request, None).await;
    assert_eq!(streamed.text, whole.text);
    assert_eq!(streamed.finish_reason, FinishReason::Stop);
    assert_eq!(pieces.concat(), streamed.text);
    let (pieces, stopped) = stream(&provider, &request, Some(":")).await;
    assert_eq!(
        stopped.finish_reason,
        FinishReason::Other(STOPPED.to_owned())
    );
    assert_eq!(stopped.text, pieces.concat());
    assert!(whole.text.starts_with(&stopped.text), "{}", stopped.text);
    assert!(stopped.text.len() < whole.text.len(), "{}", stopped.text);
    let tokens = |r: &Response| raw(r)["output_tokens"].as_u64().unwrap();
    assert!(tokens(&stopped) < tokens(&whole), "{}", stopped.raw);
    assert_eq!(raw(&stopped)["finish"], "stopped");
}
