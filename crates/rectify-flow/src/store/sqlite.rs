//! The store's SQLite backend: `.rectify/rectify.db` in WAL mode, one transaction per state
//! change (see the module above for the durability of each).

use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::{
    CallOutcome, CallRecord, Event, EventRecord, LinkRecord, RunRecord, RunStatus, StepRecord,
    StoreError, WaitRecord, hostname, json_or_null, now_ms, parse_or_default, records, schema,
};

/// The SQLite backend: one connection, each method one transaction.
#[derive(Debug)]
pub(super) struct Sqlite {
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
    /// Whether the connection is at `synchronous=FULL` now (see [`Sqlite::sync`]).
    full: std::sync::atomic::AtomicBool,
}

/// How durable a commit must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Commit {
    /// Fsynced before the commit returns: a state the run must not lose even to a power
    /// failure — a step's end, a wait, a decision, the run's status.
    Disk,
    /// Committed (visible to other processes, kept when this process is killed) and fsynced
    /// with the next `Disk` commit: the intermediate changes of a unit in progress (its
    /// attempt counter, a raw answer, a kept file). A power failure before that commit loses
    /// only the unit in progress, which a resume runs again from its last `Disk` state (its
    /// calls made once more: at-least-once, as for a call in flight).
    Process,
}

/// Adds an event as the next of its run (events are numbered per run, in the order written).
const INSERT_EVENT: &str = "INSERT INTO events (run_id, n, step, kind, at_ms, detail)
     SELECT ?1, IFNULL(MAX(n), 0) + 1, ?2, ?3, ?4, ?5 FROM events WHERE run_id = ?1";

