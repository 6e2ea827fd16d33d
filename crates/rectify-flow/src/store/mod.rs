//! The store (docs/architecture.md, "The store"): SQLite in `.rectify/rectify.db`, WAL, one
//! transaction per state change, committed before the next side effect. A unit's intermediate
//! changes (its attempt, raw answers, kept files) are committed with `synchronous=NORMAL` — kept
//! when the process is killed — and fsynced by the `synchronous=FULL` commit of the unit's end, of
//! a wait or of a decision (group commit): a power failure loses at most the units in progress,
//! which resume runs again.
//!
//! It keeps runs (the workflow pinned by hash and copy, inputs, status, the error memory,
//! the lease), steps (status, counters, usage, the accepted output), calls (every raw answer,
//! recorded as soon as it arrives and before it is checked), artifacts by content hash
//! (original outputs before repair, repaired outputs, human edits), what a paused run waits
//! for, and events. Nothing is a full-state snapshot: storage grows with the work done.

mod memory;
mod records;
mod schema;
mod sqlite;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

pub use records::{
    CallOutcome, CallRecord, Event, EventRecord, LinkRecord, RunRecord, RunStatus, StepRecord,
    StepStatus, StepStatusField, WaitRecord,
};

/// A store failure (the database cannot be opened or written).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite reported an error.
    #[error("the run store failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The store's directory could not be created.
    #[error("cannot create the run store in `{path}`: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A stored JSON column could not be read.
    #[error("the run store holds unreadable data: {0}")]
    Json(#[from] serde_json::Error),
    /// A change names a run the store does not have.
    #[error("the run store has no run `{run}`")]
    NoRun {
        /// The run id.
        run: String,
    },
    /// A new run has the id of one the store already has.
    #[error("the run store already has a run `{run}`")]
    RunExists {
        /// The run id.
        run: String,
    },
    /// The store was written by a newer rectify.
    #[error("the run store has schema version {found}; this rectify knows up to {known}")]
    Version {
        /// Version in the file.
        found: i64,
        /// Newest version this build knows.
        known: i64,
    },
}

/// The run store. `Send + Sync`; each method is one transaction. Two backends behind the same
/// methods: SQLite in a file ([`Store::open`]), and plain data in this process's memory
/// ([`Store::in_memory`]: for runs nothing needs to resume, tests and benchmarks).
#[derive(Debug)]
pub struct Store {
    backend: Backend,
}

#[derive(Debug)]
enum Backend {
    Sqlite(sqlite::Sqlite),
    Memory(memory::Memory),
}

