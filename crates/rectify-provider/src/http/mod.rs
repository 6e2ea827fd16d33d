//! HTTP plumbing shared by the HTTP backends: one bounded POST per try, errors classified for
//! the retry layer, secrets redacted from everything kept.

mod body;
mod sse;
mod stream;

pub(crate) use sse::SseEvent;
pub(crate) use stream::{StreamCall, StreamWire, stopped_answer};

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::retry::{Retried, Retrier, RetryPolicy, parse_retry_after, parse_retry_after_ms};
use crate::secret::{ApiKey, redact_secret};
use crate::{ErrorKind, ProviderError};

/// The parts of a completion a backend's wire format extracts from a response body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) finish_reason: crate::FinishReason,
    pub(crate) usage: crate::Usage,
    pub(crate) model: Option<String>,
}

/// Turns a successful reply into a [`crate::Response`]: `parse` reads the backend's wire
/// format; a body it rejects is an error that still reports the retries and time spent.
pub(crate) fn into_response(
    reply: Retried<String>,
    provider: &str,
    default_model: &str,
    parse: fn(&str) -> Result<Answer, ErrorKind>,
) -> Result<crate::Response, ProviderError> {
    let answer = parse(&reply.value).map_err(|kind| ProviderError {
        kind,
        provider: provider.to_owned(),
        retries: reply.retries,
        elapsed: reply.elapsed,
        received: None,
    })?;
    Ok(crate::Response {
        text: answer.text,
        finish_reason: answer.finish_reason,
        usage: answer.usage,
        model: answer.model.unwrap_or_else(|| default_model.to_owned()),
        latency: reply.elapsed,
        transport_retries: reply.retries,
        raw: reply.value,
        notices: Vec::new(),
    })
}

/// Token counts from a response's usage object, read under the backend's key names; a
/// missing object or count is 0.
pub(crate) fn usage_from(usage: Option<&Value>, input_key: &str, output_key: &str) -> crate::Usage {
    let count = |key: &str| {
        usage
            .and_then(|u| u.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    crate::Usage::new(count(input_key), count(output_key))
}

/// How many bytes of an error body are kept in the error.
const ERROR_BODY_KEEP: usize = 2_000;

/// Transport settings common to the HTTP backends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HttpOptions {
    /// Time limit for one try (connect, send, read the whole body); a request's own
    /// `timeout` overrides it.
    pub timeout: Duration,
    /// Time limit for establishing a connection.
    pub connect_timeout: Duration,
    /// The largest response body read; larger bodies fail with [`ErrorKind::TooLarge`].
    pub max_body_bytes: usize,
    /// The transport retry budget.
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            max_body_bytes: 16 * 1024 * 1024,
            retry: RetryPolicy::default(),
        }
    }
}

/// A configured HTTP client for one backend.
#[derive(Debug, Clone)]
pub(crate) struct HttpTransport {
    client: reqwest::Client,
    options: HttpOptions,
    retrier: Retrier,
    secret: Option<ApiKey>,
    rejected_parameter: Option<&'static str>,
}

impl HttpTransport {
    /// Builds the client. `secret` is redacted from every error body.
    pub(crate) fn new(
        provider: &str,
        url: &str,
        options: HttpOptions,
        secret: Option<ApiKey>,
    ) -> Result<Self, ProviderError> {
        // Use ring for TLS; if a provider is already installed process-wide, that one is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder().connect_timeout(options.connect_timeout);
        if is_loopback(url) {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| {
            ProviderError::config(provider, format!("cannot build http client: {e}"))
        })?;
        let retrier = Retrier::new(options.retry.clone());
        Ok(Self {
            client,
            options,
            retrier,
            secret,
            rejected_parameter: None,
        })
    }

    /// A request parameter that the server may reject: a 400, 422 or 500 whose body names it
    /// is [`ErrorKind::Unsupported`] (not retried) instead of an HTTP error.
    pub(crate) fn set_rejected_parameter(&mut self, parameter: &'static str) {
        self.rejected_parameter = Some(parameter);
    }

    /// Replaces the retrier (tests inject a recording sleeper).
    pub(crate) fn set_retrier(&mut self, retrier: Retrier) {
        self.retrier = retrier;
    }