impl Sqlite {
    /// Opens (creating when needed) the store of the working directory `workdir`:
    /// `workdir/.rectify/rectify.db`, created with mode 0600.
    pub(super) fn open(workdir: &Path) -> Result<Sqlite, StoreError> {
        let dir = workdir.join(".rectify");
        // 0700 whatever the umask: the store holds every prompt and answer.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|source| StoreError::Io {
                path: dir.clone(),
                source,
            })?;
        let path = dir.join("rectify.db");
        create_private(&path).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        let conn = Connection::open(&path)?;
        Sqlite::init(conn, Some(path))
    }

    /// Opens the store at `workdir/.rectify/rectify.db` only if it exists.
    pub(super) fn open_existing(workdir: &Path) -> Result<Option<Sqlite>, StoreError> {
        let path = workdir.join(".rectify").join("rectify.db");
        if !path.exists() {
            return Ok(None);
        }
        let conn = Connection::open(&path)?;
        Sqlite::init(conn, Some(path)).map(Some)
    }

    fn init(conn: Connection, path: Option<PathBuf>) -> Result<Sqlite, StoreError> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Switching a new file to WAL needs an exclusive lock, and SQLite answers "database is
        // locked" at once, without the busy handler, when two processes that both read the
        // file try it together (seen in CI: four runs starting in one new store). Retried.
        let start = std::time::Instant::now();
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy
                        && start.elapsed() < std::time::Duration::from_secs(5) =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => break other?,
            }
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        schema::migrate(&conn)?;
        Ok(Sqlite {
            conn: Mutex::new(conn),
            path,
            full: std::sync::atomic::AtomicBool::new(true),
        })
    }

    /// The database file, when there is one.
    pub(super) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-written transaction behind
        // (SQLite rolls it back), so the connection is still usable.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets the durability of the next commits on `conn` (the lock held): `synchronous=FULL`
    /// or `NORMAL` in WAL mode, changed only when it differs. A `FULL` commit fsyncs the WAL,
    /// so it also makes every `NORMAL` commit before it durable (group commit).
    fn sync(&self, conn: &Connection, commit: Commit) -> Result<(), StoreError> {
        use std::sync::atomic::Ordering;
        let full = commit == Commit::Disk;
        if self.path.is_some() && self.full.load(Ordering::Relaxed) != full {
            let pragma = if full {
                "PRAGMA synchronous = FULL"
            } else {
                "PRAGMA synchronous = NORMAL"
            };
            conn.prepare_cached(pragma)?.execute([])?;
            self.full.store(full, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Runs `body` in one transaction committed at `commit`'s durability. `BEGIN`, `COMMIT`
    /// and `ROLLBACK` are cached statements (rusqlite's `Transaction` parses them anew every
    /// time, a measurable share of a step on the hot path); an error rolls back.
    fn write<T>(
        &self,
        commit: Commit,
        body: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let conn = self.conn();
        self.sync(&conn, commit)?;
        conn.prepare_cached("BEGIN")?.execute([])?;
        let result = body(&conn).and_then(|value| {
            conn.prepare_cached("COMMIT")?.execute([])?;
            Ok(value)
        });
        if result.is_err() && !conn.is_autocommit() {
            // The error above is the one to report; a failed rollback leaves the
            // transaction to SQLite, which rolls it back when the connection is used again.
            let _ = conn
                .prepare_cached("ROLLBACK")
                .and_then(|mut s| s.execute([]));
        }
        result
    }

    /// Records a new run and its `steps` as pending, in one transaction (a kill cannot leave a
    /// run without its steps, which would list them in the order they later start). Committed
    /// without an fsync: the first
    /// durable commit of the run (its first unit's end, a wait, its status) fsyncs them. A
    /// crash keeps the run; a power failure before that commit loses it together with the
    /// units in progress, which is what group commit loses anyway.
    pub(super) fn create_run(&self, run: &RunRecord, steps: &[&str]) -> Result<(), StoreError> {
        self.write(Commit::Process, |tx| {
            tx.execute(
                "INSERT INTO runs (id, workflow, workflow_path, workflow_hash, workflow_source, workdir, inputs, status, memory, created_ms, updated_ms, lease_pid, lease_host, lease_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12, ?10)",
                params![
                    run.id,
                    run.workflow,
                    run.workflow_path,
                    run.workflow_hash,
                    run.workflow_source,
                    run.workdir,
                    serde_json::to_string(&run.inputs)?,
                    run.status.as_str(),
                    run.memory,
                    run.created_ms,
                    i64::from(std::process::id()),
                    hostname(),
                ],
            )?;
            insert_pending(tx, &run.id, steps)
        })
    }

    /// Sets a run's status.
    pub(super) fn set_run_status(&self, run: &str, status: RunStatus) -> Result<(), StoreError> {
        let conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        conn.execute(
            "UPDATE runs SET status = ?2, updated_ms = ?3 WHERE id = ?1",
            params![run, status.as_str(), now_ms()],
        )?;
        Ok(())
    }

    /// Saves the run's error memory (JSON).
    pub(super) fn set_memory(&self, run: &str, memory: &str) -> Result<(), StoreError> {
        let conn = self.conn();
        self.sync(&conn, Commit::Process)?;
        conn.execute(
            "UPDATE runs SET memory = ?2, updated_ms = ?3 WHERE id = ?1",
            params![run, memory, now_ms()],
        )?;
        Ok(())
    }

    /// Writes a step's whole row (insert or replace) and, in the same transaction, an event.
    pub(super) fn put_step(
        &self,
        run: &str,
        step: &StepRecord,
        event: Event,
    ) -> Result<(), StoreError> {
        // A unit's intermediate changes are followed by its end (`done`, `exhausted`,
        // `failed`, a wait), which is fsynced.
        let commit = if event.ends_unit() {
            Commit::Disk
        } else {
            Commit::Process
        };
        self.write(commit, |tx| {
            upsert_step(tx, run, step)?;
            // The diagnostics of the moment go with the events that act on them (what an
            // attempt was sent back for, why a step stopped), not with every event.
            let detail = if event.keeps_diagnostics() {
                json_or_null(&step.diagnostics)?
            } else {
                None
            };
            tx.prepare_cached(INSERT_EVENT)?.execute(params![
                run,
                step.id,
                event.as_str(),
                now_ms(),
                detail
            ])?;
            Ok(())
        })
    }

    /// A person's decision on the open wait of `step.id`: writes the step's row, resolves the
    /// wait and adds one event `decision` — one durable transaction.
    pub(super) fn decide(
        &self,
        run: &str,
        step: &StepRecord,
        decision: Event,
    ) -> Result<(), StoreError> {
        self.write(Commit::Disk, |tx| {
            upsert_step(tx, run, step)?;
            tx.prepare_cached(
                "UPDATE waits SET resolved_ms = ?3 WHERE run_id = ?1 AND step = ?2 AND resolved_ms IS NULL",
            )?
            .execute(params![run, step.id, now_ms()])?;
            tx.prepare_cached(INSERT_EVENT)?.execute(params![
                run,
                step.id,
                decision.as_str(),
                now_ms(),
                None::<String>
            ])?;
            Ok(())
        })
    }

    /// Records every step of a new run as pending, in one transaction (so `status` lists the
    /// steps that have not started); fsynced with the run's next durable commit.
    pub(super) fn put_pending(&self, run: &str, steps: &[&str]) -> Result<(), StoreError> {
        self.write(Commit::Process, |tx| insert_pending(tx, run, steps))
    }

    /// Records a model or agent answer as it arrives (before it is checked), with the files
    /// the call left (stored by content hash, in the same transaction); returns its id.
    pub(super) fn record_call(
        &self,
        run: &str,
        call: &CallRecord,
        files: &[(String, Vec<u8>)],
    ) -> Result<i64, StoreError> {
        self.write(Commit::Process, |tx| {
        for (path, bytes) in files {
            let hash = crate::load::hex(&Sha256::digest(bytes));
            tx.prepare_cached("INSERT OR IGNORE INTO artifacts (hash, bytes) VALUES (?1, ?2)")?
                .execute(params![hash, bytes])?;
            tx.prepare_cached(
                "INSERT INTO artifact_links (run_id, step, path, kind, hash, at_ms) VALUES (?1, ?2, ?3, 'written', ?4, ?5)",
            )?
            .execute(params![run, call.step, path, hash, now_ms()])?;
        }
        let outcome = if call.outcome.is_empty() {
            None
        } else {
            Some(serde_json::to_string(&call.outcome)?)
        };
        tx.prepare_cached(
            "INSERT INTO calls (run_id, step, role, seq, prompt_hash, raw, input_tokens, output_tokens, at_ms, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            run,
            call.step,
            call.role,
            call.seq,
            call.prompt_hash,
            call.raw,
            call.input_tokens,
            call.output_tokens,
            now_ms(),
            outcome
        ])?;
        Ok(tx.last_insert_rowid())
        })
    }

    /// The calls of a run, in order.
    pub(super) fn calls(&self, run: &str) -> Result<Vec<CallRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT step, role, seq, prompt_hash, raw, input_tokens, output_tokens, outcome, at_ms FROM calls WHERE run_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map(params![run], |r| {
            Ok((
                CallRecord {
                    step: r.get(0)?,
                    role: r.get(1)?,
                    seq: r.get(2)?,
                    prompt_hash: r.get(3)?,
                    raw: r.get(4)?,
                    input_tokens: r.get(5)?,
                    output_tokens: r.get(6)?,
                    outcome: CallOutcome::default(),
                    at_ms: r.get(8)?,
                },
                r.get::<_, Option<String>>(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mut call, outcome) = row?;
            call.outcome = parse_or_default(outcome.as_deref())?;
            out.push(call);
        }
        Ok(out)
    }

    /// The events of a run, in order.
    pub(super) fn events(&self, run: &str) -> Result<Vec<EventRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT step, kind, at_ms, detail FROM events WHERE run_id = ?1 ORDER BY n")?;
        let rows = stmt.query_map(params![run], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (step, kind, at_ms, detail) = row?;
            out.push(EventRecord {
                step,
                kind,
                at_ms,
                diagnostics: parse_or_default(detail.as_deref())?,
            });
        }
        Ok(out)
    }

    /// The stored files of a run, in order.
    pub(super) fn links(&self, run: &str) -> Result<Vec<LinkRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT l.step, l.path, l.kind, l.hash, LENGTH(a.bytes), l.at_ms FROM artifact_links l
             JOIN artifacts a ON a.hash = l.hash WHERE l.run_id = ?1 ORDER BY l.rowid",
        )?;
        let rows = stmt.query_map(params![run], |r| {
            Ok(LinkRecord {
                step: r.get(0)?,
                path: r.get(1)?,
                kind: r.get(2)?,
                hash: r.get(3)?,
                bytes: r.get(4)?,
                at_ms: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Stores `bytes` by content hash (once) and links them to a run's step and path as
    /// `kind` (`original`, `repaired`, `edit`, `answer`); returns the hash.
    pub(super) fn put_artifact(
        &self,
        run: &str,
        step: &str,
        path: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        let hash = crate::load::hex(&Sha256::digest(bytes));
        let mut conn = self.conn();
        self.sync(&conn, Commit::Process)?;
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT OR IGNORE INTO artifacts (hash, bytes) VALUES (?1, ?2)",
            params![hash, bytes],
        )?;
        tx.execute(
            "INSERT INTO artifact_links (run_id, step, path, kind, hash, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run, step, path, kind, hash, now_ms()],
        )?;
        tx.commit()?;
        Ok(hash)
    }

    /// The bytes of an artifact.
    pub(super) fn artifact(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT bytes FROM artifacts WHERE hash = ?1",
                params![hash],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Records what a paused run waits for, sets the step and the run to waiting, and adds
    /// an event — one transaction, committed before anything is printed.
    pub(super) fn put_wait(&self, run: &str, wait: &WaitRecord) -> Result<(), StoreError> {
        let mut conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO waits (run_id, step, reason, message, diagnostics, files, best, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (run_id, step) DO UPDATE SET reason = excluded.reason, message = excluded.message,
               diagnostics = excluded.diagnostics, files = excluded.files, best = excluded.best,
               created_ms = excluded.created_ms, resolved_ms = NULL",
            params![
                run,
                wait.step,
                wait.reason,
                wait.message,
                json_or_null(&wait.diagnostics)?,
                serde_json::to_string(&wait.files)?,
                wait.best,
                now_ms()
            ],
        )?;
        tx.execute(
            "UPDATE steps SET status = 'waiting' WHERE run_id = ?1 AND id = ?2",
            params![run, wait.step],
        )?;
        tx.execute(
            INSERT_EVENT,
            params![
                run,
                wait.step,
                Event::Waiting.as_str(),
                now_ms(),
                None::<String>
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The open waits of a run.
    pub(super) fn waits(&self, run: &str) -> Result<Vec<WaitRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT step, reason, message, diagnostics, files, best FROM waits WHERE run_id = ?1 AND resolved_ms IS NULL ORDER BY created_ms, step",
        )?;
        let rows = stmt.query_map(params![run], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (step, reason, message, diagnostics, files, best) = row?;
            out.push(WaitRecord {
                step,
                reason,
                message,
                diagnostics: parse_or_default(diagnostics.as_deref())?,
                files: serde_json::from_str(&files)?,
                best,
            });
        }
        Ok(out)
    }

    /// Marks the open wait of `step` resolved with `decision` (`approved`, `rejected`, ...),
    /// in one transaction with its event.
    pub(super) fn resolve_wait(
        &self,
        run: &str,
        step: &str,
        decision: Event,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        let tx = conn.transaction()?;
        tx.execute(
            "UPDATE waits SET resolved_ms = ?3 WHERE run_id = ?1 AND step = ?2 AND resolved_ms IS NULL",
            params![run, step, now_ms()],
        )?;
        tx.execute(
            INSERT_EVENT,
            params![run, step, decision.as_str(), now_ms(), None::<String>],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The process holding the run's lease: (pid, host, last heartbeat in ms).
    pub(super) fn lease(&self, run: &str) -> Result<Option<(i64, String, i64)>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT lease_pid, lease_host, lease_ms FROM runs WHERE id = ?1",
                params![run],
                |r| {
                    Ok((
                        r.get::<_, Option<i64>>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                    ))
                },
            )
            .optional()?
            .and_then(|(p, h, m)| Some((p?, h.unwrap_or_default(), m.unwrap_or_default()))))
    }

    /// Makes this process the run's only writer if the lease is still held by `expected`
    /// (process id, host; `None`: no holder) — a compare-and-swap, so of two processes taking
    /// the same lease one wins. Sets the run running. Returns whether the lease was taken.
    pub(super) fn take_lease(
        &self,
        run: &str,
        expected: Option<(i64, &str)>,
    ) -> Result<bool, StoreError> {
        let (pid, host) = expected.map_or((None, None), |(p, h)| (Some(p), Some(h)));
        let conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        let changed = conn.execute(
            "UPDATE runs SET lease_pid = ?2, lease_host = ?3, lease_ms = ?4, status = 'running'
             WHERE id = ?1 AND lease_pid IS ?5 AND IFNULL(lease_host, '') = IFNULL(?6, '')",
            params![
                run,
                i64::from(std::process::id()),
                hostname(),
                now_ms(),
                pid,
                host
            ],
        )?;
        Ok(changed == 1)
    }

    /// Ends this process's hold on the run: clears its lease and, when the run is still
    /// `running`, sets `status`. Returns whether this process held it.
    pub(super) fn release(&self, run: &str, status: RunStatus) -> Result<bool, StoreError> {
        let conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        let changed = conn.execute(
            "UPDATE runs SET status = CASE WHEN status = 'running' THEN ?4 ELSE status END,
               lease_pid = NULL, lease_host = NULL, updated_ms = ?5
             WHERE id = ?1 AND lease_pid = ?2 AND lease_host = ?3",
            params![
                run,
                i64::from(std::process::id()),
                hostname(),
                status.as_str(),
                now_ms()
            ],
        )?;
        Ok(changed == 1)
    }

    /// Renews this process's lease on the run (its heartbeat); false when another process
    /// holds it.
    pub(super) fn heartbeat(&self, run: &str) -> Result<bool, StoreError> {
        let conn = self.conn();
        self.sync(&conn, Commit::Process)?;
        let changed = conn.execute(
            "UPDATE runs SET lease_ms = ?4 WHERE id = ?1 AND lease_pid = ?2 AND lease_host = ?3",
            params![run, i64::from(std::process::id()), hostname(), now_ms()],
        )?;
        Ok(changed == 1)
    }

    /// Adds an event.
    pub(super) fn event(&self, run: &str, step: &str, kind: Event) -> Result<(), StoreError> {
        let conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        conn.prepare_cached(INSERT_EVENT)?.execute(params![
            run,
            step,
            kind.as_str(),
            now_ms(),
            None::<String>
        ])?;
        Ok(())
    }

    /// One run.
    pub(super) fn run(&self, run: &str) -> Result<Option<RunRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!("{} WHERE id = ?1", records::RUN_SELECT))?;
        let found = stmt.query_row(params![run], records::run_row).optional()?;
        found.map(records::finish_run).transpose()
    }

    /// Every run, newest first.
    pub(super) fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "{} ORDER BY created_ms DESC, id",
            records::RUN_SELECT
        ))?;
        let rows = stmt.query_map([], records::run_row)?;
        rows.map(|r| records::finish_run(r?)).collect()
    }

    /// The steps of a run, in the order they were first written.
    pub(super) fn steps(&self, run: &str) -> Result<Vec<StepRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!(
            "{} WHERE run_id = ?1 ORDER BY rowid",
            records::STEP_SELECT
        ))?;
        let rows = stmt.query_map(params![run], records::step_row)?;
        rows.map(|r| records::finish_step(r?)).collect()
    }

    /// Deletes the runs last updated before `before_ms` that are not running (completed,
    /// failed, or waiting for a person), with everything they stored, then the files no run
    /// refers to any more, and compacts the database. Returns the ids deleted.
    pub(super) fn prune(&self, before_ms: i64) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn();
        self.sync(&conn, Commit::Disk)?;
        let tx = conn.transaction()?;
        let ids: Vec<String> = {
            let mut stmt = tx.prepare(
                "SELECT id FROM runs WHERE updated_ms < ?1 AND status <> 'running' ORDER BY created_ms",
            )?;
            stmt.query_map(params![before_ms], |r| r.get(0))?
                .collect::<Result<_, _>>()?
        };
        for id in &ids {
            tx.execute("DELETE FROM runs WHERE id = ?1", params![id])?;
        }
        tx.execute(
            "DELETE FROM artifacts WHERE hash NOT IN (SELECT hash FROM artifact_links)",
            [],
        )?;
        tx.commit()?;
        if !ids.is_empty() {
            conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")?;
        }
        Ok(ids)
    }

    /// Bytes stored for a run, raw answers and artifacts excluded (the size of its rows).
    pub(super) fn run_bytes(&self, run: &str) -> Result<i64, StoreError> {
        let conn = self.conn();
        let sum = |sql: &str| -> Result<i64, rusqlite::Error> {
            conn.query_row(sql, params![run], |r| r.get::<_, Option<i64>>(0))
                .map(Option::unwrap_or_default)
        };
        Ok(sum(
            "SELECT SUM(LENGTH(id) + LENGTH(workflow) + LENGTH(workflow_path) + LENGTH(workflow_hash) + LENGTH(workdir) + LENGTH(inputs) + LENGTH(status) + IFNULL(LENGTH(memory),0) + 48) FROM runs WHERE id = ?1",
        )? + sum(
            "SELECT SUM(LENGTH(id) + LENGTH(status) + IFNULL(LENGTH(verdict),0) + IFNULL(LENGTH(warnings),0) + IFNULL(LENGTH(diagnostics),0) + IFNULL(LENGTH(output),0) + 80) FROM steps WHERE run_id = ?1",
        )? + sum("SELECT SUM(LENGTH(step) + LENGTH(kind) + 16) FROM events WHERE run_id = ?1")?
            + sum(
                "SELECT SUM(LENGTH(step) + LENGTH(role) + LENGTH(prompt_hash) + 32) FROM calls WHERE run_id = ?1",
            )?
            + sum(
                "SELECT SUM(LENGTH(step) + LENGTH(path) + LENGTH(kind) + LENGTH(hash) + 16) FROM artifact_links WHERE run_id = ?1",
            )?)
    }
}

