//! Fuzz target for the whole workflow engine against hostile agents (issue 34's goal): the
//! input picks a workflow (files checked against a schema, a `foreach` whose paths come from
//! a model's document, a saved answer; `strict` or `report` confinement), the kind of view,
//! and for every call the agent makes a script of actions in its view — writes (some of
//! several MiB), symlinks (to a secret outside the tree, to `/proc/self/environ`, to `..`, to
//! `/`), renames, deletions, directories replaced by symlinks — and an answer that names
//! paths. The engine runs it for real (`rectify_flow::run`, views, change sets, the SQLite
//! store, repairs, revisions); only the agent is in-process, so a run costs milliseconds.
//!
//! Properties, after every input:
//! - nothing outside the working directory changed (the secret's directory and the
//!   working directory's parent are compared with what they were);
//! - the key (this process's `OPENAI_API_KEY`, which `/proc/self/environ` holds) and the
//!   secret file's content appear nowhere rectify writes: no file of the working directory,
//!   its store (`.rectify/`), the run's summary or its report;
//! - no panic, no hang.
//!
//! `TMPDIR=/dev/shm cargo fuzz run hostile_agent` (from `fuzz/`; see docs/BENCHMARKS.md).

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rectify_flow::engine::{CallContext, ProviderFactory};
use rectify_flow::isolate::Mode;
use rectify_flow::{RunOptions, Store};
use rectify_provider::spec::ProviderSpec;
use rectify_provider::{
    Capabilities, CompletionFuture, FinishReason, Provider, ProviderError, Request, Response, Usage,
};

const KEY: &str = "sk-fuzz-4f1c9a7e2b-never-to-be-stored";
const CANARY: &str = "canary-91d3: the secret outside the tree";

struct World {
    base: PathBuf,
    outside: PathBuf,
    work: PathBuf,
    workflows: Vec<rectify_flow::Workflow>,
    /// A new store's database, made once (see [`fresh`]).
    empty_store: Vec<u8>,
    rt: tokio::runtime::Runtime,
    overlay: bool,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        // Before any thread starts: the key is in this process's environment, where
        // `/proc/self/environ` shows it.
        unsafe { std::env::set_var("OPENAI_API_KEY", KEY) };
        let base = std::env::temp_dir().join(format!("rectify-fuzz-agent-{}", std::process::id()));
        let outside = base.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), format!("{CANARY}\n{KEY}\n")).unwrap();
        let cfg = base.join("cfg");
        std::fs::create_dir_all(cfg.join("agents")).unwrap();
        std::fs::write(cfg.join("agents/w.md"), "---\nname: w\n---\nYou write.\n").unwrap();
        std::fs::write(
            cfg.join("s.json"),
            r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
        )
        .unwrap();
        let mut workflows = Vec::new();
        for confine in ["strict", "report"] {
            for (i, steps) in STEPS.iter().enumerate() {
                let path = cfg.join(format!("w{i}-{confine}.yaml"));
                std::fs::write(
                    &path,
                    format!(
                        "name: hostile\nproviders:\n  sh: {{kind: command, command: [agent]}}\nagents:\n  w: agents/w.md\ndefaults: {{provider: sh, confine: {confine}}}\nsteps:\n{steps}"
                    ),
                )
                .unwrap();
                workflows.push(rectify_flow::load(&path).unwrap_or_else(|e| panic!("{e}")));
            }
        }
        // A new, migrated and empty store, kept to be copied into each input's tree (closed
        // first, so its write-ahead log is folded into the file and removed).
        let template = cfg.join("store");
        drop(Store::open(&template).expect("the store opens"));
        let empty_store = std::fs::read(template.join(".rectify/rectify.db")).unwrap();
        std::fs::remove_dir_all(&template).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        World {
            work: base.join("work"),
            overlay: Mode::detect() == Mode::Overlay,
            base,
            outside,
            workflows,
            empty_store,
            rt,
        }
    })
}

/// The workflows' steps: checked files revised once and repaired; a plan whose items name
/// the paths the next step writes (paths from a model's document); a saved answer.
const STEPS: &[&str] = &[
    "  - id: a\n    agent: w\n    prompt: write\n    outputs: [{path: out/a.json, schema: s.json}]\n    on_invalid: {revise: 1}\n  - id: b\n    agent: w\n    prompt: write\n    outputs: [{path: out/b.json, schema: s.json}]\n    may_write: [\"notes/**\"]\n",
    "  - id: plan\n    agent: w\n    prompt: plan\n    outputs: [{path: plan.json}]\n  - id: build\n    needs: [plan]\n    foreach: {document: plan.json, items: \"$.items[*]\", key: \"$.id\"}\n    agent: w\n    prompt: \"build {{ item.id }}\"\n    outputs: [{path: \"{{ item.file }}\"}]\n",
    "  - id: ans\n    agent: w\n    prompt: answer\n    answer: {format: json, schema: s.json, save: answers/ans.json}\n    on_invalid: {revise: 1}\n",
];

