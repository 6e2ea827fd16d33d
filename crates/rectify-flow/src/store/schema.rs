//! The store's tables and their migrations.

use rusqlite::Connection;

use super::StoreError;

/// The newest schema version.
pub(super) const VERSION: i64 = 3;

const V1: &str = "
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  workflow TEXT NOT NULL,
  workflow_path TEXT NOT NULL,
  workflow_hash TEXT NOT NULL,
  workflow_source TEXT NOT NULL,
  workdir TEXT NOT NULL,
  inputs TEXT NOT NULL,
  status TEXT NOT NULL,
  memory TEXT,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  lease_pid INTEGER,
  lease_host TEXT,
  lease_ms INTEGER
);
CREATE TABLE steps (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  repairs INTEGER NOT NULL DEFAULT 0,
  repair_runs INTEGER NOT NULL DEFAULT 0,
  revisions INTEGER NOT NULL DEFAULT 0,
  validations INTEGER NOT NULL DEFAULT 0,
  verdict TEXT,
  warnings TEXT,
  diagnostics TEXT,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost REAL,
  output TEXT,
  started_ms INTEGER,
  ended_ms INTEGER,
  PRIMARY KEY (run_id, id)
);
CREATE TABLE calls (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  role TEXT NOT NULL,
  seq INTEGER NOT NULL,
  prompt_hash TEXT NOT NULL,
  raw TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  at_ms INTEGER NOT NULL
);
CREATE INDEX calls_by_run ON calls (run_id, step, role, seq);
CREATE TABLE artifacts (
  hash TEXT PRIMARY KEY,
  bytes BLOB NOT NULL
);
CREATE TABLE artifact_links (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  path TEXT NOT NULL,
  kind TEXT NOT NULL,
  hash TEXT NOT NULL REFERENCES artifacts(hash),
  at_ms INTEGER NOT NULL
);
CREATE INDEX links_by_run ON artifact_links (run_id, step);
CREATE TABLE waits (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  reason TEXT NOT NULL,
  message TEXT,
  diagnostics TEXT,
  files TEXT NOT NULL,
  best TEXT,
  created_ms INTEGER NOT NULL,
  resolved_ms INTEGER,
  PRIMARY KEY (run_id, step)
);
CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  kind TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX events_by_run ON events (run_id);
";

/// Version 2: what the engine saw right after each call (the files the agent wrote, by
/// content hash, confinement findings, an agent failure), so a replayed call restores them;
/// and the diagnostics of the moment on each event (what each attempt was sent back for).
const V2: &str =
    "ALTER TABLE calls ADD COLUMN outcome TEXT; ALTER TABLE events ADD COLUMN detail TEXT;";

/// Version 3: events keyed by run and their order in it, in one b-tree (`WITHOUT ROWID`)
/// instead of a table and an index: every commit that adds an event writes one page less
/// (a step's durable commits write 6 pages instead of 8). The order of events is kept: the
/// old rowids become the numbers.
const V3: &str = "
CREATE TABLE events_v3 (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  n INTEGER NOT NULL,
  step TEXT NOT NULL,
  kind TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  detail TEXT,
  PRIMARY KEY (run_id, n)
) WITHOUT ROWID;
INSERT INTO events_v3 (run_id, n, step, kind, at_ms, detail)
  SELECT run_id, rowid, step, kind, at_ms, detail FROM events;
DROP TABLE events;
ALTER TABLE events_v3 RENAME TO events;
";

/// Brings the database to [`VERSION`] in one `BEGIN IMMEDIATE` transaction: the version is
/// read again under the write lock, so of several processes opening a new store at once one
/// creates the tables and the others find them.
pub(super) fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let found = version(conn)?;
    if found > VERSION {
        return Err(StoreError::Version {
            found,
            known: VERSION,
        });
    }
    if found == VERSION {
        return Ok(());
    }
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let steps = || -> Result<(), StoreError> {
        let found = version(conn)?;
        if found < 1 {
            conn.execute_batch(V1)?;
        }
        if found < 2 {
            conn.execute_batch(V2)?;
        }
        if found < 3 {
            conn.execute_batch(V3)?;
        }
        conn.pragma_update(None, "user_version", VERSION)?;
        Ok(())
    };
    match steps() {
        Ok(()) => Ok(conn.execute_batch("COMMIT")?),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn version(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}