    /// POSTs `body` as JSON with retries; returns the successful response body, redacted.
    pub(crate) async fn post_json(
        &self,
        provider: &str,
        url: &str,
        headers: &HeaderMap,
        body: &Value,
        timeout: Option<Duration>,
    ) -> Result<Retried<String>, ProviderError> {
        let limit = timeout.unwrap_or(self.options.timeout);
        self.retrier
            .run(provider, |_| async move {
                let request = self.client.post(url).headers(headers.clone()).json(body);
                match tokio::time::timeout(limit, self.try_once(request)).await {
                    Ok(result) => result,
                    Err(_) => Err(ErrorKind::Timeout {
                        after: limit,
                        stderr_tail: None,
                    }),
                }
            })
            .await
    }

    async fn try_once(&self, request: reqwest::RequestBuilder) -> Result<String, ErrorKind> {
        let connect_timeout = self.options.connect_timeout;
        let response = request
            .send()
            .await
            .map_err(|e| classify(&e, connect_timeout))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        if !response.status().is_success() {
            let raw = body::read_lossy(response, ERROR_BODY_KEEP).await;
            return Err(self.status_error(status, &headers, &raw));
        }
        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !content_type.to_ascii_lowercase().contains("json") {
            let shown = if content_type.is_empty() {
                "none"
            } else {
                content_type
            };
            return Err(ErrorKind::InvalidResponse {
                message: format!("expected a JSON body, got content type `{shown}`"),
            });
        }
        let bytes = body::read_bounded(response, self.options.max_body_bytes).await?;
        let text = String::from_utf8(bytes).map_err(|_| ErrorKind::InvalidResponse {
            message: "response body is not UTF-8".into(),
        })?;
        Ok(self.redact(&text))
    }

    fn status_error(&self, status: u16, headers: &HeaderMap, raw: &str) -> ErrorKind {
        let body = body::truncate_text(&self.redact(raw), ERROR_BODY_KEEP);
        if status == 401 || status == 403 {
            return ErrorKind::Auth { status, body };
        }
        if let Some(parameter) = self.rejected_parameter
            && matches!(status, 400 | 422 | 500)
            && body.contains(parameter)
        {
            return ErrorKind::Unsupported {
                status,
                parameter: parameter.to_owned(),
                body,
            };
        }
        ErrorKind::Http {
            status,
            retry_after: retry_after(headers),
            body,
        }
    }

    /// Removes the key from `text`.
    pub(crate) fn redact(&self, text: &str) -> String {
        match &self.secret {
            Some(key) => redact_secret(text, key.expose()),
            None => text.to_owned(),
        }
    }
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
    };
    header("retry-after-ms")
        .and_then(parse_retry_after_ms)
        .or_else(|| {
            header(RETRY_AFTER.as_str())
                .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()))
        })
}

/// Sorts a failed send into the retry taxonomy. No total timeout is set on the client, so a
/// timeout reported by reqwest is the connect timeout.
fn classify(error: &reqwest::Error, connect_timeout: Duration) -> ErrorKind {
    let message = error_chain(error);
    if error.is_timeout() {
        ErrorKind::Timeout {
            after: connect_timeout,
            stderr_tail: None,
        }
    } else if error.is_builder() || message.contains("certificate") {
        // Bad URLs and untrusted certificates do not heal by retrying.
        ErrorKind::Config { message }
    } else if error.is_body() || error.is_decode() {
        ErrorKind::Truncated { message }
    } else {
        ErrorKind::Connection { message }
    }
}

/// The error and its sources, joined with `: `.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = inner.source();
    }
    message
}

fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    host.starts_with("127.") || host.starts_with("localhost") || host.starts_with("[::1]")
}

/// Joins a base URL and a path with exactly one slash.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost:11434/v1"));
        assert!(is_loopback("http://[::1]:1/"));
        assert!(!is_loopback("https://api.openai.com/v1"));
    }

    #[test]
    fn urls_join_with_one_slash() {
        assert_eq!(
            join_url("http://h/v1/", "/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(join_url("http://h", "v1/messages"), "http://h/v1/messages");
    }
}
