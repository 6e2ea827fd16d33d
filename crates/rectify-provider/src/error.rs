//! The error taxonomy of provider calls.
//!
//! A [`ProviderError`] is a transport or configuration failure: something that kept the provider
//! from giving an answer at all. Answers that are merely bad (cut short, refused, not JSON) are
//! [`Response`](crate::Response)s, not errors.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// HTTP statuses that are worth another try: 408, 409, 425, 429, 500, 502, 503, 504, 529.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 425 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server answered with a non-success HTTP status.
    Http {
        /// The status code.
        status: u16,
        /// The wait the server asked for (`Retry-After`), if any.
        retry_after: Option<Duration>,
        /// The start of the response body, secrets redacted.
        body: String,
    },
    /// The server rejected the credentials (401 or 403).
    Auth {
        /// The status code.
        status: u16,
        /// The start of the response body, secrets redacted.
        body: String,
    },
    /// A try took longer than its time limit.
    Timeout {
        /// The limit that was exceeded.
        after: Duration,
        /// For commands: the end of what the program wrote to stderr.
        stderr_tail: Option<String>,
    },
    /// The connection could not be made or broke before a response arrived.
    Connection {
        /// What the transport said.
        message: String,
    },
    /// The response body was cut short (connection reset or closed mid-body).
    Truncated {
        /// What the transport said.
        message: String,
    },
    /// The response body was larger than the configured limit.
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The response could not be understood (not JSON, wrong content type, no choices, ...).
    InvalidResponse {
        /// What was wrong with it.
        message: String,
    },
    /// The provider is misconfigured (missing key, bad URL, bad template, ...).
    Config {
        /// What is wrong.
        message: String,
    },
    /// A command could not be started.
    Spawn {
        /// The program and the operating system's reason.
        message: String,
    },
    /// A command exited unsuccessfully.
    Process {
        /// The exit code, when it exited normally.
        exit_code: Option<i32>,
        /// The signal that ended it, when it was killed.
        signal: Option<i32>,
        /// Whether the configuration marks this exit as transient (worth a retry).
        transient: bool,
        /// The end of what it wrote to stderr.
        stderr_tail: String,
    },
    /// A replay cassette had no matching interaction, or could not be read or written.
    Replay {
        /// What happened.
        message: String,
    },
    /// The server rejected a request parameter it does not support (a 400, 422 or 500 whose
    /// body names it). Sending the same request again would fail the same way, so it is not
    /// retried; the OpenAI-compatible backend answers a rejected `response_format` by falling
    /// back to a weaker one.
    Unsupported {
        /// The status code.
        status: u16,
        /// The parameter the body names, such as `response_format`.
        parameter: String,
        /// The start of the response body, secrets redacted.
        body: String,
    },
    /// A provider made from the caller's own function returned an error.
    Function {
        /// The error, as the function's error displays it.
        message: String,
    },
}

impl ErrorKind {
    /// Whether another try may succeed: retryable HTTP statuses, timeouts, broken connections,
    /// truncated bodies and transient process exits. Never client errors (400, 401, 403, 404,
    /// 422, ...), invalid responses or configuration errors.
    pub fn is_retryable(&self) -> bool {
        match self {
            ErrorKind::Http { status, .. } => is_retryable_status(*status),
            ErrorKind::Timeout { .. }
            | ErrorKind::Connection { .. }
            | ErrorKind::Truncated { .. } => true,
            ErrorKind::Process { transient, .. } => *transient,
            ErrorKind::Auth { .. }
            | ErrorKind::TooLarge { .. }
            | ErrorKind::InvalidResponse { .. }
            | ErrorKind::Config { .. }
            | ErrorKind::Spawn { .. }
            | ErrorKind::Replay { .. }
            | ErrorKind::Unsupported { .. }
            | ErrorKind::Function { .. } => false,
        }
    }

