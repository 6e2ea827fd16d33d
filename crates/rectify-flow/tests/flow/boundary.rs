//! The agent boundary (issue 34): what an agent does never makes rectify read or write outside
//! the working directory, and keys never reach what rectify records.

use std::sync::Arc;

use rectify_flow::{Decision, RunStatus, Store};

use crate::support::{Fixture, step};

const SCHEMA: &str =
    r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#;
const SECRET: &str = "sk-canary-5f0c9e1d-never-read-me";

/// Every byte the store holds (the database and its write-ahead log).
fn store_bytes(f: &Fixture) -> String {
    let mut all = Vec::new();
    for name in ["rectify.db", "rectify.db-wal"] {
        all.extend(std::fs::read(f.work.join(".rectify").join(name)).unwrap_or_default());
    }
    String::from_utf8_lossy(&all).into_owned()
}

/// A secret file outside the working directory.
fn secret_file(f: &Fixture) -> std::path::PathBuf {
    f.file("outside/secret.txt", &format!("{{\"n\": \"{SECRET}\"}}\n"))
}

fn one_step(f: &Fixture, extra: &str) {
    f.file("schema.json", SCHEMA);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: a\n    prompt: go\n    outputs: [{{path: out/a.json, schema: schema.json}}]\n{extra}",
        f.agents_yaml(&["a", "fixer"])
    ));
    f.script("fixer", "echo '{\"n\": 1}' > out/a.json");
}

/// Finding 1, in the agent's own view: its output replaced by a symlink to a file outside is
/// never applied, and the file's content reaches nothing rectify keeps.
#[test]
fn a_symlinked_output_made_in_the_view_is_never_followed() {
    let f = Fixture::new();
    let secret = secret_file(&f);
    f.script(
        "a",
        &format!("mkdir -p out; ln -sf '{}' out/a.json", secret.display()),
    );
    one_step(&f, "    on_exhausted: fail\n");
    let (s, _store) = f.run(&[]);
    assert_ne!(s.status, RunStatus::Completed, "{s:#?}");
    assert!(!format!("{s:?}").contains(SECRET));
    assert!(!store_bytes(&f).contains(SECRET));
    assert!(
        std::fs::symlink_metadata(f.work.join("out/a.json")).is_err(),
        "the symlink never reached the working tree"
    );
}

/// Finding 1, written straight into the shared tree (an agent that knows its path): the
/// engine's read of the output refuses the symlink at the moment of the read.
#[test]
fn a_symlink_planted_in_the_shared_tree_is_refused_when_read() {
    let f = Fixture::new();
    let secret = secret_file(&f);
    f.script(
        "a",
        &format!(
            "mkdir -p '{w}/out'; ln -sf '{s}' '{w}/out/a.json'",
            w = f.work.display(),
            s = secret.display()
        ),
    );
    one_step(&f, "    on_exhausted: fail\n");
    let (s, _store) = f.run(&[]);
    assert_ne!(s.status, RunStatus::Completed, "{s:#?}");
    let text = format!("{s:?}");
    assert!(!text.contains(SECRET), "{text}");
    assert!(
        text.contains("leads out of the working directory"),
        "{text}"
    );
    assert!(!store_bytes(&f).contains(SECRET));
    assert!(!f.prompt("fixer", 1).contains(SECRET));
}

/// Finding 1, through a symlinked directory: the repaired output is never written outside.
#[test]
fn a_repaired_output_is_never_written_through_a_symlinked_directory() {
    let f = Fixture::new();
    let outside = f.root.join("outside-dir");
    std::fs::create_dir_all(&outside).unwrap();
    f.script(
        "a",
        &format!(
            "echo '{{\"n\": 2,}}' > '{o}/a.json'; rm -rf '{w}/out'; ln -s '{o}' '{w}/out'",
            w = f.work.display(),
            o = outside.display()
        ),
    );
    one_step(&f, "    on_exhausted: fail\n");
    let (s, _store) = f.run(&[]);
    assert_ne!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(
        std::fs::read_to_string(outside.join("a.json")).unwrap(),
        "{\"n\": 2,}\n",
        "the file outside keeps what the agent wrote: rectify did not repair it there"
    );
    let names: Vec<_> = std::fs::read_dir(&outside).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "no temporary file was made outside");
}

/// Finding 3 and 10: outputs that name `.git/`, `.rectify/`, nothing, the working directory,
/// a directory or a control character are refused when the workflow is loaded, and so are
/// `may_write` patterns into `.git/`.
#[test]
fn outputs_that_name_no_plain_file_inside_are_refused_at_load() {
    let f = Fixture::new();
    f.script("a", "true");
    let agents = f.agents_yaml(&["a"]);
    let refused = |outputs: &str, may_write: &str| {
        let path = f.workflow(&format!(
            "name: t\n{agents}steps:\n  - id: s\n    agent: a\n    prompt: go\n    outputs: [{{path: {outputs}}}]\n    may_write: [{may_write}]\n"
        ));
        match rectify_flow::load(&path) {
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        }
    };
    assert_eq!(refused("a.txt", "\"docs/*\""), None);
    for path in [
        "\"\"",
        "\".\"",
        "\"./\"",
        "\"out/\"",
        "\".rectify\"",
        "\".git/config\"",
        "\"a\\u0000b\"",
        "\"a\\nb\"",
    ] {
        let err = refused(path, "\"docs/*\"").unwrap_or_else(|| panic!("{path} was accepted"));
        assert!(
            err.contains("the path") || err.contains("control"),
            "{path}: {err}"
        );
    }
    let err = refused("a.txt", "\".git/hooks/*\"").expect("a may_write pattern into .git/");
    assert!(err.contains("the pattern"), "{err}");
}