/// Calls the method of whichever backend the store has.
macro_rules! dispatch {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        match &$self.backend {
            Backend::Sqlite(s) => s.$method($($arg),*),
            Backend::Memory(m) => m.$method($($arg),*),
        }
    };
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Store {
    /// Opens (creating when needed) the store of the working directory `workdir`:
    /// `workdir/.rectify/rectify.db`, created with mode 0600.
    pub fn open(workdir: &Path) -> Result<Store, StoreError> {
        sqlite::Sqlite::open(workdir).map(Store::sqlite)
    }

    /// Opens the store at `workdir/.rectify/rectify.db` only if it exists.
    pub fn open_existing(workdir: &Path) -> Result<Option<Store>, StoreError> {
        Ok(sqlite::Sqlite::open_existing(workdir)?.map(Store::sqlite))
    }

    /// A store in this process's memory, not SQLite: the same methods and answers as a file
    /// store (a differential test holds them to it), gone with the process. For runs nothing
    /// needs to resume, tests and benchmarks.
    pub fn in_memory() -> Result<Store, StoreError> {
        Ok(Store {
            backend: Backend::Memory(memory::Memory::default()),
        })
    }

    fn sqlite(store: sqlite::Sqlite) -> Store {
        Store {
            backend: Backend::Sqlite(store),
        }
    }

    /// The database file, when there is one.
    pub fn path(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Sqlite(s) => s.path(),
            Backend::Memory(_) => None,
        }
    }

    /// Records a new run and its `steps` as pending, in one transaction (a kill cannot leave a
    /// run without its steps, which would list them in the order they later start). Committed
    /// without an fsync: the first
    /// durable commit of the run (its first unit's end, a wait, its status) fsyncs them. A
    /// crash keeps the run; a power failure before that commit loses it together with the
    /// units in progress, which is what group commit loses anyway.
    pub fn create_run(&self, run: &RunRecord, steps: &[&str]) -> Result<(), StoreError> {
        dispatch!(self.create_run(run, steps))
    }

    /// Sets a run's status.
    pub fn set_run_status(&self, run: &str, status: RunStatus) -> Result<(), StoreError> {
        dispatch!(self.set_run_status(run, status))
    }

    /// Saves the run's error memory (JSON).
    pub fn set_memory(&self, run: &str, memory: &str) -> Result<(), StoreError> {
        dispatch!(self.set_memory(run, memory))
    }

    /// Writes a step's whole row (insert or replace) and, in the same transaction, an event.
    pub fn put_step(&self, run: &str, step: &StepRecord, event: Event) -> Result<(), StoreError> {
        dispatch!(self.put_step(run, step, event))
    }

    /// A person's decision on the open wait of `step.id` (`approved`, `edited`): writes the
    /// step's whole row, resolves the wait and adds one event named `decision` — one
    /// transaction, so the step is never done while its wait is still open, and one decision
    /// is one event.
    pub fn decide(&self, run: &str, step: &StepRecord, decision: Event) -> Result<(), StoreError> {
        dispatch!(self.decide(run, step, decision))
    }

    /// Records every step of a new run as pending, in one transaction (so `status` lists the
    /// steps that have not started); fsynced with the run's next durable commit.
    pub fn put_pending(&self, run: &str, steps: &[&str]) -> Result<(), StoreError> {
        dispatch!(self.put_pending(run, steps))
    }

    /// Records a model or agent answer as it arrives (before it is checked), with the files
    /// the call left (stored by content hash, in the same transaction); returns its id.
    pub fn record_call(
        &self,
        run: &str,
        call: &CallRecord,
        files: &[(String, Vec<u8>)],
    ) -> Result<i64, StoreError> {
        dispatch!(self.record_call(run, call, files))
    }

    /// The calls of a run, in order.
    pub fn calls(&self, run: &str) -> Result<Vec<CallRecord>, StoreError> {
        dispatch!(self.calls(run))
    }

    /// The events of a run, in order.
    pub fn events(&self, run: &str) -> Result<Vec<EventRecord>, StoreError> {
        dispatch!(self.events(run))
    }

    /// The stored files of a run, in order.
    pub fn links(&self, run: &str) -> Result<Vec<LinkRecord>, StoreError> {
        dispatch!(self.links(run))
    }

    /// Stores `bytes` by content hash (once) and links them to a run's step and path as
    /// `kind` (`original`, `repaired`, `edit`, `answer`); returns the hash.
    pub fn put_artifact(
        &self,
        run: &str,
        step: &str,
        path: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        dispatch!(self.put_artifact(run, step, path, kind, bytes))
    }

    /// The bytes of an artifact.
    pub fn artifact(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError> {
        dispatch!(self.artifact(hash))
    }

    /// Records what a paused run waits for, sets the step and the run to waiting, and adds
    /// an event — one transaction, committed before anything is printed.
    pub fn put_wait(&self, run: &str, wait: &WaitRecord) -> Result<(), StoreError> {
        dispatch!(self.put_wait(run, wait))
    }

    /// The open waits of a run.
    pub fn waits(&self, run: &str) -> Result<Vec<WaitRecord>, StoreError> {
        dispatch!(self.waits(run))
    }

    /// Marks the open wait of `step` resolved with `decision` (`approved`, `rejected`, ...),
    /// in one transaction with its event.
    pub fn resolve_wait(&self, run: &str, step: &str, decision: Event) -> Result<(), StoreError> {
        dispatch!(self.resolve_wait(run, step, decision))
    }

    /// The process holding the run's lease: (pid, host, last heartbeat in ms).
    pub fn lease(&self, run: &str) -> Result<Option<(i64, String, i64)>, StoreError> {
        dispatch!(self.lease(run))
    }

    /// Makes this process the run's only writer if the lease is still held by `expected`
    /// (process id, host; `None`: no holder) — a compare-and-swap, so of two processes taking
    /// the same lease one wins. Sets the run running. Returns whether the lease was taken.
    pub fn take_lease(&self, run: &str, expected: Option<(i64, &str)>) -> Result<bool, StoreError> {
        dispatch!(self.take_lease(run, expected))
    }

    /// Ends this process's hold on the run: clears its lease and, when the run is still
    /// `running`, sets `status` (`interrupted` when a signal stopped the process). Does
    /// nothing when another process holds the lease; returns whether it held it.
    pub fn release(&self, run: &str, status: RunStatus) -> Result<bool, StoreError> {
        dispatch!(self.release(run, status))
    }

    /// The run's status as a reader should see it: a `running` run whose lease holder is
    /// gone (see [`holder_alive`]) is `interrupted` — killed before it could say so.
    pub fn observed_status(&self, run: &RunRecord) -> Result<RunStatus, StoreError> {
        if run.status != RunStatus::Running {
            return Ok(run.status);
        }
        let alive = self
            .lease(&run.id)?
            .is_some_and(|(pid, host, beat)| holder_alive(pid, &host, beat));
        Ok(if alive {
            RunStatus::Running
        } else {
            RunStatus::Interrupted
        })
    }

    /// Renews this process's lease on the run (its heartbeat); false when another process
    /// holds it.
    pub fn heartbeat(&self, run: &str) -> Result<bool, StoreError> {
        dispatch!(self.heartbeat(run))
    }

    /// Adds an event.
    pub fn event(&self, run: &str, step: &str, kind: Event) -> Result<(), StoreError> {
        dispatch!(self.event(run, step, kind))
    }

    /// One run.
    pub fn run(&self, run: &str) -> Result<Option<RunRecord>, StoreError> {
        dispatch!(self.run(run))
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        dispatch!(self.runs())
    }

    /// The steps of a run, in the order they were first written.
    pub fn steps(&self, run: &str) -> Result<Vec<StepRecord>, StoreError> {
        dispatch!(self.steps(run))
    }

    /// Deletes the runs last updated before `before_ms` that are not running (completed,
    /// failed, or waiting for a person), with everything they stored, then the files no run
    /// refers to any more, and compacts the database. Returns the ids deleted.
    pub fn prune(&self, before_ms: i64) -> Result<Vec<String>, StoreError> {
        dispatch!(self.prune(before_ms))
    }

    /// Bytes stored for a run, raw answers and artifacts excluded (the size of its rows).
    pub fn run_bytes(&self, run: &str) -> Result<i64, StoreError> {
        dispatch!(self.run_bytes(run))
    }
}

