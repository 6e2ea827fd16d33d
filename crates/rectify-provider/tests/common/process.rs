//! Processes the command tests start: their pids and whether they are gone.

use std::path::Path;
use std::time::Duration;

/// Whether process `pid` is gone (or a zombie waiting for its reaper).
pub fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// Waits (bounded) for `pid` to die; whether it did.
pub async fn wait_until_dead(pid: u32) -> bool {
    for _ in 0..100 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    is_dead(pid)
}

/// Waits (bounded) for a script to write a pid (and a newline) into `file`.
pub async fn wait_for_pid(file: &Path) -> u32 {
    for _ in 0..500 {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if let (Ok(pid), true) = (text.trim().parse(), text.ends_with('\n')) {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no pid written to {}", file.display());
}
