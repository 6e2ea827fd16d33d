//! Runs the nodes of a dependency graph, at most `parallel` at once, each when everything it
//! needs has finished successfully. A node whose need failed is skipped; a node whose need
//! is waiting for a person stays pending.
//!
//! The nodes are polled by the caller's task (no task per node): a chain of steps then runs
//! without a hand-off between the runtime's threads for every step (a wake-up through the
//! kernel each time, about a third of the engine's overhead per step). Nodes wait on
//! processes, HTTP and `spawn_blocking` work, so they still overlap.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;
use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;

/// How a node ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Finished successfully (or was already finished).
    Done,
    /// Paused for a person.
    Waiting,
    /// Failed on its content (`on_exhausted: fail`).
    Failed,
    /// Failed because a provider could not be reached.
    ProviderFailed,
    /// Failed before any agent ran: the step's configuration, rendered, is wrong (an output
    /// path that escapes the working directory, a template that names nothing).
    ConfigFailed,
    /// Not run: a node it needs failed.
    Skipped,
    /// Not run: a node it needs is waiting.
    Pending,
    /// Not started (or stopped between attempts) because the store cannot be written.
    Stopped,
}

impl End {
    fn blocks_as(self) -> Option<End> {
        match self {
            End::Done => None,
            End::Waiting | End::Pending | End::Stopped => Some(End::Pending),
            End::Failed | End::ProviderFailed | End::ConfigFailed | End::Skipped => {
                Some(End::Skipped)
            }
        }
    }
}

/// Runs every node of `deps` (`deps[i]`: the nodes `i` needs). `finished[i]` marks nodes
/// already done (not started again). Returns how each node ended.
pub async fn run<F, Fut>(
    deps: &[Vec<usize>],
    parallel: usize,
    finished: &[bool],
    mut start: F,
) -> Vec<End>
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = End> + Send + 'static,
{
    let n = deps.len();
    let mut end: Vec<Option<End>> = (0..n)
        .map(|i| {
            finished
                .get(i)
                .copied()
                .unwrap_or(false)
                .then_some(End::Done)
        })
        .collect();
    let mut started = vec![false; n];
    let mut running = FuturesUnordered::new();
    let parallel = parallel.max(1);
    loop {
        settle_blocked(deps, &mut end);
        for i in 0..n {
            if running.len() >= parallel {
                break;
            }
            if started[i] || end[i].is_some() {
                continue;
            }
            if deps[i].iter().all(|&d| end[d] == Some(End::Done)) {
                started[i] = true;
                let fut = AssertUnwindSafe(start(i)).catch_unwind();
                running.push(async move { (i, fut.await) });
            }
        }
        match running.next().await {
            Some((i, Ok(e))) => end[i] = Some(e),
            // A panicking node is a failed node; the others go on.
            Some((i, Err(_))) => end[i] = Some(End::Failed),
            None => break,
        }
    }
    settle_blocked(deps, &mut end);
    end.into_iter().map(|e| e.unwrap_or(End::Pending)).collect()
}

/// Marks nodes that can never start: skipped behind a failure, pending behind a wait.
fn settle_blocked(deps: &[Vec<usize>], end: &mut [Option<End>]) {
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..deps.len() {
            if end[i].is_some() {
                continue;
            }
            let blocked = deps[i]
                .iter()
                .filter_map(|&d| end[d].and_then(End::blocks_as))
                .min_by_key(|e| u8::from(*e == End::Pending));
            if let Some(b) = blocked {
                end[i] = Some(b);
                changed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn needs_are_respected_and_parallelism_is_capped() {
        // 0, 1, 2 independent; 3 needs 0 and 1; 4 needs 3.
        let deps = vec![vec![], vec![], vec![], vec![0, 1], vec![3]];
        let live = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let ends = run(&deps, 2, &[], |i| {
            let (live, peak, order) = (live.clone(), peak.clone(), order.clone());
            async move {
                let now = live.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                order.lock().unwrap().push(i);
                live.fetch_sub(1, Ordering::SeqCst);
                End::Done
            }
        })
        .await;
        assert!(ends.iter().all(|e| *e == End::Done));
        assert!(peak.load(Ordering::SeqCst) <= 2);
        let order = order.lock().unwrap().clone();
        let pos = |n| order.iter().position(|&x| x == n).unwrap();
        assert!(pos(3) > pos(0) && pos(3) > pos(1) && pos(4) > pos(3));
    }

    #[tokio::test]
    async fn a_panicking_node_fails_alone() {
        // 0 panics; 1 is independent and finishes; 2 needs 0 and is skipped.
        let deps = vec![vec![], vec![], vec![0]];
        let ends = run(&deps, 2, &[], |i| async move {
            tokio::task::yield_now().await;
            assert!(i != 0, "node 0 panics");
            End::Done
        })
        .await;
        assert_eq!(ends, [End::Failed, End::Done, End::Skipped]);
    }

    #[tokio::test]
    async fn failures_skip_and_waits_hold_dependents() {
        let deps = vec![vec![], vec![0], vec![], vec![2], vec![1, 3]];
        let ends = run(&deps, 4, &[], |i| async move {
            match i {
                0 => End::Failed,
                2 => End::Waiting,
                _ => End::Done,
            }
        })
        .await;
        assert_eq!(
            ends,
            [
                End::Failed,
                End::Skipped,
                End::Waiting,
                End::Pending,
                End::Skipped
            ]
        );
        let finished = [true, false];
        let ends = run(&[vec![], vec![0]], 1, &finished, |i| async move {
            assert_eq!(i, 1, "a finished node is not started again");
            End::Done
        })
        .await;
        assert_eq!(ends, [End::Done, End::Done]);
    }
}