fn json_or_null<T: serde::Serialize>(items: &[T]) -> Result<Option<String>, serde_json::Error> {
    if items.is_empty() {
        Ok(None)
    } else {
        serde_json::to_string(items).map(Some)
    }
}

fn parse_or_default<T: serde::de::DeserializeOwned + Default>(
    text: Option<&str>,
) -> Result<T, StoreError> {
    match text {
        Some(t) => Ok(serde_json::from_str(t)?),
        None => Ok(T::default()),
    }
}

/// A lease holder that sent no heartbeat for this long is taken for gone (a holder beats
/// every 5 s).
pub const LEASE_STALE_MS: i64 = 30_000;

/// Whether the process holding a lease (`pid` on `host`, last heartbeat at `beat_ms`) may
/// still be running the run: it sent a heartbeat within [`LEASE_STALE_MS`] and, on this
/// machine, its process exists (a holder killed with `kill -9` is gone at once; a process id
/// reused by another program since does not keep a dead run's lease, its heartbeat is old).
pub fn holder_alive(pid: i64, host: &str, beat_ms: i64) -> bool {
    let fresh = now_ms() - beat_ms < LEASE_STALE_MS;
    if host == hostname() {
        fresh && Path::new(&format!("/proc/{pid}")).exists()
    } else {
        fresh
    }
}

/// This machine's name (for leases), read once per process.
pub fn hostname() -> String {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .unwrap_or_default()
    })
    .clone()
}
