//! [`Error`]: why a one-call entry point returned no value.

use std::fmt::{self, Write as _};

use rectify_core::Diagnostic;
use rectify_loop::{Candidate, Escalation, Ledger, Limit, Outcome, issue_line};
use rectify_provider::ProviderError;

/// Why [`Client::extract`](crate::Client::extract) (or another one-call entry point)
/// returned no value. Every variant that follows a run keeps its attempt [`Ledger`].
///
/// ```
/// # use rectify::{Client, Error, Message, provider::from_fn};
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let client = Client::new(from_fn("stubborn", |_| async { Ok::<_, String>("{}".into()) }))
///     .max_attempts(2);
/// let error = rt
///     .block_on(client.extract_value("Name a colour as {\"name\": ...}", serde_json::json!({"required": ["name"]})))
///     .unwrap_err();
/// let Error::Exhausted(exhausted) = &error else { panic!("{error}") };
/// assert_eq!(exhausted.ledger.totals.attempts, 2);
/// assert_eq!(
///     error.to_string(),
///     "no valid answer after 2 attempts; the best answer (attempt 2) still has 1 problem:\n\
///      - missing required field \"name\""
/// );
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No valid answer within the attempts or budgets: the best candidate, its diagnostics
    /// and the ledger. Its `Display` lists the problems left.
    #[error("{0}")]
    Exhausted(Box<Exhausted>),
    /// The model refused to answer.
    #[error("{}", refused_message(message))]
    Refused {
        /// What the model said.
        message: String,
        /// Every attempt.
        ledger: Box<Ledger>,
    },
    /// The provider failed after its transport retries (the last rung of the ladder).
    #[error("{error}")]
    Provider {
        /// The last failure.
        error: Box<ProviderError>,
        /// The best answer of earlier rungs, if any.
        best: Option<Box<Candidate>>,
        /// Every attempt.
        ledger: Box<Ledger>,
    },
    /// The setup is wrong: no provider configured, a missing key, an invalid schema or
    /// rules file, a provider that is not built in.
    #[error("{message}")]
    Config {
        /// What is wrong.
        message: String,
    },
}

/// A run that ended without a valid answer (see [`Error::Exhausted`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Exhausted {
    /// The best answer (fewest errors), if any attempt was made.
    pub best: Option<Candidate>,
    /// The best answer's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// What a human needs to decide.
    pub escalation: Escalation,
    /// Which limit ended the run.
    pub limit: Limit,
    /// Every attempt.
    pub ledger: Ledger,
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&exhausted_message(
            &self.limit,
            self.best.as_ref(),
            &self.diagnostics,
        ))
    }
}

/// What an exhausted run says: the limit, then the best answer's problems, one per line.
fn exhausted_message(
    limit: &Limit,
    best: Option<&Candidate>,
    diagnostics: &[Diagnostic],
) -> String {
    let mut text = limit.to_string();
    let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
    if let Some(best) = best.filter(|_| !errors.is_empty()) {
        let s = if errors.len() == 1 { "" } else { "s" };
        let _ = write!(
            text,
            "; the best answer (attempt {}) still has {} problem{s}:",
            best.attempt,
            errors.len()
        );
        for d in errors {
            text.push_str("\n- ");
            text.push_str(&issue_line(d));
        }
    }
    text
}

/// The class of a call that returned no value: what every front end tells apart (an
/// exception class in Python, an error class in TypeScript, an exit code on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureClass {
    /// No valid answer within the attempts or budgets ([`Error::Exhausted`]).
    Exhausted,
    /// The model refused ([`Error::Refused`]).
    Refused,
    /// The provider failed after its transport retries ([`Error::Provider`]).
    Provider,
    /// The setup is wrong ([`Error::Config`]).
    Config,
}

impl FailureClass {
    /// Its name on the wire: `exhausted`, `refused`, `provider` or `config`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Exhausted => "exhausted",
            FailureClass::Refused => "refused",
            FailureClass::Provider => "provider",
            FailureClass::Config => "config",
        }
    }
}