/// Paths an action names: declared outputs, hostile ones, structural ones.
const PATHS: &[&str] = &[
    "out/a.json",
    "out/b.json",
    "out",
    "plan.json",
    "notes/n.txt",
    "answers/ans.json",
    "answers",
    ".git/config",
    ".rectify/rectify.db",
    ".rectify",
    ".gitignore",
    "x1.json",
    "../escape.txt",
    "out/../../escape2.txt",
    "keep.txt",
];

/// Where symlinks point.
const TARGETS: &[&str] = &[
    "/proc/self/environ",
    "../outside/secret",
    "../outside",
    "..",
    "/",
    "/etc/passwd",
    "out",
    "keep.txt",
];

/// What a plan's items name as their files.
const ITEM_FILES: &[&str] = &[
    "work/t1.json",
    "../outside/secret",
    "/proc/self/environ",
    ".git/config",
    ".rectify/x",
    "out",
    "link/inside.json",
    "",
    ".",
];

#[derive(Clone, Debug)]
enum Action {
    Write {
        path: usize,
        size: usize,
        valid: bool,
    },
    Symlink {
        path: usize,
        target: usize,
    },
    Remove {
        path: usize,
    },
    Rename {
        from: usize,
        to: usize,
    },
    Mkdir {
        path: usize,
    },
    /// `out` (or another directory) replaced by a symlink to the secret's directory.
    DirLink {
        path: usize,
    },
    Plan {
        items: Vec<usize>,
    },
}

fn actions(bytes: &mut impl Iterator<Item = u8>) -> Vec<Action> {
    let n = bytes.next().unwrap_or(0) % 6;
    (0..n)
        .map(|_| {
            let op = bytes.next().unwrap_or(0);
            let a = usize::from(bytes.next().unwrap_or(0));
            let b = usize::from(bytes.next().unwrap_or(0));
            match op % 7 {
                0 => Action::Write {
                    path: a,
                    size: match b % 64 {
                        63 => 5 << 20,
                        62 => 1 << 20,
                        _ => b,
                    },
                    valid: op & 0x80 == 0,
                },
                1 => Action::Symlink { path: a, target: b },
                2 => Action::Remove { path: a },
                3 => Action::Rename { from: a, to: b },
                4 => Action::Mkdir { path: a },
                5 => Action::DirLink { path: a },
                _ => Action::Plan {
                    items: (0..1 + b % 3)
                        .map(|i| (a + i * 3) % ITEM_FILES.len())
                        .collect(),
                },
            }
        })
        .collect()
}

fn pick<'a>(list: &'a [&'a str], i: usize) -> &'a str {
    list[i % list.len()]
}

/// Runs `actions` in `cwd`, the agent's view (errors ignored: a hostile agent tries).
fn act(cwd: &Path, actions: &[Action]) {
    for action in actions {
        let at = |i: usize| cwd.join(pick(PATHS, i));
        match action {
            Action::Write { path, size, valid } => {
                let p = at(*path);
                let _ = std::fs::create_dir_all(p.parent().unwrap_or(cwd));
                let body = if *valid && *size < 4096 {
                    format!("{{\"n\": {size}}}")
                } else {
                    "x".repeat(*size)
                };
                let _ = std::fs::write(p, body);
            }
            Action::Symlink { path, target } => {
                let p = at(*path);
                let _ = std::fs::remove_file(&p);
                let _ = std::os::unix::fs::symlink(pick(TARGETS, *target), p);
            }
            Action::Remove { path } => {
                let _ = std::fs::remove_file(at(*path));
            }
            Action::Rename { from, to } => {
                let _ = std::fs::rename(at(*from), at(*to));
            }
            Action::Mkdir { path } => {
                let _ = std::fs::create_dir_all(at(*path));
            }
            Action::DirLink { path } => {
                let p = at(*path);
                let _ = std::fs::remove_dir_all(&p);
                let _ = std::os::unix::fs::symlink("../outside", p);
            }
            Action::Plan { items } => {
                let items: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(i, f)| format!("{{\"id\": \"t{i}\", \"file\": \"{}\"}}", ITEM_FILES[*f]))
                    .collect();
                let _ = std::fs::write(
                    cwd.join("plan.json"),
                    format!("{{\"items\": [{}]}}", items.join(", ")),
                );
                let _ = std::os::unix::fs::symlink("../outside", cwd.join("link"));
            }
        }
    }
}

/// The agent: the next script, run in the call's working directory (its view).
struct Agent {
    cwd: PathBuf,
    actions: Vec<Action>,
    answer: String,
}

impl Provider for Agent {
    fn complete<'a>(&'a self, _request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(async move {
            act(&self.cwd, &self.actions);
            Ok(Response {
                text: self.answer.clone(),
                finish_reason: FinishReason::Stop,
                usage: Usage::default(),
                model: "hostile".to_owned(),
                latency: Duration::ZERO,
                transport_retries: 0,
                raw: String::new(),
                notices: Vec::new(),
            })
        })
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    fn name(&self) -> &'static str {
        "hostile"
    }
}

/// Hands each call the next script (round robin) in the call's own directory.
struct Agents {
    scripts: Vec<(Vec<Action>, String)>,
    next: AtomicUsize,
}

