//! Running one command: pipes read concurrently, a timeout that kills the whole process group.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};
use tokio::sync::Notify;

use super::capture::{Read, Stdout, Tail, read_into, read_tail};
use crate::ErrorKind;

/// Limits for one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) kill_grace: Duration,
    pub(crate) max_stdout: usize,
    pub(crate) stderr_keep: usize,
}

/// How a run ended.
#[derive(Debug)]
pub(crate) enum Ran {
    /// The program exited (stdout went to the run's [`Stdout`]).
    Exited {
        /// Its exit status.
        status: ExitStatus,
        /// The end of what it wrote to stderr.
        stderr_tail: String,
    },
    /// Its [`Stdout`] asked to stop: the group was stopped as at a timeout.
    Stopped,
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

/// Starts `command` as the leader of a new process group, stdout and stderr piped, and the
/// guard that kills the whole group when dropped.
fn spawn_in_group(mut command: Command, stdin: Stdio) -> Result<(Child, GroupGuard), ErrorKind> {
    command
        .process_group(0)
        .kill_on_drop(true)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    let child = command.spawn().map_err(|e| spawn_error(&program, &e))?;
    let guard = GroupGuard(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    );
    Ok((child, guard))
}

/// Runs `command` in its own process group, feeding `input` on stdin and handing its stdout
/// to `out` as it is read. When `out` asks to stop, the group is stopped the way a timeout
/// stops it (SIGTERM, `kill_grace`, SIGKILL).
pub(crate) async fn run(
    command: Command,
    input: Option<Vec<u8>>,
    limits: Limits,
    out: &mut dyn Stdout,
) -> Result<Ran, ErrorKind> {
    let stdin = if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    };
    let (mut child, guard) = spawn_in_group(command, stdin)?;
    let tail = Tail::new(limits.stderr_keep);
    let stop_asked = Notify::new();
    let pipes = Pipes {
        input,
        out,
        tail: &tail,
        stop_asked: &stop_asked,
    };
    let driving = tokio::time::timeout(limits.timeout, drive(&mut child, pipes, &guard, limits));
    let outcome = tokio::select! {
        biased;
        () = stop_asked.notified() => None,
        outcome = driving => Some(outcome),
    };
    match outcome {
        None => {
            stop(&mut child, &guard, limits.kill_grace).await;
            Ok(Ran::Stopped)
        }
        Some(Ok(Ok(status))) => Ok(Ran::Exited {
            status,
            stderr_tail: tail.text(),
        }),
        Some(Ok(Err(kind))) => Err(kind),
        Some(Err(_)) => {
            stop(&mut child, &guard, limits.kill_grace).await;
            Err(ErrorKind::Timeout {
                after: limits.timeout,
                stderr_tail: Some(tail.text()),
            })
        }
    }
}

/// What a run reads and writes besides the process: stdin's bytes, where stdout and the end
/// of stderr go, and the signal that stdout's receiver asked to stop.
struct Pipes<'a> {
    input: Option<Vec<u8>>,
    out: &'a mut dyn Stdout,
    tail: &'a Tail,
    stop_asked: &'a Notify,
}

/// Writes stdin, reads stdout and stderr and waits for the exit, all at once.
async fn drive(
    child: &mut Child,
    pipes: Pipes<'_>,
    guard: &GroupGuard,
    limits: Limits,
) -> Result<ExitStatus, ErrorKind> {
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let Pipes {
        input,
        out,
        tail,
        stop_asked,
    } = pipes;
    let write = async move {
        if let (Some(mut pipe), Some(bytes)) = (stdin, input) {
            // A program that exits without reading its input closes the pipe: not an error.
            let _ = pipe.write_all(&bytes).await;
        }
    };
    let mut read = Read::End;
    let read_out = async {
        if let Some(pipe) = stdout {
            read = read_into(pipe, limits.max_stdout, out).await;
            match read {
                Read::TooLarge => guard.signal(Signal::SIGKILL),
                Read::Stopped => stop_asked.notify_one(),
                Read::End => {}
            }
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
    if read == Read::TooLarge {
        return Err(ErrorKind::TooLarge {
            limit: limits.max_stdout,
        });
    }
    Ok(status)
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
    command: Command,
    timeout: Duration,
    keep: usize,
) -> Result<Outcome, ErrorKind> {
    let grace = Duration::from_secs(2);
    let (mut child, guard) = spawn_in_group(command, Stdio::null())?;
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
