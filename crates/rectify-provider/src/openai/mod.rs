//! OpenAI-compatible chat completions (`POST {base}/chat/completions`).
//!
//! Works with OpenAI and with servers that copy its API: Ollama, vLLM, llama.cpp server,
//! LM Studio, OpenRouter. The base URL includes the version prefix, as in the OpenAI SDKs:
//! `https://api.openai.com/v1`, `http://localhost:11434/v1`.

mod stream;
pub(crate) mod wire;

use std::sync::atomic::{AtomicU8, Ordering};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};

use crate::http::{self, HttpOptions, HttpTransport, StreamCall, join_url};
use crate::retry::Retrier;
use crate::secret::ApiKey;
use crate::{
    Capabilities, CompletionFuture, ErrorKind, Message, Provider, ProviderError, Request, Response,
    StreamSink,
};

pub use crate::StructuredOutput;

/// The request parameter a server may reject, answered by a weaker structured-output mode.
const RESPONSE_FORMAT: &str = "response_format";

/// The OpenAI API's own base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Configuration of an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The model name sent in each request.
    pub model: String,
    /// The base URL including the version prefix (env `OPENAI_BASE_URL`).
    pub base_url: String,
    /// The bearer key (env `OPENAI_API_KEY`); optional for local servers.
    pub api_key: Option<ApiKey>,
    /// How JSON answers are requested first (env `RECTIFY_STRUCTURED_OUTPUT`); a server that
    /// rejects it gets the next weaker mode for the rest of the provider's life.
    pub structured_output: StructuredOutput,
    /// `strict` flag of the json_schema format (OpenAI then requires closed schemas).
    pub strict_schema: bool,
    /// The `name` of the json_schema format.
    pub schema_name: String,
    /// The request field for the output token limit (`max_tokens` or `max_completion_tokens`).
    pub max_tokens_field: String,
    /// The model's context size, when known (reported in capabilities).
    pub max_context_tokens: Option<u64>,
    /// Timeouts, body limit and retry budget.
    pub http: HttpOptions,
}

impl OpenAiConfig {
    /// A configuration for `model` on the OpenAI API, without a key.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: None,
            structured_output: StructuredOutput::default(),
            strict_schema: false,
            schema_name: "answer".to_owned(),
            max_tokens_field: "max_tokens".to_owned(),
            max_context_tokens: None,
            http: HttpOptions::default(),
        }
    }

    /// A configuration for `model` with `OPENAI_BASE_URL` and `OPENAI_API_KEY` from the
    /// environment, when set.
    pub fn from_env(model: impl Into<String>) -> Self {
        let mut config = Self::new(model);
        if let Some(url) = std::env::var("OPENAI_BASE_URL")
            .ok()
            .filter(|u| !u.trim().is_empty())
        {
            url.trim().clone_into(&mut config.base_url);
        }
        config.api_key = ApiKey::from_env("OPENAI_API_KEY");
        if let Some(mode) = std::env::var("RECTIFY_STRUCTURED_OUTPUT")
            .ok()
            .and_then(|m| m.parse().ok())
        {
            config.structured_output = mode;
        }
        config
    }

    /// Sets the base URL.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets the key.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }
}

/// A provider for an OpenAI-compatible endpoint.
///
/// When the server rejects the `response_format` it was sent (a 400, 422 or 500 whose body
/// names `response_format`, as llama-cpp-python's server answers `json_schema`), the same
/// call is made once more with the next weaker [`StructuredOutput`] mode, without counting a
/// transport retry; the weaker mode is kept for every later call, and the answer's
/// [`Response::notices`] says what changed.
#[derive(Debug)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    name: String,
    endpoint: String,
    headers: HeaderMap,
    transport: HttpTransport,
    mode: AtomicU8,
}

