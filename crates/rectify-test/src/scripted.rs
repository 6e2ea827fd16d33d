//! A [`Provider`] that answers from a script and records every request, for testing
//! everything above the provider trait without a network.
//!
//! ```
//! use rectify_provider::{Provider, Request};
//! use rectify_test::scripted::ScriptedProvider;
//!
//! let provider = ScriptedProvider::new("scripted").text("{\"ok\": true}");
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let response = runtime.block_on(provider.complete(&Request::new("hi"))).unwrap();
//! assert_eq!(response.text, "{\"ok\": true}");
//! assert_eq!(provider.requests()[0].messages[0].content, "hi");
//! // The script is spent: the next call fails with an error that says so.
//! assert!(runtime.block_on(provider.complete(&Request::new("again"))).is_err());
//! ```

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rectify_provider::{
    Capabilities, CompletionFuture, ErrorKind, FinishReason, Provider, ProviderError, Request,
    Response, Usage,
};

/// One scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Scripted {
    /// Answer with this response.
    Response(Response),
    /// Fail with this error.
    Error(ProviderError),
}

#[derive(Debug, Default)]
struct State {
    script: VecDeque<Scripted>,
    requests: Vec<Request>,
    calls: usize,
}

/// Answers from a list of scripted responses and errors, in order, and records every
/// request it receives.
///
/// When the script is spent it answers with the `repeat` entry if one is set, otherwise with
/// a non-retryable error. Responses take no time.
#[derive(Debug)]
pub struct ScriptedProvider {
    name: String,
    model: String,
    usage: Usage,
    capabilities: Capabilities,
    repeat: Option<Scripted>,
    record: bool,
    state: Mutex<State>,
}

impl ScriptedProvider {
    /// An empty script. Capabilities: JSON mode, JSON Schema, system prompts and multi-turn.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            model: name.clone(),
            name,
            usage: Usage::new(10, 5),
            capabilities: Capabilities {
                json_mode: true,
                json_schema: true,
                system_prompt: true,
                multi_turn: true,
                agent: false,
                max_context_tokens: None,
            },
            repeat: None,
            record: true,
            state: Mutex::new(State::default()),
        }
    }

    /// Sets the model name reported in responses (default: the provider name).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Sets the usage reported by [`ScriptedProvider::text`] responses (default 10 + 5).
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Sets the declared capabilities.
    pub fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answers with `entry` forever once the script is spent.
    pub fn repeating(mut self, entry: Scripted) -> Self {
        self.repeat = Some(entry);
        self
    }

    /// Stops recording requests (for benchmarks that make millions of calls).
    pub fn without_recording(mut self) -> Self {
        self.record = false;
        self
    }

    /// Appends an answer with `text`, finish reason `stop` and the default usage.
    pub fn text(self, text: impl Into<String>) -> Self {
        let response = self.response(text, FinishReason::Stop);
        self.respond(response)
    }

    /// Appends an answer cut off at the token limit (`finish_reason=length`).
    pub fn truncated(self, text: impl Into<String>) -> Self {
        let response = self.response(text, FinishReason::Length);
        self.respond(response)
    }

    /// Appends a refusal.
    pub fn refusal(self, text: impl Into<String>) -> Self {
        let response = self.response(text, FinishReason::Refusal);
        self.respond(response)
    }

    /// Appends a full response.
    pub fn respond(self, response: Response) -> Self {
        self.push(Scripted::Response(response))
    }

    /// Appends an error.
    pub fn fail(self, error: ProviderError) -> Self {
        self.push(Scripted::Error(error))
    }

    /// Appends any entry.
    pub fn push(self, entry: Scripted) -> Self {
        self.lock().script.push_back(entry);
        self
    }

    /// A response of this provider with `text` and `finish_reason`.
    pub fn response(&self, text: impl Into<String>, finish_reason: FinishReason) -> Response {
        Response {
            text: text.into(),
            finish_reason,
            usage: self.usage,
            model: self.model.clone(),
            latency: Duration::ZERO,
            transport_retries: 0,
            raw: String::new(),
            notices: Vec::new(),
        }
    }

    /// Every request received so far, in order (empty when recording is off).
    pub fn requests(&self) -> Vec<Request> {
        self.lock().requests.clone()
    }

    /// How many calls were made.
    pub fn calls(&self) -> usize {
        self.lock().calls
    }

    /// Scripted entries not yet used.
    pub fn remaining(&self) -> usize {
        self.lock().script.len()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn next(&self, request: &Request) -> Result<Response, ProviderError> {
        let mut state = self.lock();
        state.calls += 1;
        if self.record {
            state.requests.push(request.clone());
        }
        let entry = state.script.pop_front().or_else(|| self.repeat.clone());
        drop(state);
        match entry {
            Some(Scripted::Response(response)) => Ok(response),
            Some(Scripted::Error(error)) => Err(error),
            None => Err(ProviderError::new(
                &self.name,
                ErrorKind::InvalidResponse {
                    message: "scripted provider: no scripted response left".into(),
                },
            )),
        }
    }
}

impl Provider for ScriptedProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        let result = self.next(request);
        Box::pin(async move { result })
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities.clone()
    }

    fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn answers_in_order_and_records_requests() {
        let error = ProviderError::config("s", "bad");
        let provider = ScriptedProvider::new("s")
            .text("a")
            .fail(error.clone())
            .truncated("b");
        assert_eq!(
            block(provider.complete(&Request::new("1"))).unwrap().text,
            "a"
        );
        assert_eq!(
            block(provider.complete(&Request::new("2"))).unwrap_err(),
            error
        );
        let cut = block(provider.complete(&Request::new("3"))).unwrap();
        assert_eq!(cut.finish_reason, FinishReason::Length);
        let prompts: Vec<String> = provider
            .requests()
            .iter()
            .map(|r| r.messages[0].content.clone())
            .collect();
        assert_eq!(prompts, vec!["1", "2", "3"]);
        assert_eq!((provider.calls(), provider.remaining()), (3, 0));
    }

    #[test]
    fn repeats_when_spent_and_can_skip_recording() {
        let provider = ScriptedProvider::new("s").without_recording();
        let entry = Scripted::Response(provider.response("x", FinishReason::Stop));
        let provider = provider.repeating(entry);
        for _ in 0..3 {
            assert_eq!(
                block(provider.complete(&Request::new("q"))).unwrap().text,
                "x"
            );
        }
        assert!(provider.requests().is_empty());
        assert_eq!(provider.calls(), 3);
    }
}
