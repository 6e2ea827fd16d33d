//! The Anthropic Messages API (`POST {base}/v1/messages`).

mod stream;
pub(crate) mod wire;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::http::{self, HttpOptions, HttpTransport, StreamCall, join_url};
use crate::retry::Retrier;
use crate::secret::ApiKey;
use crate::{
    Capabilities, CompletionFuture, Provider, ProviderError, Request, Response, StreamSink,
};

/// The Anthropic API's own base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The `anthropic-version` header sent by default.
pub const DEFAULT_VERSION: &str = "2023-06-01";

/// Configuration of the Anthropic Messages API.
#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// The model name sent in each request.
    pub model: String,
    /// The base URL without the version prefix (env `ANTHROPIC_BASE_URL`).
    pub base_url: String,
    /// The key sent as `x-api-key` (env `ANTHROPIC_API_KEY`).
    pub api_key: Option<ApiKey>,
    /// The `anthropic-version` header.
    pub version: String,
    /// `max_tokens` when the request sets none (the API requires one).
    pub default_max_tokens: u32,
    /// The model's context size, when known (reported in capabilities).
    pub max_context_tokens: Option<u64>,
    /// Timeouts, body limit and retry budget.
    pub http: HttpOptions,
}

impl AnthropicConfig {
    /// A configuration for `model` on the Anthropic API, without a key.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: None,
            version: DEFAULT_VERSION.to_owned(),
            default_max_tokens: 4096,
            max_context_tokens: None,
            http: HttpOptions::default(),
        }
    }

    /// A configuration for `model` with `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` from the
    /// environment, when set.
    pub fn from_env(model: impl Into<String>) -> Self {
        let mut config = Self::new(model);
        if let Some(url) = std::env::var("ANTHROPIC_BASE_URL")
            .ok()
            .filter(|u| !u.trim().is_empty())
        {
            url.trim().clone_into(&mut config.base_url);
        }
        config.api_key = ApiKey::from_env("ANTHROPIC_API_KEY");
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

/// A provider for the Anthropic Messages API.
#[derive(Debug)]
pub struct AnthropicProvider {
    config: AnthropicConfig,
    name: String,
    endpoint: String,
    headers: HeaderMap,
    transport: HttpTransport,
}

impl AnthropicProvider {
    /// Builds the provider; fails on a bad URL, version or key, or a missing key for the
    /// Anthropic API itself.
    pub fn new(config: AnthropicConfig) -> Result<Self, ProviderError> {
        let name = format!("anthropic:{}", config.model);
        if !config.base_url.starts_with("http://") && !config.base_url.starts_with("https://") {
            return Err(ProviderError::config(
                &name,
                format!("base url `{}` is not http(s)", config.base_url),
            ));
        }
        if config.api_key.is_none() && config.base_url.starts_with(DEFAULT_BASE_URL) {
            return Err(ProviderError::config(&name, "ANTHROPIC_API_KEY is not set"));
        }
        let headers = headers(&config).map_err(|message| ProviderError::config(&name, message))?;
        let endpoint = join_url(&config.base_url, "v1/messages");
        let transport = HttpTransport::new(
            &name,
            &endpoint,
            config.http.clone(),
            config.api_key.clone(),
        )?;
        Ok(Self {
            config,
            name,
            endpoint,
            headers,
            transport,
        })
    }

    /// Replaces the retrier (for example to inject a recording sleeper in tests).
    pub fn with_retrier(mut self, retrier: Retrier) -> Self {
        self.transport.set_retrier(retrier);
        self
    }

    /// One streamed call (`stream: true`).
    async fn call_streaming(
        &self,
        request: &Request,
        sink: &mut dyn StreamSink,
    ) -> Result<Response, ProviderError> {
        let mut body = wire::request_body(&self.config, request);
        body["stream"] = true.into();
        let call = StreamCall {
            provider: &self.name,
            url: &self.endpoint,
            headers: &self.headers,
            body: &body,
            timeout: request.timeout,
            default_model: &self.config.model,
            parse: wire::parse_response,
        };
        let mut events = stream::AnthropicStream::default();
        self.transport.post_stream(&call, &mut events, sink).await
    }

    async fn call(&self, request: &Request) -> Result<Response, ProviderError> {
        let body = wire::request_body(&self.config, request);
        let reply = self
            .transport
            .post_json(
                &self.name,
                &self.endpoint,
                &self.headers,
                &body,
                request.timeout,
            )
            .await?;
        http::into_response(reply, &self.name, &self.config.model, wire::parse_response)
    }
}

fn headers(config: &AnthropicConfig) -> Result<HeaderMap, &'static str> {
    let mut headers = HeaderMap::new();
    let version =
        HeaderValue::from_str(&config.version).map_err(|_| "invalid anthropic-version")?;
    headers.insert(HeaderName::from_static("anthropic-version"), version);
    if let Some(key) = &config.api_key {
        let mut value = HeaderValue::from_str(key.expose())
            .map_err(|_| "the API key is not a valid header value")?;
        value.set_sensitive(true);
        headers.insert(HeaderName::from_static("x-api-key"), value);
    }
    Ok(headers)
}

impl Provider for AnthropicProvider {
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
        Capabilities {
            json_mode: false,
            json_schema: false,
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
