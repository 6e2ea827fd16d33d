//! Replaying recorded calls from a cassette, and recording cassettes from any provider.
//!
//! [`RecordingProvider`] wraps a live provider and appends each call (request and response
//! or error) to a cassette file, with keys redacted. [`ReplayProvider`] answers from such a
//! file, in order, and keeps the requests it received so tests can assert what was sent; in
//! [`MatchMode::Strict`] each request must equal the recorded one.

mod cassette;
mod record;
mod redact;

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use cassette::{CASSETTE_VERSION, Cassette, Interaction, Recorded};
pub use record::RecordingProvider;
pub use redact::Redactor;

use crate::{Capabilities, CompletionFuture, Provider, ProviderError, Request, Response};
use cassette::replay_error;

/// How incoming requests are matched against the recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// Answer in recorded order, whatever the request.
    #[default]
    Sequential,
    /// Answer in recorded order, failing when a request differs from the recorded one
    /// (the per-try `timeout` is not compared).
    Strict,
}

/// A provider that answers from a cassette.
#[derive(Debug)]
pub struct ReplayProvider {
    cassette: Cassette,
    mode: MatchMode,
    name: String,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    next: usize,
    received: Vec<Request>,
}

impl ReplayProvider {
    /// Replays `cassette` in sequential mode.
    pub fn new(cassette: Cassette) -> Self {
        let name = format!("replay:{}", cassette.provider);
        Self {
            cassette,
            mode: MatchMode::Sequential,
            name,
            state: Mutex::new(State::default()),
        }
    }

    /// Loads and replays a cassette file.
    pub fn from_file(path: &Path) -> Result<Self, ProviderError> {
        Cassette::load(path).map(Self::new)
    }

    /// Sets the match mode.
    pub fn with_match_mode(mut self, mode: MatchMode) -> Self {
        self.mode = mode;
        self
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Request> {
        self.lock().received.clone()
    }

    /// Interactions not yet replayed.
    pub fn remaining(&self) -> usize {
        self.cassette
            .interactions
            .len()
            .saturating_sub(self.lock().next)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn answer(&self, request: &Request) -> Result<Response, ProviderError> {
        let mut state = self.lock();
        state.received.push(request.clone());
        let index = state.next;
        let Some(interaction) = self.cassette.interactions.get(index) else {
            let total = self.cassette.interactions.len();
            return Err(replay_error(
                &self.name,
                format!(
                    "request {} asked, but the cassette has only {total}",
                    index + 1
                ),
            ));
        };
        if self.mode == MatchMode::Strict {
            let differing = differing_fields(&interaction.request, request);
            if !differing.is_empty() {
                let message = format!(
                    "request {} differs from the recording in: {}",
                    index + 1,
                    differing.join(", ")
                );
                return Err(replay_error(&self.name, message));
            }
        }
        state.next += 1;
        match &interaction.result {
            Recorded::Response(response) => Ok(response.clone()),
            Recorded::Error(error) => Err(error.clone()),
        }
    }
}

/// The top-level request fields that differ (ignoring `timeout`).
fn differing_fields(recorded: &Request, actual: &Request) -> Vec<String> {
    let as_map = |r: &Request| match serde_json::to_value(Request {
        timeout: None,
        ..r.clone()
    }) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (a, b) = (as_map(recorded), as_map(actual));
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

impl Provider for ReplayProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(std::future::ready(self.answer(request)))
    }

    fn capabilities(&self) -> Capabilities {
        self.cassette.capabilities.clone()
    }

    fn name(&self) -> &str {
        &self.name
    }
}