impl ProviderFactory for Agents {
    fn provider(
        &self,
        _spec: &ProviderSpec,
        context: &CallContext,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.scripts.len();
        let (actions, answer) = self.scripts[i].clone();
        Ok(Arc::new(Agent {
            cwd: context.cwd.clone(),
            actions,
            answer,
        }))
    }
}

/// Every file under `dir` (symlinks not followed), path and bytes.
fn files(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            files(&path, out);
        } else if meta.is_file() {
            out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
        } else if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).unwrap_or_default();
            out.push((path, target.to_string_lossy().as_bytes().to_vec()));
        }
    }
}

/// Whether `bytes` hold the key or the secret's text. With `memmem`, not `windows(..).any(==)`:
/// each window's comparison was a call to `bcmp`, which libFuzzer intercepts to learn from
/// (`AddValueForMemcmp`), so scanning the store and a few MiB of outputs after every input
/// took more than half of an execution's time (and taught libFuzzer the secret).
fn holds_secret(bytes: &[u8]) -> bool {
    static FINDERS: OnceLock<[memchr::memmem::Finder<'static>; 2]> = OnceLock::new();
    FINDERS
        .get_or_init(|| {
            [
                memchr::memmem::Finder::new(KEY.as_bytes()),
                memchr::memmem::Finder::new(CANARY.as_bytes()),
            ]
        })
        .iter()
        .any(|finder| finder.find(bytes).is_some())
}

/// A new working tree. With `new_store` false, its store is a copy of a new one made once:
/// creating a store (its schema's migrations, switching it to WAL) cost a fifth of an
/// execution, and it happens before any agent runs, so it is the same for every input. The
/// engine then opens an existing store, as every run after a tree's first does; one input
/// in four still has the engine create it.
fn fresh(w: &World, new_store: bool) {
    use std::io::Write as _;
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let work = &w.work;
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work.join("out")).unwrap();
    std::fs::create_dir_all(work.join(".git")).unwrap();
    std::fs::write(work.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(work.join("keep.txt"), "kept\n").unwrap();
    if !new_store {
        // As the engine makes them: the directory 0700, the database 0600.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(work.join(".rectify"))
            .unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(work.join(".rectify/rectify.db"))
            .and_then(|mut f| f.write_all(&w.empty_store))
            .unwrap();
    }
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    let mut bytes = data.iter().copied();
    let flags = bytes.next().unwrap_or(0);
    let wf = w.workflows[usize::from(flags) % w.workflows.len()].clone();
    let mut scripts = Vec::new();
    for _ in 0..1 + (flags >> 4) % 4 {
        let actions = actions(&mut bytes);
        let answer = match bytes.next().unwrap_or(0) % 4 {
            0 => "{\"n\": 1}".to_owned(),
            1 => "```json\n{\"n\": 2,}\n```".to_owned(),
            2 => format!(
                "see {}",
                pick(PATHS, usize::from(bytes.next().unwrap_or(0)))
            ),
            _ => {
                String::from_utf8_lossy(&bytes.by_ref().take(64).collect::<Vec<u8>>()).into_owned()
            }
        };
        // The agent does not know the secret (libFuzzer learns strings from comparisons and
        // would put them in its answer): what it says cannot hold it.
        let answer = if holds_secret(answer.as_bytes()) {
            String::new()
        } else {
            answer
        };
        scripts.push((actions, answer));
    }
    let before_outside = {
        let mut v = Vec::new();
        files(&w.outside, &mut v);
        v
    };
    fresh(w, flags & 0xc0 == 0xc0);
    let agents = Arc::new(Agents {
        scripts,
        next: AtomicUsize::new(0),
    });
    let mut options = RunOptions::new(&w.work);
    options.factory = agents;
    options.max_parallel = 2;
    options.isolation = Some(if w.overlay && flags & 8 == 0 {
        Mode::Overlay
    } else {
        Mode::Copy
    });
    let store = Arc::new(Store::open(&w.work).expect("the store opens"));
    let summary =
        w.rt.block_on(rectify_flow::run(wf, Arc::clone(&store), options));
    let mut written = Vec::new();
    if let Ok(summary) = &summary {
        let json = serde_json::to_vec(summary).unwrap();
        assert!(!holds_secret(&json), "the summary holds the secret");
        if let Ok(Some(report)) = rectify_flow::report::Report::load(&store, &summary.run_id) {
            let json = serde_json::to_vec(&report).unwrap();
            assert!(!holds_secret(&json), "the report holds the secret");
        }
    }
    drop(store);
    files(&w.work, &mut written);
    for (path, bytes) in &written {
        assert!(
            !holds_secret(bytes),
            "{} holds the secret ({summary:?})",
            path.display()
        );
    }
    let mut after_outside = Vec::new();
    files(&w.outside, &mut after_outside);
    assert_eq!(before_outside, after_outside, "outside the tree changed");
    let mut top: Vec<String> = std::fs::read_dir(&w.base)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(
        top,
        ["cfg", "outside", "work"],
        "a file appeared beside the tree"
    );
});
