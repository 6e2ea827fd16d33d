//! Exit codes (docs/architecture.md, "Wire formats and exit codes") and how errors map to them.

use std::io::Write;
use std::process::ExitCode;

/// The exit status of a command, the same for every command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: success.
    Success,
    /// 1: the content is invalid (or a run failed).
    Invalid,
    /// 2: usage or configuration error.
    Config,
    /// 3: escalated, waiting for a human.
    #[allow(dead_code)]
    Escalated,
    /// 4: provider error after transport retries.
    #[allow(dead_code)]
    Provider,
    /// 128 + the signal that stopped the command (130 for Ctrl-C, 143 for SIGTERM).
    Interrupted(u8),
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        ExitCode::from(match status {
            ExitStatus::Success => 0,
            ExitStatus::Invalid => 1,
            ExitStatus::Config => 2,
            ExitStatus::Escalated => 3,
            ExitStatus::Provider => 4,
            ExitStatus::Interrupted(code) => code,
        })
    }
}

/// A hint shown under an error, attached with `anyhow::Context`-like wrapping.
#[derive(Debug)]
pub struct Hint(pub String);

impl std::fmt::Display for Hint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Hint {}

/// Prints `error: ...` with its cause chain and hints on stderr; returns the exit status the
/// error class calls for. A closed stdout (broken pipe) is not an error.
pub fn report_error(err: &anyhow::Error) -> ExitStatus {
    if is_broken_pipe(err) {
        return ExitStatus::Success;
    }
    let mut stderr = crate::printer::run::Safe(std::io::stderr().lock());
    // A hint attached as the outermost context (`error.context(Hint(..))`) goes last, under
    // the error it is about; one at the root of the chain is printed where it stands.
    // (`downcast_ref` also finds a Hint at the root under one context: only the outermost
    // counts here, the one whose text is the error's own.)
    let outer_hint = err
        .downcast_ref::<Hint>()
        .filter(|hint| hint.0 == err.to_string());
    let mut chain = err.chain().skip(usize::from(outer_hint.is_some()));
    let first = chain
        .next()
        .map_or_else(|| err.to_string(), ToString::to_string);
    let _ = writeln!(stderr, "error: {first}");
    let mut previous = first;
    for cause in chain {
        let text = cause.to_string();
        if let Some(hint) = cause.downcast_ref::<Hint>() {
            let _ = writeln!(stderr, "  hint: {hint}");
        } else if !previous.contains(&text) {
            let _ = writeln!(stderr, "  caused by: {text}");
        }
        previous = text;
    }
    if let Some(hint) = outer_hint {
        let _ = writeln!(stderr, "  hint: {hint}");
    }
    class_of(err)
}

impl ExitStatus {
    /// What a provider failure exits with, in every command: 2 when the provider is
    /// misconfigured (a missing key, an unknown model name), else 4.
    pub fn of_provider(error: &rectify::provider::ProviderError) -> ExitStatus {
        if error.is_config() {
            ExitStatus::Config
        } else {
            ExitStatus::Provider
        }
    }

    /// What a call that returned no value exits with, by its class (the one classification
    /// every front end uses, [`rectify::FailureClass`]): exhausted or refused 3, a provider
    /// 4, the setup 2.
    pub fn of_failure(class: rectify::FailureClass) -> ExitStatus {
        match class {
            rectify::FailureClass::Provider => ExitStatus::Provider,
            rectify::FailureClass::Config => ExitStatus::Config,
            _ => ExitStatus::Escalated,
        }
    }

    /// What `ask`'s outcome exits with: valid 0, else as [`ExitStatus::of_failure`]
    /// (exhausted or refused 3, a provider 4, a misconfigured provider 2).
    pub fn of_answer<T>(outcome: &rectify::engine::Outcome<T>) -> ExitStatus {
        rectify::failure_of(outcome).map_or(ExitStatus::Success, |(class, _)| {
            ExitStatus::of_failure(class)
        })
    }

    /// What a run's summary exits with (`run`, `resume`): completed 0, waiting 3; failed on a
    /// provider 4, on its configuration 2, on its content 1.
    #[cfg(feature = "workflow")]
    pub fn of_run(summary: &rectify::flow::RunSummary) -> ExitStatus {
        use rectify::flow::RunStatus;
        use rectify::flow::summary::Failure;
        match summary.status {
            RunStatus::Completed => ExitStatus::Success,
            RunStatus::Waiting => ExitStatus::Escalated,
            RunStatus::Failed if summary.failure == Some(Failure::Provider) => ExitStatus::Provider,
            RunStatus::Failed if summary.failure == Some(Failure::Config) => ExitStatus::Config,
            RunStatus::Failed | RunStatus::Running | RunStatus::Interrupted => ExitStatus::Invalid,
        }
    }
}

/// The exit status an error's class calls for (docs/architecture.md, "Wire formats and exit
/// codes"): a provider failure anywhere in the cause chain exits 4 (2 when the provider was
/// misconfigured); every other error that ends a command before it has a result is a usage or
/// configuration error, 2.
pub fn class_of(err: &anyhow::Error) -> ExitStatus {
    let provider = err
        .chain()
        .find_map(|cause| cause.downcast_ref::<rectify::provider::ProviderError>());
    provider.map_or(ExitStatus::Config, ExitStatus::of_provider)
}

/// A write to stdout whose reader went away (`rectify ... | head`) ends the output early but
/// never changes the command's exit status: `BrokenPipe` becomes `Ok`.
pub fn pipe_closed_ok(result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rectify::provider::{ErrorKind, ProviderError};

    #[test]
    fn a_plain_error_is_a_configuration_error() {
        let err = anyhow::anyhow!("cannot read `x.json`");
        assert_eq!(class_of(&err), ExitStatus::Config);
    }

    #[test]
    fn a_provider_failure_under_context_exits_4() {
        let provider = ProviderError::new(
            "openai:test",
            ErrorKind::Connection {
                message: "connection refused".into(),
            },
        );
        let err = anyhow::Error::new(provider).context("calling the model");
        assert_eq!(class_of(&err), ExitStatus::Provider);
    }

    #[test]
    fn a_misconfigured_provider_exits_2() {
        let provider = ProviderError::config("openai:test", "no model");
        let err = anyhow::Error::new(provider);
        assert_eq!(class_of(&err), ExitStatus::Config);
    }
}
