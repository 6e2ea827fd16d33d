//! Your own function as the model: keep your client or agent, let rectify check, repair and
//! re-ask around it. The function receives each request (messages, schema, and on a re-ask
//! the feedback) and returns text. Runs as is (the "client" here is a stand-in).
//!
//! ```text
//! cargo run -p rectify --example own_function
//! ```

use std::sync::atomic::{AtomicU32, Ordering};

use rectify::provider::{Request, from_fn};
use rectify::{Client, Message};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the fields are shown with `{:?}` only
struct Contact {
    name: String,
    email: String,
}

/// Stands in for the call to your own model client or agent (async, as a real one is).
async fn my_agent(
    prompt: String,
    feedback: Option<String>,
    calls: &AtomicU32,
) -> Result<String, String> {
    tokio::task::yield_now().await;
    let n = calls.fetch_add(1, Ordering::Relaxed);
    println!(
        "call {n}: {} chars of prompt, feedback: {feedback:?}",
        prompt.len()
    );
    Ok(match feedback {
        None => r#"Sure! {"name": "Ada Lovelace"}"#.to_owned(),
        Some(_) => {
            "```json\n{\"name\": \"Ada Lovelace\", \"email\": \"ada@example.org\",}\n```".to_owned()
        }
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), rectify::Error> {
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let model = from_fn("my-agent", |request: Request| async move {
        let prompt = request
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        my_agent(prompt, request.feedback, &CALLS).await
    });
    let client = Client::new(model);
    // A conversation in, not only a prompt.
    let contact: Contact = client
        .extract([
            Message::system("You extract contact details."),
            Message::user("From: Ada Lovelace <ada@example.org>"),
            Message::user("Give me the sender as JSON."),
        ])
        .await?;
    println!("{contact:?}");
    Ok(())
}