impl OpenAiProvider {
    /// Builds the provider; fails on a bad URL or key, or a missing key for the OpenAI API.
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let name = format!("openai:{}", config.model);
        if !config.base_url.starts_with("http://") && !config.base_url.starts_with("https://") {
            return Err(ProviderError::config(
                &name,
                format!("base url `{}` is not http(s)", config.base_url),
            ));
        }
        if config.api_key.is_none() && config.base_url.starts_with(DEFAULT_BASE_URL) {
            return Err(ProviderError::config(&name, "OPENAI_API_KEY is not set"));
        }
        let mut headers = HeaderMap::new();
        if let Some(key) = &config.api_key {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                    ProviderError::config(&name, "the API key is not a valid header value")
                })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let endpoint = join_url(&config.base_url, "chat/completions");
        let mut transport = HttpTransport::new(
            &name,
            &endpoint,
            config.http.clone(),
            config.api_key.clone(),
        )?;
        transport.set_rejected_parameter(RESPONSE_FORMAT);
        let mode = AtomicU8::new(config.structured_output.to_u8());
        Ok(Self {
            config,
            name,
            endpoint,
            headers,
            transport,
            mode,
        })
    }

    /// The structured-output mode in use (the configured one until a server rejected it).
    pub fn structured_output(&self) -> StructuredOutput {
        StructuredOutput::from_u8(self.mode.load(Ordering::Relaxed))
    }

    /// Replaces the retrier (for example to inject a recording sleeper in tests).
    pub fn with_retrier(mut self, retrier: Retrier) -> Self {
        self.transport.set_retrier(retrier);
        self
    }

    async fn call(&self, request: &Request) -> Result<Response, ProviderError> {
        let mut notices = Vec::new();
        let mut request = std::borrow::Cow::Borrowed(request);
        loop {
            let mode = self.structured_output();
            let sent = wire::sent_format(mode, &request);
            let body = wire::request_body(&self.config, mode, &request);
            let result = self
                .transport
                .post_json(
                    &self.name,
                    &self.endpoint,
                    &self.headers,
                    &body,
                    request.timeout,
                )
                .await;
            let error = match result {
                Ok(reply) => {
                    let mut response = http::into_response(
                        reply,
                        &self.name,
                        &self.config.model,
                        wire::parse_response,
                    )?;
                    response.notices = notices;
                    return Ok(response);
                }
                Err(error) => error,
            };
            let Some(weaker) = self.rejected(&error, sent) else {
                return Err(error);
            };
            notices.push(format!(
                "the server rejected `response_format: {sent}` ({}); using `{weaker}` for the rest of the run",
                rejection_summary(&error.kind)
            ));
            tracing::warn!(provider = %self.name, %sent, %weaker, "structured output rejected, falling back");
            if sent == StructuredOutput::JsonSchema {
                request = std::borrow::Cow::Owned(with_schema_in_prompt(&request));
            }
        }
    }

    /// One streamed call (`stream: true`, usage asked for at the end); a rejected
    /// `response_format` falls back as in [`Self::call`], before any text has arrived.
    async fn call_streaming(
        &self,
        request: &Request,
        sink: &mut dyn StreamSink,
    ) -> Result<Response, ProviderError> {
        let mut notices = Vec::new();
        let mut request = std::borrow::Cow::Borrowed(request);
        loop {
            let mode = self.structured_output();
            let sent = wire::sent_format(mode, &request);
            let mut body = wire::request_body(&self.config, mode, &request);
            body["stream"] = true.into();
            body["stream_options"] = serde_json::json!({"include_usage": true});
            let call = StreamCall {
                provider: &self.name,
                url: &self.endpoint,
                headers: &self.headers,
                body: &body,
                timeout: request.timeout,
                default_model: &self.config.model,
                parse: wire::parse_response,
            };
            let mut events = stream::OpenAiStream::default();
            let error = match self.transport.post_stream(&call, &mut events, sink).await {
                Ok(mut response) => {
                    response.notices = notices;
                    return Ok(response);
                }
                Err(error) => error,
            };
            let Some(weaker) = self.rejected(&error, sent) else {
                return Err(error);
            };
            notices.push(format!(
                "the server rejected `response_format: {sent}` ({}); using `{weaker}` for the rest of the run",
                rejection_summary(&error.kind)
            ));
            if sent == StructuredOutput::JsonSchema {
                request = std::borrow::Cow::Owned(with_schema_in_prompt(&request));
            }
        }
    }

    /// The weaker mode to use when `error` says the server rejected the `response_format`
    /// sent as `sent`; remembered for later calls.
    fn rejected(&self, error: &ProviderError, sent: StructuredOutput) -> Option<StructuredOutput> {
        let ErrorKind::Unsupported { parameter, .. } = &error.kind else {
            return None;
        };
        if parameter != RESPONSE_FORMAT {
            return None;
        }
        let weaker = sent.fallback()?;
        // Never go back up: a concurrent call may already have fallen further.
        self.mode.fetch_max(weaker.to_u8(), Ordering::Relaxed);
        Some(self.structured_output())
    }
}

impl Provider for OpenAiProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(self.call(request))
    }

    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        Box::pin(self.call_streaming(request, sink))
    }

    fn streams(&self) -> bool {
        true
    }

    fn capabilities(&self) -> Capabilities {
        let mode = self.structured_output();
        Capabilities {
            json_mode: mode != StructuredOutput::Off,
            json_schema: mode == StructuredOutput::JsonSchema,
            system_prompt: true,
            multi_turn: true,
            agent: false,
            max_context_tokens: self.config.max_context_tokens,
        }
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// The status and the start of the body of a rejection, for the notice.
fn rejection_summary(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::Unsupported { status, body, .. } => {
            let body: String = body.chars().take(160).collect();
            format!("http status {status}: {}", body.trim())
        }
        other => other.to_string(),
    }
}

/// The request with the schema spelled out in its last user message: the loop left it out
/// because the provider said it could enforce it, and the weaker mode cannot.
fn with_schema_in_prompt(request: &Request) -> Request {
    let mut request = request.clone();
    let Some(schema) = &request.schema else {
        return request;
    };
    let note = format!("\n\nAnswer with JSON only, matching this JSON Schema:\n{schema}");
    match request
        .messages
        .iter_mut()
        .rev()
        .find(|m| m.role == crate::Role::User)
    {
        Some(message) => message.content.push_str(&note),
        None => request.messages.push(Message::user(note.trim_start())),
    }
    request
}