/// Finding 5: a provider's `timeout_secs` counts in workflows (the step's and the defaults'
/// are not set here).
#[test]
fn a_providers_timeout_counts_in_a_workflow() {
    let f = Fixture::new();
    f.script("slow", "sleep 20; echo done > a.txt");
    let script = f.root.join("slow.sh");
    f.workflow(&format!(
        "name: t\nproviders:\n  slow: {{kind: command, command: [sh, \"{}\"], timeout_secs: 1}}\nagents:\n  slow: agents/slow.md\nsteps:\n  - id: a\n    agent: slow\n    prompt: go\n    outputs: [{{path: a.txt}}]\n    on_exhausted: fail\n",
        script.display()
    ));
    // Waited for (600 s by default), the agent would finish and the step would be done.
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Failed, "{s:#?}");
    assert!(format!("{s:?}").contains("timeout"), "{s:#?}");
}

/// Finding 7: a dead run's lease held in the name of a process id that another program has
/// since taken (here init, pid 1, always alive) does not block `resume`: its heartbeat is old.
#[test]
fn a_dead_runs_lease_on_a_reused_pid_does_not_block_resume() {
    let f = Fixture::new();
    f.script("writer", "echo v > spec.txt");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: spec\n    agent: writer\n    prompt: write\n    outputs: [{{path: spec.txt}}]\n  - id: ok\n    needs: [spec]\n    human: \"ok?\"\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    store.set_run_status(&s.run_id, RunStatus::Running).unwrap();
    drop(store);
    let db = rusqlite::Connection::open(f.work.join(".rectify/rectify.db")).unwrap();
    let host = rectify_flow::store::hostname();
    db.execute(
        "UPDATE runs SET lease_pid = 1, lease_host = ?1, lease_ms = 1000 WHERE id = ?2",
        rusqlite::params![host, s.run_id],
    )
    .unwrap();
    drop(db);
    let store = Arc::new(Store::open(&f.work).unwrap());
    let options = rectify_flow::RunOptions::new(&f.work);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let done = rt
        .block_on(rectify_flow::resume(
            Arc::clone(&store),
            &s.run_id,
            Decision::Approve { step: None },
            options,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
}

/// Finding 8: a command validator that prints more than 16 MiB is read to its end and judged
/// by its exit status (it blocked on a full pipe until its timeout, and was failed).
#[test]
fn a_validator_that_prints_a_lot_is_judged_by_its_exit() {
    let f = Fixture::new();
    f.script("a", "echo done > a.txt");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: a\n    prompt: go\n    outputs: [{{path: a.txt}}]\n    timeout_secs: 60\n    validate:\n      validators:\n        - {{command: [sh, -c, \"head -c 20000000 /dev/zero; exit 0\"]}}\n",
        f.agents_yaml(&["a"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "a").verdict.as_deref(), Some("PASS"));
}

/// Finding 8: when a run is stopped (its future dropped, as on SIGINT), a command validator's
/// children are killed with it.
#[test]
fn a_stopped_run_leaves_no_validator_process_behind() {
    let f = Fixture::new();
    f.script("a", "echo done > a.txt");
    let pidfile = f.root.join("child.pid");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: a\n    prompt: go\n    outputs: [{{path: a.txt}}]\n    validate:\n      validators:\n        - {{command: [sh, -c, \"sleep 300 & echo $! > '{}'; wait\"]}}\n",
        f.agents_yaml(&["a"]),
        pidfile.display()
    ));
    let wf = rectify_flow::load(&f.root.join("workflow.yaml")).unwrap();
    let store = Arc::new(Store::open(&f.work).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let options = rectify_flow::RunOptions::new(&f.work);
    rt.block_on(async {
        let run = rectify_flow::run(wf, store, options);
        let stopped = tokio::time::timeout(std::time::Duration::from_secs(3), run).await;
        assert!(stopped.is_err(), "the validator was still running");
    });
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let proc = std::path::PathBuf::from(format!("/proc/{}", pid.trim()));
    for _ in 0..100 {
        let zombie_or_gone = std::fs::read_to_string(proc.join("stat"))
            .map_or(true, |s| s.split(' ').nth(2) == Some("Z"));
        if zombie_or_gone {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the validator's child {pid} survived the stopped run");
}

/// Finding 10: under `strict`, an output named with a leading `./` is the output, not a stray
/// file to undo.
#[test]
fn strict_keeps_an_output_named_with_a_leading_dot_slash() {
    let f = Fixture::new();
    f.file("schema.json", SCHEMA);
    f.script("a", "mkdir -p out; echo '{\"n\": 1}' > out/a.json");
    f.workflow(&format!(
        "name: t\n{}defaults: {{confine: strict}}\nsteps:\n  - id: a\n    agent: a\n    prompt: go\n    outputs: [{{path: ./out/a.json, schema: schema.json}}]\n",
        f.agents_yaml(&["a"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert!(step(&s, "a").warnings.is_empty(), "{s:#?}");
    assert_eq!(f.read("out/a.json"), "{\"n\": 1}\n");
}
