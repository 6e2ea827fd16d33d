//! OpenAI-compatible chat completions (`POST {base}/chat/completions`).
//!
//! Works with OpenAI and with servers that copy its API: Ollama, vLLM, llama.cpp server,
//! LM Studio, OpenRouter. The base URL includes the version prefix, as in the OpenAI SDKs:
//! `https://api.openai.com/v1`, `http://localhost:11434/v1`.

mod wire;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};

use crate::http::{self, HttpOptions, HttpTransport, join_url};
use crate::retry::Retrier;
use crate::secret::ApiKey;
use crate::{Capabilities, CompletionFuture, Provider, ProviderError, Request, Response};

/// The OpenAI API's own base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How a JSON answer is requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// `response_format: json_schema` when the request has a schema, else `json_object`.
    #[default]
    JsonSchema,
    /// Always `response_format: json_object` (for servers without schema support).
    JsonObject,
    /// Never send `response_format` (the prompt alone asks for JSON).
    Off,
}

/// Configuration of an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The model name sent in each request.
    pub model: String,
    /// The base URL including the version prefix (env `OPENAI_BASE_URL`).
    pub base_url: String,
    /// The bearer key (env `OPENAI_API_KEY`); optional for local servers.
    pub api_key: Option<ApiKey>,
    /// How JSON answers are requested.
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
#[derive(Debug)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    name: String,
    endpoint: String,
    headers: HeaderMap,
    transport: HttpTransport,
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

impl Provider for OpenAiProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(self.call(request))
    }

    fn capabilities(&self) -> Capabilities {
        let on = self.config.structured_output != StructuredOutput::Off;
        Capabilities {
            json_mode: on,
            json_schema: self.config.structured_output == StructuredOutput::JsonSchema,
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
