//! The built-in demonstrations: a schema, a request and a real answer taken from the request,
//! one per kind of request. The prompt shows the one that resembles the caller's request, so
//! the model sees the answer it is asked for made the way it should be: values read from the
//! request (extraction), or written from knowledge (anything else).

use serde_json::{Value, json};

/// A worked example for the few-shot prompt.
#[derive(Debug, Clone)]
pub struct Demo {
    /// The demonstration's schema.
    pub schema: Value,
    /// Its request.
    pub request: &'static str,
    /// Its answer.
    pub answer: Value,
}

/// The request of the demonstration for requests that are not extraction.
pub const DEMO_REQUEST: &str = "Who was Ada Lovelace?";

/// The demonstration for requests that ask for knowledge or writing.
pub fn general() -> Demo {
    Demo {
        schema: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "born": {"type": "integer"},
                "fields": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["name", "born", "fields"]
        }),
        request: DEMO_REQUEST,
        answer: json!({"name": "Ada Lovelace", "born": 1815, "fields": ["mathematics", "computing"]}),
    }
}

/// The demonstration for extraction requests: every value is copied from the request, numbers
/// as written, a yes/no read from the wording, a list of several spans.
pub fn extraction() -> Demo {
    Demo {
        schema: json!({
            "type": "object",
            "properties": {
                "guest": {"type": "string"},
                "restaurant": {"type": "string"},
                "city": {"type": "string"},
                "people": {"type": "integer"},
                "deposit": {"type": "number"},
                "paid": {"type": "boolean"},
                "dishes": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["guest", "restaurant", "city", "people", "deposit", "paid", "dishes"]
        }),
        request: "Extract the booking: Lena Park booked a table for 6 at Olive Tree in Denver, \
                  deposit 84.20 USD already paid; she wants the lamb stew and a cheese plate.",
        answer: json!({
            "guest": "Lena Park",
            "restaurant": "Olive Tree",
            "city": "Denver",
            "people": 6,
            "deposit": 84.20,
            "paid": true,
            "dishes": ["lamb stew", "cheese plate"]
        }),
    }
}
