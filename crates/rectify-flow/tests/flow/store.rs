//! The store: reports read back the whole run, old stores open, pruning, and damaged files.

use rectify_flow::{Report, RunStatus, Store};

use crate::support::Fixture;

/// A step whose first answer misses a field (revised once) and a second that passes.
pub fn revised(f: &Fixture) {
    f.file(
        "n.schema.json",
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    f.script(
        "writer",
        r#"if [ "$n" = 1 ]; then echo '{"m": 1}'; else echo '{"n": 2}'; fi"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: count\n    agent: writer\n    prompt: count\n    answer: {{format: json, schema: n.schema.json}}\n    on_invalid: {{revise: 2}}\n",
        f.agents_yaml(&["writer"])
    ));
}

#[test]
fn a_report_holds_every_attempt_with_its_raw_answer_and_what_it_was_sent_back_for() {
    let f = Fixture::new();
    revised(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let report = Report::load(&store, &s.run_id).unwrap().unwrap();
    assert_eq!(report.totals.steps, 1);
    assert_eq!(report.totals.calls, 2);
    let step = &report.steps[0];
    let raws: Vec<&str> = step.calls.iter().map(|c| c.raw.trim()).collect();
    assert_eq!(raws, [r#"{"m": 1}"#, r#"{"n": 2}"#]);
    let revise = step
        .events
        .iter()
        .find(|e| e.kind == "revise")
        .expect("a revise event");
    assert!(
        revise
            .diagnostics
            .iter()
            .any(|d| d.code.starts_with("schema.")),
        "the revise event says why: {revise:?}"
    );
    assert!(step.events.iter().any(|e| e.kind == "done"));
    assert!(Report::load(&store, "no-such-run").unwrap().is_none());
}

#[test]
fn a_store_written_by_version_1_opens_and_its_calls_read_back() {
    let f = Fixture::new();
    revised(&f);
    let (s, store) = f.run(&[]);
    let kinds = |store: &Store| -> Vec<(String, String)> {
        let events = store.events(&s.run_id).unwrap();
        events.into_iter().map(|e| (e.step, e.kind)).collect()
    };
    let before = kinds(&store);
    drop(store);
    // Turn the file back into a version-1 store: no `outcome` or `detail` columns, events a
    // table with an index (version 3 made them one b-tree keyed by run).
    let db = f.work.join(".rectify/rectify.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "ALTER TABLE calls DROP COLUMN outcome;
             CREATE TABLE events_v1 (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
               step TEXT NOT NULL, kind TEXT NOT NULL, at_ms INTEGER NOT NULL);
             INSERT INTO events_v1 SELECT run_id, step, kind, at_ms FROM events ORDER BY run_id, n;
             DROP TABLE events; ALTER TABLE events_v1 RENAME TO events;
             CREATE INDEX events_by_run ON events (run_id);
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let store = Store::open(&f.work).unwrap();
    assert_eq!(kinds(&store), before, "events read back in their order");
    store
        .event(&s.run_id, "count", rectify_flow::store::Event::Noted)
        .unwrap();
    let after = kinds(&store);
    assert_eq!(after.last().unwrap().1, "noted", "a new event comes last");
    assert_eq!(after.len(), before.len() + 1);
    let calls = store.calls(&s.run_id).unwrap();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.outcome.is_empty()));
    let version: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3, "migrated in place");
}

#[test]
fn a_store_from_a_newer_rectify_is_refused_not_changed() {
    let f = Fixture::new();
    drop(Store::open(&f.work).unwrap());
    let db = f.work.join(".rectify/rectify.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let err = Store::open(&f.work).unwrap_err().to_string();
    assert!(err.contains("99"), "{err}");
}

#[test]
fn damaged_store_files_are_clear_errors() {
    let f = Fixture::new();
    let dir = f.work.join(".rectify");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rectify.db"), b"this is not a database, just text").unwrap();
    let err = Store::open(&f.work).unwrap_err().to_string();
    assert!(err.contains("run store"), "{err}");
    // A real store cut in half.
    let g = Fixture::new();
    revised(&g);
    let (_, store) = g.run(&[]);
    drop(store);
    let db = g.work.join(".rectify/rectify.db");
    let _ = rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    let bytes = std::fs::read(&db).unwrap();
    std::fs::write(&db, &bytes[..bytes.len() / 2]).unwrap();
    let opened = Store::open(&g.work).and_then(|s| s.runs());
    assert!(
        opened.is_err(),
        "a truncated store is an error, not an empty list"
    );
}

#[test]
fn pruning_deletes_old_finished_runs_and_the_files_only_they_kept() {
    let f = Fixture::new();
    revised(&f);
    let (first, store) = f.run(&[]);
    drop(store);
    let (second, store) = f.run(&[]);
    // Age the first run.
    store
        .set_run_status(&first.run_id, RunStatus::Completed)
        .unwrap();
    let db = f.work.join(".rectify/rectify.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE runs SET updated_ms = 1000 WHERE id = ?1",
            [&first.run_id],
        )
        .unwrap();
    let cutoff = rectify_flow::store::now_ms() - 60_000;
    assert_eq!(store.prune(cutoff).unwrap(), vec![first.run_id.clone()]);
    assert!(store.run(&first.run_id).unwrap().is_none());
    assert!(store.calls(&first.run_id).unwrap().is_empty());
    assert!(
        !store.calls(&second.run_id).unwrap().is_empty(),
        "the other run is kept"
    );
    assert!(store.prune(cutoff).unwrap().is_empty());
    // A running run is never pruned, however old.
    store
        .set_run_status(&second.run_id, RunStatus::Running)
        .unwrap();
    assert!(
        store
            .prune(rectify_flow::store::now_ms() + 60_000)
            .unwrap()
            .is_empty()
    );
}

/// Another process holds the store's write lock past the busy timeout while an answer
/// arrives: the answer cannot be recorded, so the run stops with the store error (the next
/// step does not start), and `resume` continues once the store is free.
#[test]
fn a_store_that_cannot_be_written_stops_the_run_and_resume_continues_it() {
    let f = Fixture::new();
    f.script(
        "writer",
        r#"if [ "$n" = 1 ]; then touch "$LOG/go"; sleep 1; fi; echo "v$n" > "$RECTIFY_OUTPUTS""#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: one\n    agent: writer\n    prompt: one\n    outputs: [{{path: one.txt}}]\n  - id: two\n    needs: [one]\n    agent: writer\n    prompt: two\n    outputs: [{{path: two.txt}}]\n",
        f.agents_yaml(&["writer"])
    ));
    let store = std::sync::Arc::new(Store::open(&f.work).unwrap());
    let db = f.work.join(".rectify/rectify.db");
    let go = f.log.join("go");
    let locker = std::thread::spawn(move || {
        while !go.exists() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
        std::thread::sleep(std::time::Duration::from_secs(7));
        conn.execute_batch("COMMIT").unwrap();
    });
    let wf = rectify_flow::load(&f.root.join("workflow.yaml")).unwrap();
    let mut options = rectify_flow::RunOptions::new(&f.work);
    options.run_id = Some("locked".into());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let result = rt.block_on(rectify_flow::run(
        wf,
        std::sync::Arc::clone(&store),
        options,
    ));
    let err = result.expect_err("the run stops on a store error");
    assert!(matches!(err, rectify_flow::RunError::Store(_)), "{err}");
    assert!(err.to_string().contains("locked"), "{err}");
    assert_eq!(f.calls("writer"), 1, "no step started after the failure");
    locker.join().unwrap();
    let resumed = rt
        .block_on(rectify_flow::resume(
            std::sync::Arc::clone(&store),
            "locked",
            rectify_flow::Decision::Continue,
            rectify_flow::RunOptions::new(&f.work),
        ))
        .unwrap();
    assert_eq!(resumed.status, RunStatus::Completed, "{resumed:#?}");
    // `one` either finished after the lock was released (its check and `done` commit waited
    // for it) or is made again; `two` runs once.
    let calls = f.calls("writer");
    assert!((2..=3).contains(&calls), "{calls} calls");
    assert_eq!(f.read("two.txt"), format!("v{calls}\n"));
}

#[test]
fn the_store_and_its_journal_files_are_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new();
    revised(&f);
    let (_, store) = f.run(&[]);
    let dir = f.work.join(".rectify");
    // Checked while the store is open, so SQLite's WAL and shared-memory files exist.
    for name in ["rectify.db", "rectify.db-wal", "rectify.db-shm"] {
        let path = dir.join(name);
        if name == "rectify.db" || path.exists() {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{name} has mode {mode:o}");
        }
    }
    drop(store);
}