    /// The wait the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ErrorKind::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Http { status, body, .. } => write!(f, "http status {status}{}", tail(body)),
            ErrorKind::Auth { status, body } => {
                write!(
                    f,
                    "authentication failed (http status {status}){}",
                    tail(body)
                )
            }
            ErrorKind::Timeout { after, stderr_tail } => {
                write!(f, "timed out after {after:?}")?;
                f.write_str(&tail(stderr_tail.as_deref().unwrap_or("")))
            }
            ErrorKind::Connection { message } => write!(f, "connection failed: {message}"),
            ErrorKind::Truncated { message } => write!(f, "response cut short: {message}"),
            ErrorKind::TooLarge { limit } => write!(f, "response larger than {limit} bytes"),
            ErrorKind::InvalidResponse { message } => write!(f, "invalid response: {message}"),
            ErrorKind::Config { message } => write!(f, "configuration error: {message}"),
            ErrorKind::Spawn { message } => write!(f, "could not start command: {message}"),
            ErrorKind::Process {
                exit_code,
                signal,
                stderr_tail,
                ..
            } => {
                match (exit_code, signal) {
                    (Some(code), _) => write!(f, "command exited with code {code}")?,
                    (None, Some(sig)) => write!(f, "command killed by signal {sig}")?,
                    (None, None) => f.write_str("command failed")?,
                }
                f.write_str(&tail(stderr_tail))
            }
            ErrorKind::Replay { message } => write!(f, "replay: {message}"),
            ErrorKind::Unsupported {
                status,
                parameter,
                body,
            } => write!(
                f,
                "the server rejected `{parameter}` (http status {status}){}",
                tail(body)
            ),
            ErrorKind::Function { message } => write!(f, "the provider function failed: {message}"),
        }
    }
}

fn tail(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

/// A failed provider call: what happened, where, after how many retries and how long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{provider}: {kind}{}", retry_note(*.retries, *.elapsed))]
pub struct ProviderError {
    /// What went wrong (the last try's failure).
    pub kind: ErrorKind,
    /// The provider's name (e.g. `openai:gpt-4o-mini`).
    pub provider: String,
    /// Transport retries used before giving up.
    pub retries: u32,
    /// Total time spent, waits included.
    pub elapsed: Duration,
    /// The answer's text that had arrived when a stream broke (`None` when none had; boxed
    /// to keep the error small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<Box<String>>,
}

fn retry_note(retries: u32, elapsed: Duration) -> String {
    if retries == 0 {
        String::new()
    } else {
        let plural = if retries == 1 { "retry" } else { "retries" };
        format!(
            " (after {retries} {plural} in {:.1}s)",
            elapsed.as_secs_f64()
        )
    }
}

impl ProviderError {
    /// An error of the given kind with no retries and no elapsed time yet.
    pub fn new(provider: impl Into<String>, kind: ErrorKind) -> Self {
        Self {
            kind,
            provider: provider.into(),
            retries: 0,
            elapsed: Duration::ZERO,
            received: None,
        }
    }

    /// This error with the text that had arrived before the stream broke (kept only when
    /// some had).
    #[must_use]
    pub fn with_received(mut self, text: String) -> Self {
        if !text.is_empty() {
            self.received = Some(Box::new(text));
        }
        self
    }

    /// A configuration error.
    pub fn config(provider: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(
            provider,
            ErrorKind::Config {
                message: message.into(),
            },
        )
    }

    /// Whether the setup is at fault (configuration, a program that cannot start) rather than
    /// the provider: the CLI reports these as usage/configuration errors.
    pub fn is_config(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Config { .. } | ErrorKind::Spawn { .. }
        )
    }

    /// Whether another try may succeed (see [`ErrorKind::is_retryable`]).
    pub fn is_retryable(&self) -> bool {
        self.kind.is_retryable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_statuses_match_the_rules() {
        for status in [408, 409, 425, 429, 500, 502, 503, 504, 529] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [200, 400, 401, 403, 404, 413, 422, 501] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }

    #[test]
    fn display_names_provider_kind_and_retries() {
        let mut error = ProviderError::new(
            "openai:m",
            ErrorKind::Http {
                status: 503,
                retry_after: None,
                body: "busy".into(),
            },
        );
        assert_eq!(error.to_string(), "openai:m: http status 503: busy");
        error.retries = 2;
        error.elapsed = Duration::from_millis(1500);
        assert_eq!(
            error.to_string(),
            "openai:m: http status 503: busy (after 2 retries in 1.5s)"
        );
        assert!(error.is_retryable());
    }

    #[test]
    fn non_retryable_kinds() {
        let auth = ErrorKind::Auth {
            status: 401,
            body: String::new(),
        };
        assert!(!auth.is_retryable());
        assert!(
            !ErrorKind::Config {
                message: "x".into()
            }
            .is_retryable()
        );
        assert!(
            !ErrorKind::InvalidResponse {
                message: "x".into()
            }
            .is_retryable()
        );
        let timeout = ErrorKind::Timeout {
            after: Duration::from_secs(1),
            stderr_tail: None,
        };
        assert!(timeout.is_retryable());
    }

    #[test]
    fn error_round_trips_through_json() {
        let error = ProviderError::new("p", ErrorKind::TooLarge { limit: 10 });
        let text = serde_json::to_string(&error).unwrap();
        assert_eq!(serde_json::from_str::<ProviderError>(&text).unwrap(), error);
    }
}
