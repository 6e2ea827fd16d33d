//! Starting runs through Restate's ingress (`rectify run --on restate://HOST:PORT`).

use std::fmt::Write as _;
use std::time::Duration;

use crate::service::{RunRequest, SERVICE};

/// A failure to reach Restate or to run the workflow there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The address is not `restate://HOST:PORT` or `http://HOST:PORT`.
    #[error("`{0}` is not a Restate ingress address (restate://HOST:PORT or http://HOST:PORT)")]
    Address(String),
    /// The ingress could not be reached or the connection broke.
    #[error("cannot reach Restate's ingress at {url}: {source}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why.
        source: reqwest::Error,
    },
    /// Restate answered with an error (the run could not start, or it failed terminally).
    #[error("Restate answered {status} for {url}: {message}")]
    Status {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Restate's message.
        message: String,
    },
    /// The answer was not the run's summary.
    #[error("Restate's answer for {url} is not a run summary: {message}")]
    Answer {
        /// The URL called.
        url: String,
        /// What is wrong with it.
        message: String,
    },
}

/// Talks to one Restate ingress.
#[derive(Clone, Debug)]
pub struct Client {
    base: String,
    http: reqwest::Client,
}

impl Client {
    /// A client for `address`: `restate://HOST:PORT` (plain HTTP) or `http(s)://HOST:PORT`.
    pub fn new(address: &str) -> Result<Client, ClientError> {
        let base = if let Some(rest) = address.strip_prefix("restate://") {
            format!("http://{}", rest.trim_end_matches('/'))
        } else if address.starts_with("http://") || address.starts_with("https://") {
            address.trim_end_matches('/').to_owned()
        } else {
            return Err(ClientError::Address(address.to_owned()));
        };
        if base.split("://").nth(1).is_none_or(str::is_empty) {
            return Err(ClientError::Address(address.to_owned()));
        }
        // TLS by ring, as the HTTP providers use (a provider already installed is kept).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder().connect_timeout(Duration::from_secs(10));
        if is_loopback(&base) {
            builder = builder.no_proxy();
        }
        let http = builder.build().map_err(|source| ClientError::Unreachable {
            url: base.clone(),
            source,
        })?;
        Ok(Client { base, http })
    }

    /// Starts the run `run_id` and waits for its end (or pause); returns its summary as
    /// `rectify run --output json` prints it for a local run. When the endpoint running it
    /// dies, Restate runs it again on an endpoint that lives, and this call goes on waiting;
    /// when the connection to Restate itself breaks after the run was sent, it attaches to the
    /// run again (for up to [`REATTACH`]) instead of starting another.
    pub async fn run(
        &self,
        run_id: &str,
        request: &RunRequest,
    ) -> Result<serde_json::Value, ClientError> {
        let url = format!("{}/{SERVICE}/{}/run", self.base, encode(run_id));
        match self.http.post(&url).json(request).send().await {
            Ok(response) => answer(url, response).await,
            // Nothing was sent: no run started.
            Err(source) if source.is_connect() => Err(ClientError::Unreachable { url, source }),
            Err(_) => self.attach(run_id).await,
        }
    }

    /// Waits for the end of the run `run_id`, retrying while Restate cannot be reached.
    async fn attach(&self, run_id: &str) -> Result<serde_json::Value, ClientError> {
        let url = format!(
            "{}/restate/workflow/{SERVICE}/{}/attach",
            self.base,
            encode(run_id)
        );
        let deadline = std::time::Instant::now() + REATTACH;
        loop {
            match self.http.get(&url).send().await {
                Ok(response) => return answer(url, response).await,
                Err(source) if std::time::Instant::now() >= deadline => {
                    return Err(ClientError::Unreachable { url, source });
                }
                Err(_) => tokio::time::sleep(Duration::from_secs(1)).await,
            }
        }
    }
}

/// How long `run` tries to attach again to a run whose connection broke.
pub const REATTACH: Duration = Duration::from_secs(600);

/// Reads Restate's answer: the run's summary, or its error.
async fn answer(
    url: String,
    response: reqwest::Response,
) -> Result<serde_json::Value, ClientError> {
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|source| ClientError::Unreachable {
            url: url.clone(),
            source,
        })?;
    if !status.is_success() {
        let message = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
            .unwrap_or(body);
        return Err(ClientError::Status {
            url,
            status: status.as_u16(),
            message,
        });
    }
    serde_json::from_str(&body).map_err(|e| ClientError::Answer {
        url,
        message: e.to_string(),
    })
}

/// Whether the URL's host is this machine (never reached through a proxy).
fn is_loopback(base: &str) -> bool {
    let host = base.split("://").nth(1).unwrap_or_default();
    ["127.", "localhost", "[::1]"]
        .iter()
        .any(|prefix| host.starts_with(prefix))
}

/// Percent-encodes a run id for a URL path segment.
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_restate_or_http_urls() {
        assert_eq!(
            Client::new("restate://127.0.0.1:8080/").unwrap().base,
            "http://127.0.0.1:8080"
        );
        assert_eq!(Client::new("http://h:1").unwrap().base, "http://h:1");
        for bad in ["127.0.0.1:8080", "restate://", "ftp://h"] {
            assert!(
                matches!(Client::new(bad), Err(ClientError::Address(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn run_ids_are_encoded() {
        assert_eq!(encode("feature-1a2b"), "feature-1a2b");
        assert_eq!(encode("a/b c"), "a%2Fb%20c");
    }
}
