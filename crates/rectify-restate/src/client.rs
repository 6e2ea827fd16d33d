//! Starting runs through Restate's ingress (`rectify run --on restate://HOST:PORT`).

use std::fmt::Write as _;
use std::time::Duration;

use crate::service::{DecisionRequest, RunRequest, RunState, SERVICE};

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
    /// A run with this id was started before (a workflow runs once per key).
    #[error(
        "a run `{0}` already exists on Restate: `rectify status {0} --on …` shows it, `rectify resume {0} --on …` continues it"
    )]
    Exists(String),
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

    /// Starts the run `run_id` and waits for its end or its first pause; returns its summary
    /// as `rectify run --output json` prints it for a local run. The run lives in Restate:
    /// when the endpoint running it dies, Restate runs it again on one that lives; when Restate
    /// itself cannot be reached for a while, this goes on asking (for up to [`REATTACH`]).
    pub async fn run(
        &self,
        run_id: &str,
        request: &RunRequest,
    ) -> Result<serde_json::Value, ClientError> {
        let url = format!("{}/{SERVICE}/{}/run/send", self.base, encode(run_id));
        let body = serde_json::to_vec(request).map_err(|e| ClientError::Answer {
            url: url.clone(),
            message: e.to_string(),
        })?;
        let sent = self.post(&url, Some(body)).await?;
        let accepted: serde_json::Value =
            serde_json::from_str(&sent).map_err(|e| ClientError::Answer {
                url: url.clone(),
                message: e.to_string(),
            })?;
        if accepted["status"] == "PreviouslyAccepted" {
            return Err(ClientError::Exists(run_id.to_owned()));
        }
        self.wait(run_id, 0).await
    }

    /// Sends a person's decision to the paused run `run_id` and waits for its end or its next
    /// pause; returns its summary.
    pub async fn resume(
        &self,
        run_id: &str,
        decision: &DecisionRequest,
    ) -> Result<serde_json::Value, ClientError> {
        let state = self.state(run_id).await?;
        let url = format!("{}/{SERVICE}/{}/decide", self.base, encode(run_id));
        let body = serde_json::to_vec(decision).map_err(|e| ClientError::Answer {
            url: url.clone(),
            message: e.to_string(),
        })?;
        self.post(&url, Some(body)).await?;
        self.wait(run_id, state.pauses).await
    }

    /// The run's latest summary and its number of pauses.
    pub async fn state(&self, run_id: &str) -> Result<RunState, ClientError> {
        let url = format!("{}/{SERVICE}/{}/status", self.base, encode(run_id));
        let text = self.post(&url, None).await?;
        serde_json::from_str(&text).map_err(|e| ClientError::Answer {
            url,
            message: e.to_string(),
        })
    }

    /// Waits until the run ends, or pauses after its first `pauses` pauses: its end is
    /// reported at once by Restate's attach call, a pause by polling the `status` handler.
    async fn wait(&self, run_id: &str, pauses: u32) -> Result<serde_json::Value, ClientError> {
        let end = self.attach(run_id);
        let pause = self.poll(run_id, pauses);
        tokio::pin!(end, pause);
        tokio::select! {
            // An attach that fails (the connection broke, the run failed) leaves it to polling.
            Ok(summary) = &mut end => Ok(summary),
            result = &mut pause => result,
        }
    }

    /// The run's output once it ends (Restate's attach call for workflows).
    async fn attach(&self, run_id: &str) -> Result<serde_json::Value, ClientError> {
        let url = format!(
            "{}/restate/workflow/{SERVICE}/{}/attach",
            self.base,
            encode(run_id)
        );
        let unreachable = |source| ClientError::Unreachable {
            url: url.clone(),
            source,
        };
        let response = self.http.get(&url).send().await.map_err(unreachable)?;
        let status = response.status();
        let text = response.text().await.map_err(unreachable)?;
        if !status.is_success() {
            return Err(ClientError::Status {
                url,
                status: status.as_u16(),
                message: text,
            });
        }
        serde_json::from_str(&text).map_err(|e| ClientError::Answer {
            url,
            message: e.to_string(),
        })
    }

    /// Polls the `status` handler until the run ends or pauses after its first `pauses`.
    async fn poll(&self, run_id: &str, pauses: u32) -> Result<serde_json::Value, ClientError> {
        let mut last_seen = std::time::Instant::now();
        let mut delay = Duration::from_millis(50);
        loop {
            match self.state(run_id).await {
                Ok(state) => {
                    last_seen = std::time::Instant::now();
                    if let Some(summary) = state.summary {
                        match summary["status"].as_str() {
                            Some("completed" | "failed") => return Ok(summary),
                            Some("waiting") if state.pauses > pauses => return Ok(summary),
                            Some("error") => {
                                return Err(ClientError::Status {
                                    url: format!("{}/{SERVICE}/{}/run", self.base, encode(run_id)),
                                    status: 400,
                                    message: summary["message"].as_str().unwrap_or("").to_owned(),
                                });
                            }
                            _ => {}
                        }
                    }
                }
                Err(ClientError::Unreachable { url, source }) => {
                    if last_seen.elapsed() > REATTACH {
                        return Err(ClientError::Unreachable { url, source });
                    }
                }
                Err(e) => return Err(e),
            }
            tokio::time::sleep(delay).await;
            // Each poll is a (small) invocation of the `status` handler, kept in Restate's
            // journal retention: at most one a second.
            delay = (delay * 2).min(Duration::from_secs(1));
        }
    }

    /// POSTs `body` (JSON; none for a handler without input) and returns the answer's text;
    /// an error status is an error.
    async fn post(&self, url: &str, body: Option<Vec<u8>>) -> Result<String, ClientError> {
        let unreachable = |source| ClientError::Unreachable {
            url: url.to_owned(),
            source,
        };
        let mut request = self.http.post(url).timeout(Duration::from_secs(60));
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let text = response.text().await.map_err(unreachable)?;
        if status.is_success() {
            return Ok(text);
        }
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
            .unwrap_or(text);
        Err(ClientError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
            message,
        })
    }
}

/// How long the client goes on asking a Restate it cannot reach about a run it started.
pub const REATTACH: Duration = Duration::from_secs(600);

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