/// Why a run's outcome has no value, classified and worded once: the class and the message
/// [`Error::from_outcome`] would give, without taking the outcome. `None` for a valid one.
pub fn failure_of<T>(outcome: &Outcome<T>) -> Option<(FailureClass, String)> {
    match outcome {
        Outcome::Valid { .. } => None,
        Outcome::Exhausted {
            best,
            diagnostics,
            limit,
            ..
        } => Some((
            FailureClass::Exhausted,
            exhausted_message(limit, best.as_ref(), diagnostics),
        )),
        Outcome::Refused { message, .. } => Some((FailureClass::Refused, refused_message(message))),
        // A provider that is misconfigured (no key, a command that cannot start) is a
        // configuration error even when found during the run.
        Outcome::ProviderFailed { error, .. } if error.is_config() => {
            Some((FailureClass::Config, error.to_string()))
        }
        Outcome::ProviderFailed { error, .. } => Some((FailureClass::Provider, error.to_string())),
        other => Some((FailureClass::Config, unknown_end(other.status()))),
    }
}

fn refused_message(message: &str) -> String {
    format!("the model refused to answer: {message}")
}

fn unknown_end(status: &str) -> String {
    format!("the run ended as `{status}`, which this version does not know")
}

impl Error {
    /// A configuration error.
    pub fn config(message: impl Into<String>) -> Error {
        Error::Config {
            message: message.into(),
        }
    }

    /// Its class (what the command line's exit code and the packages' error classes follow).
    pub fn class(&self) -> FailureClass {
        match self {
            Error::Exhausted(_) => FailureClass::Exhausted,
            Error::Refused { .. } => FailureClass::Refused,
            Error::Provider { .. } => FailureClass::Provider,
            Error::Config { .. } => FailureClass::Config,
        }
    }

    /// The attempt ledger, for errors that follow a run.
    pub fn ledger(&self) -> Option<&Ledger> {
        match self {
            Error::Exhausted(e) => Some(&e.ledger),
            Error::Refused { ledger, .. } | Error::Provider { ledger, .. } => Some(ledger),
            Error::Config { .. } => None,
        }
    }

    /// The diagnostics of the best answer, for an exhausted run (empty otherwise).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Exhausted(e) => &e.diagnostics,
            _ => &[],
        }
    }

    /// The value of a valid outcome, or the error that says why there is none.
    pub fn from_outcome<T>(outcome: Outcome<T>) -> Result<T, Error> {
        match outcome {
            Outcome::Valid { value, .. } => Ok(value),
            Outcome::Exhausted {
                best,
                diagnostics,
                escalation,
                limit,
                ledger,
            } => Err(Error::Exhausted(Box::new(Exhausted {
                best,
                diagnostics,
                escalation,
                limit,
                ledger,
            }))),
            Outcome::Refused { message, ledger } => Err(Error::Refused {
                message,
                ledger: Box::new(ledger),
            }),
            // A provider that is misconfigured (no key, a command that cannot start) is a
            // configuration error even when found during the run.
            Outcome::ProviderFailed { error, .. } if error.is_config() => {
                Err(Error::config(error.to_string()))
            }
            Outcome::ProviderFailed {
                error,
                best,
                ledger,
            } => Err(Error::Provider {
                error: Box::new(error),
                best: best.map(Box::new),
                ledger: Box::new(ledger),
            }),
            other => Err(Error::config(unknown_end(other.status()))),
        }
    }
}

impl From<rectify_check::ConfigError> for Error {
    fn from(error: rectify_check::ConfigError) -> Error {
        Error::config(error.to_string())
    }
}

impl From<ProviderError> for Error {
    /// A provider that could not be built: a configuration error when the setup is at fault,
    /// else a provider failure with an empty ledger.
    fn from(error: ProviderError) -> Error {
        if error.is_config() {
            Error::config(error.to_string())
        } else {
            Error::Provider {
                error: Box::new(error),
                best: None,
                ledger: Box::default(),
            }
        }
    }
}
