//! A provider made from the caller's own async function: their client, their agent, their
//! retries; rectify checks, repairs and re-asks around it.

use std::fmt;
use std::future::Future;
use std::time::Instant;

use crate::{
    Capabilities, CompletionFuture, ErrorKind, FinishReason, Provider, ProviderError, Request,
    Response, Usage,
};

/// A [`Provider`] that calls a function with each [`Request`] (its messages, schema and, on a
/// re-ask, the [`feedback`](Request::feedback)) and takes the text it returns as the answer.
///
/// Made with [`from_fn`]. By default it declares no structured output (the loop puts the
/// schema in the prompt), real system prompts and multi-turn conversations; change that with
/// [`FnProvider::with_capabilities`].
pub struct FnProvider<F> {
    name: String,
    capabilities: Capabilities,
    function: F,
}

/// A provider from an async function that takes the request and returns the answer's text.
///
/// An `Err` from the function is a provider failure (not retried, not an attempt).
///
/// ```
/// use rectify_provider::{Provider, Request, from_fn};
///
/// let agent = from_fn("echo", |request: Request| async move {
///     let last = request.messages.last().map(|m| m.content.clone()).unwrap_or_default();
///     Ok::<_, std::io::Error>(format!("{{\"said\": {last:?}}}"))
/// });
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let response = runtime.block_on(agent.complete(&Request::new("hi"))).unwrap();
/// assert_eq!(response.text, r#"{"said": "hi"}"#);
/// assert_eq!(agent.name(), "fn:echo");
/// ```
pub fn from_fn<F, Fut, E>(name: impl Into<String>, function: F) -> FnProvider<F>
where
    F: Fn(Request) -> Fut + Send + Sync,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: fmt::Display,
{
    FnProvider {
        name: format!("fn:{}", name.into()),
        capabilities: Capabilities {
            system_prompt: true,
            multi_turn: true,
            ..Capabilities::default()
        },
        function,
    }
}

impl<F> FnProvider<F> {
    /// Declares what the function can do (for example `json_schema: true` when it passes
    /// [`Request::schema`] on to a model that enforces it).
    pub fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }
}

impl<F> fmt::Debug for FnProvider<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnProvider")
            .field("name", &self.name)
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl<F, Fut, E> Provider for FnProvider<F>
where
    F: Fn(Request) -> Fut + Send + Sync,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: fmt::Display,
{
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        let start = Instant::now();
        let future = (self.function)(request.clone());
        Box::pin(async move {
            let result = future.await;
            let latency = start.elapsed();
            match result {
                Ok(text) => Ok(Response {
                    text,
                    finish_reason: FinishReason::Stop,
                    usage: Usage::default(),
                    model: self.name.clone(),
                    latency,
                    transport_retries: 0,
                    raw: String::new(),
                    notices: Vec::new(),
                }),
                Err(error) => {
                    let mut error = ProviderError::new(
                        self.name.clone(),
                        ErrorKind::Function {
                            message: error.to_string(),
                        },
                    );
                    error.elapsed = latency;
                    Err(error)
                }
            }
        })
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

    #[tokio::test]
    async fn errors_are_provider_failures_and_feedback_arrives() {
        let provider = from_fn("f", |request: Request| async move {
            match request.feedback {
                Some(feedback) => Ok(feedback),
                None => Err("no feedback yet"),
            }
        });
        let error = provider.complete(&Request::new("p")).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "fn:f: the provider function failed: no feedback yet"
        );
        assert!(!error.is_retryable());
        let mut request = Request::new("p");
        request.feedback = Some("fix it".into());
        assert_eq!(provider.complete(&request).await.unwrap().text, "fix it");
        assert!(!provider.capabilities().json_schema);
    }
}
