//! Running one command: pipes read concurrently, a timeout that kills the whole process group.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

use super::capture::{Limited, Tail, read_limited_into, read_tail};
use crate::ErrorKind;

/// Limits for one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) kill_grace: Duration,
    pub(crate) max_stdout: usize,
    pub(crate) stderr_keep: usize,
}

/// What a finished command left.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr_tail: String,
}

/// Kills the process group when dropped (also when the caller's future is cancelled).
struct GroupGuard(Option<Pid>);

impl GroupGuard {
    fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.0 {
            let _ = killpg(pgid, signal);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}

/// Runs `command` in its own process group, feeding `input` on stdin.
pub(crate) async fn run(
    mut command: Command,
    input: Option<Vec<u8>>,
    limits: Limits,
) -> Result<Finished, ErrorKind> {
    command
        .process_group(0)
        .kill_on_drop(true)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    let mut child = command.spawn().map_err(|e| spawn_error(&program, &e))?;
    let guard = GroupGuard(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    );
    let tail = Tail::new(limits.stderr_keep);
    let outcome = tokio::time::timeout(
        limits.timeout,
        drive(&mut child, input, &guard, &tail, limits),
    )
    .await;
    match outcome {
        Ok(Ok((status, stdout))) => Ok(Finished {
            status,
            stdout,
            stderr_tail: tail.text(),
        }),
        Ok(Err(kind)) => Err(kind),
        Err(_) => {
            stop(&mut child, &guard, limits.kill_grace).await;
            Err(ErrorKind::Timeout {
                after: limits.timeout,
                stderr_tail: Some(tail.text()),
            })
        }
    }
}

/// Writes stdin, reads stdout and stderr and waits for the exit, all at once.
async fn drive(
    child: &mut Child,
    input: Option<Vec<u8>>,
    guard: &GroupGuard,
    tail: &Tail,
    limits: Limits,
) -> Result<(ExitStatus, Vec<u8>), ErrorKind> {
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let write = async move {
        if let (Some(mut pipe), Some(bytes)) = (stdin, input) {
            // A program that exits without reading its input closes the pipe: not an error.
            let _ = pipe.write_all(&bytes).await;
        }
    };
    let out = Limited::default();
    let read_out = async {
        if let Some(pipe) = stdout
            && read_limited_into(pipe, limits.max_stdout, &out)
                .await
                .is_err()
        {
            guard.signal(Signal::SIGKILL);
        }
    };
    let read_err = async move {
        if let Some(pipe) = stderr {
            read_tail(pipe, tail.clone()).await;
        }
    };
    let reads = async { tokio::join!(read_out, read_err) };
    let ((), ((), status)) =
        tokio::join!(write, wait_and_read(child, reads, guard, limits.kill_grace));
    let status = status.map_err(|e| ErrorKind::Spawn {
        message: format!("waiting for the command: {e}"),
    })?;
    let stdout = out.take().map_err(|()| ErrorKind::TooLarge {
        limit: limits.max_stdout,
    })?;
    Ok((status, stdout))
}

/// Waits for the program's exit while `reads` drain its pipes. When it has exited, a
/// background child it started may still hold the pipes open: they are read for at most
/// `grace` more, then the group is killed; a child that left the group (`setsid`) and still
/// holds them gets `grace` again, and then the reads are abandoned with what arrived.
async fn wait_and_read(
    child: &mut Child,
    reads: impl std::future::Future<Output = ((), ())>,
    guard: &GroupGuard,
    grace: Duration,
) -> ((), std::io::Result<ExitStatus>) {
    let exited = tokio::sync::Notify::new();
    let wait = async {
        let status = child.wait().await;
        exited.notify_one();
        status
    };
    let reads = async {
        let mut reads = std::pin::pin!(reads);
        let cutoff = async {
            exited.notified().await;
            tokio::time::sleep(grace).await;
        };
        tokio::select! {
            _ = &mut reads => {}
            () = cutoff => {
                guard.signal(Signal::SIGKILL);
                let _ = tokio::time::timeout(grace, reads).await;
            }
        }
    };
    tokio::join!(reads, wait)
}

/// How a command run by [`run_to_end`] ended.
#[derive(Debug)]
pub struct Outcome {
    /// The exit status; `None` when it was stopped at the timeout (or could not be waited for).
    pub status: Option<ExitStatus>,
    /// The end of what it wrote to stdout, then the end of what it wrote to stderr (lossy
    /// UTF-8, each at most the `keep` bytes given).
    pub output_tail: String,
}

/// Runs `command` with no input in its own process group, reading all of its stdout and
/// stderr (a program that prints gigabytes is drained, not blocked) but keeping only the last
/// `keep` bytes of each, for at most `timeout`. The whole group is killed when the program
/// ends, times out, or this future is dropped (an interrupted run leaves no process behind).
/// Used for checks and validators that are programs.
pub async fn run_to_end(
    mut command: Command,
    timeout: Duration,
    keep: usize,
) -> Result<Outcome, ErrorKind> {
    let grace = Duration::from_secs(2);
    command
        .process_group(0)
        .kill_on_drop(true)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    let mut child = command.spawn().map_err(|e| spawn_error(&program, &e))?;
    let guard = GroupGuard(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    );
    let (out, err) = (Tail::new(keep), Tail::new(keep));
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let reads = async {
        let read_out = async {
            if let Some(pipe) = stdout {
                read_tail(pipe, out.clone()).await;
            }
        };
        let read_err = async {
            if let Some(pipe) = stderr {
                read_tail(pipe, err.clone()).await;
            }
        };
        tokio::join!(read_out, read_err)
    };
    let outcome =
        tokio::time::timeout(timeout, wait_and_read(&mut child, reads, &guard, grace)).await;
    let status = if let Ok(((), status)) = outcome {
        status.ok()
    } else {
        stop(&mut child, &guard, grace).await;
        None
    };
    let mut output_tail = out.text();
    let err = err.text();
    if !output_tail.is_empty() && !err.is_empty() {
        output_tail.push('\n');
    }
    output_tail.push_str(&err);
    Ok(Outcome {
        status,
        output_tail,
    })
}

/// SIGTERM to the group, up to `grace` for the leader to exit, then SIGKILL to the group.
async fn stop(child: &mut Child, guard: &GroupGuard, grace: Duration) {
    guard.signal(Signal::SIGTERM);
    let _ = tokio::time::timeout(grace, child.wait()).await;
    guard.signal(Signal::SIGKILL);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
}

fn spawn_error(program: &str, error: &std::io::Error) -> ErrorKind {
    let reason = match error.kind() {
        std::io::ErrorKind::NotFound => "program not found".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => error.to_string(),
    };
    ErrorKind::Spawn {
        message: format!("`{program}`: {reason}"),
    }
}

/// Maps an unsuccessful exit to an error; `None` for success.
pub(crate) fn exit_error(
    status: ExitStatus,
    transient_codes: &[i32],
    stderr_tail: &str,
) -> Option<ErrorKind> {
    if status.success() {
        return None;
    }
    let exit_code = status.code();
    Some(ErrorKind::Process {
        exit_code,
        signal: status.signal(),
        transient: exit_code.is_some_and(|code| transient_codes.contains(&code)),
        stderr_tail: stderr_tail.to_owned(),
    })
}
