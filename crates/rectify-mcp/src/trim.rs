//! Giving freed memory back to the system once the server is idle, so an idle server stays
//! small.
//!
//! A call on a large document allocates tens of MiB (the document, its span map, the value)
//! on whichever threads run it (tokio's workers and blocking threads). glibc's allocator keeps
//! what such threads free in their arenas: measured after 21 `check` calls on 1 MB, 1.5 MB
//! were in use and 71 MB held (`malloc_stats`), so the idle server stayed at 67 MiB.
//! `malloc_trim(0)` returns the free pages of every arena to the system (docs/BENCHMARKS.md,
//! "MCP server (issue 39)", which compares it with fewer arenas and fixed thresholds).
//!
//! A trim takes milliseconds to tens of them and locks each arena while it works on it, so it
//! is kept off the calls: every request holds a [`Busy`] guard, and once none is held and
//! [`SETTLE`] has passed without another request ending, one trim runs on a blocking thread.
//! The same idle moment unmaps the executable's clean code pages ([`crate::code_pages`]). On
//! other platforms and allocators the trim does nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// How long the server must have been idle before it trims.
pub const SETTLE: Duration = Duration::from_millis(100);

/// Requests in progress.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
/// Requests ended so far (a change means the server was not idle).
static ENDED: AtomicU64 = AtomicU64::new(0);
/// Whether a task waits to trim.
static SCHEDULED: AtomicBool = AtomicBool::new(false);

/// Held by a request while it runs; the last one to end schedules a trim.
#[derive(Debug)]
#[must_use = "the request counts as running while the guard lives"]
pub struct Busy(());

/// Marks a request as running until the guard is dropped.
pub fn busy() -> Busy {
    ACTIVE.fetch_add(1, Ordering::AcqRel);
    Busy(())
}

impl Drop for Busy {
    fn drop(&mut self) {
        ENDED.fetch_add(1, Ordering::AcqRel);
        if ACTIVE.fetch_sub(1, Ordering::AcqRel) == 1 {
            schedule();
        }
    }
}

/// Starts the task that trims once the server is idle, unless one waits already (outside a
/// tokio runtime it does nothing).
fn schedule() {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    if SCHEDULED.swap(true, Ordering::AcqRel) {
        return;
    }
    runtime.spawn(async {
        loop {
            let ended = ENDED.load(Ordering::Acquire);
            tokio::time::sleep(SETTLE).await;
            if ACTIVE.load(Ordering::Acquire) > 0 {
                // The request running schedules again when it ends; unless it ended just now.
                SCHEDULED.store(false, Ordering::Release);
                if ACTIVE.load(Ordering::Acquire) == 0 {
                    schedule();
                }
                return;
            }
            if ENDED.load(Ordering::Acquire) == ended {
                break;
            }
        }
        // Cleared first: a request that ends during the trim schedules the next one.
        SCHEDULED.store(false, Ordering::Release);
        let _ = tokio::task::spawn_blocking(trim).await;
    });
}

/// Returns the allocator's free memory to the system, and unmaps the executable's clean code
/// pages ([`crate::code_pages`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn trim() {
    // SAFETY: `malloc_trim` takes no pointer and works on glibc's own arenas under their
    // locks; it may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
    crate::code_pages::release();
}

/// Unmaps the executable's clean code pages (the allocator has nothing to return here).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn trim() {
    crate::code_pages::release();
}