/// Inserts the rows of steps that have none yet, as pending (within the caller's transaction).
fn insert_pending(tx: &Connection, run: &str, steps: &[&str]) -> Result<(), StoreError> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO steps (run_id, id, status) VALUES (?1, ?2, 'pending')",
    )?;
    for id in steps {
        stmt.execute(params![run, id])?;
    }
    Ok(())
}

/// Inserts or replaces a step's row (within the caller's transaction).
fn upsert_step(tx: &Connection, run: &str, step: &StepRecord) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO steps (run_id, id, status, attempts, repairs, repair_runs, revisions, validations, verdict, warnings, diagnostics, input_tokens, output_tokens, cost, output, started_ms, ended_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
         ON CONFLICT (run_id, id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
           repairs = excluded.repairs, repair_runs = excluded.repair_runs, revisions = excluded.revisions,
           validations = excluded.validations, verdict = excluded.verdict, warnings = excluded.warnings,
           diagnostics = excluded.diagnostics, input_tokens = excluded.input_tokens,
           output_tokens = excluded.output_tokens, cost = excluded.cost, output = excluded.output,
           started_ms = excluded.started_ms, ended_ms = excluded.ended_ms",
    )?
    .execute(params![
        run,
        step.id,
        step.status.as_str(),
        step.attempts,
        step.repairs,
        step.repair_runs,
        step.revisions,
        step.validations,
        step.verdict,
        json_or_null(&step.warnings)?,
        json_or_null(&step.diagnostics)?,
        step.input_tokens,
        step.output_tokens,
        step.cost,
        step.output.as_ref().map(serde_json::to_string).transpose()?,
        step.started_ms,
        step.ended_ms,
    ])?;
    Ok(())
}

/// Creates `path` with mode 0600 when it does not exist (prompts and answers are kept in it).
fn create_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
