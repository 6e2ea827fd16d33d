//! Fuzz target for the agent boundary (`rectify_flow::beneath`, issue 34): the input builds a
//! hostile tree (files, directories, symlinks inside, outside, to `/proc/self/environ`, to
//! themselves, dangling; renames and deletions between accesses, as an agent's leftover
//! processes would make), then reads, writes and removes paths it chooses (with `..`,
//! absolute parts, empty parts). Properties:
//!
//! - nothing outside the tree changes (a sibling directory with a canary file, compared
//!   byte for byte after every input);
//! - no read returns the canary or this process's environment;
//! - no panic, no hang (fifos are opened non-blocking).
//!
//! `cargo fuzz run beneath` (from `fuzz/`).

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

const CANARY: &[u8] = b"canary-7d1e0b2c: must never be read through the tree";

struct Dirs {
    tree: PathBuf,
    outside: PathBuf,
}

fn dirs() -> &'static Dirs {
    static DIRS: OnceLock<Dirs> = OnceLock::new();
    DIRS.get_or_init(|| {
        let base =
            std::env::temp_dir().join(format!("rectify-fuzz-beneath-{}", std::process::id()));
        let outside = base.join("outside");
        let _ = std::fs::create_dir_all(&outside);
        let _ = std::fs::write(outside.join("secret"), CANARY);
        Dirs {
            tree: base.join("tree"),
            outside,
        }
    })
}

/// Names the input picks from: plain, hostile and structural.
const NAMES: &[&str] = &[
    "a",
    "b",
    "out",
    "a.json",
    "..",
    ".",
    "",
    "/",
    "/etc/passwd",
    "../outside/secret",
    ".git",
    "a/../..",
    "x y",
    "\u{301}",
];

/// Symlink targets the input picks from.
fn targets(d: &Dirs) -> Vec<PathBuf> {
    vec![
        d.outside.join("secret"),
        d.outside.clone(),
        PathBuf::from("/proc/self/environ"),
        PathBuf::from("/proc/self/root"),
        PathBuf::from("../outside/secret"),
        PathBuf::from("../../outside"),
        PathBuf::from("a"),
        PathBuf::from("out/a.json"),
        PathBuf::from("missing"),
        PathBuf::from("."),
    ]
}

/// A relative path of 1-3 names chosen by the input.
fn path(bytes: &mut impl Iterator<Item = u8>) -> PathBuf {
    let n = 1 + usize::from(bytes.next().unwrap_or(0) % 3);
    let mut p = PathBuf::new();
    for _ in 0..n {
        let i = usize::from(bytes.next().unwrap_or(0)) % NAMES.len();
        p.push(NAMES[i]);
    }
    p
}

/// Names the agent's side uses: plain ones (the hostile part is what they hold).
const PLAIN: &[&str] = &["a", "b", "out", "a.json", ".git", "x y"];

fn plain_path(bytes: &mut impl Iterator<Item = u8>) -> PathBuf {
    let n = 1 + usize::from(bytes.next().unwrap_or(0) % 3);
    (0..n)
        .map(|_| PLAIN[usize::from(bytes.next().unwrap_or(0)) % PLAIN.len()])
        .collect()
}

/// Whether the agent's own action on `at` stays in the tree (the harness's agent is kept in,
/// so that a change outside can only be the engine's): its deepest existing ancestor resolves
/// inside, and `at` itself is not a symlink to follow.
fn agent_may(d: &Dirs, at: &Path) -> bool {
    let Ok(root) = d.tree.canonicalize() else {
        return false;
    };
    let mut existing = at.parent();
    while let Some(p) = existing {
        if let Ok(real) = p.canonicalize() {
            return real.starts_with(&root);
        }
        existing = p.parent();
    }
    false
}

/// The tree is changed with plain std calls, as an agent's leftover processes would.
fn agent_step(d: &Dirs, op: u8, bytes: &mut impl Iterator<Item = u8>) {
    let at = d.tree.join(plain_path(bytes));
    let to = d.tree.join(plain_path(bytes));
    if !agent_may(d, &at) || !agent_may(d, &to) {
        return;
    }
    let meta = std::fs::symlink_metadata(&at);
    let is_link = meta.as_ref().is_ok_and(|m| m.file_type().is_symlink());
    // The harness's agent writes regular files only (opening a fifo to write would wait).
    let writable = meta.as_ref().map_or(true, std::fs::Metadata::is_file);
    let _ = match op % 6 {
        0 if !is_link => std::fs::create_dir_all(&at),
        1 if writable => std::fs::write(&at, b"{\"n\": 1}"),
        2 => {
            let t = targets(d);
            let target = &t[usize::from(bytes.next().unwrap_or(0)) % t.len()];
            std::os::unix::fs::symlink(target, &at)
        }
        3 => std::fs::rename(&at, &to),
        4 if is_link => std::fs::remove_file(&at),
        4 => std::fs::remove_file(&at).or_else(|_| std::fs::remove_dir_all(&at)),
        5 => rustix::fs::mknodat(
            rustix::fs::CWD,
            &at,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .map_err(std::io::Error::from),
        _ => Ok(()),
    };
}

fn engine_step(d: &Dirs, op: u8, bytes: &mut impl Iterator<Item = u8>) {
    let rel = path(bytes);
    match op % 3 {
        0 => {
            if let Ok(Some(read)) = rectify_flow::beneath::read(&d.tree, &rel, 1 << 16) {
                assert!(
                    !contains(&read, CANARY),
                    "`{}` read the canary outside the tree",
                    rel.display()
                );
                assert!(
                    !contains(&read, b"RECTIFY_FUZZ_ENV_CANARY"),
                    "`{}` read this process's environment",
                    rel.display()
                );
            }
        }
        1 => {
            let _ = rectify_flow::beneath::write(&d.tree, &rel, b"written", None);
        }
        _ => {
            let _ = rectify_flow::beneath::remove(&d.tree, &rel);
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Everything under `dir`, with contents, for comparison.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => stack.push(p),
                Ok(_) => out.push((p.clone(), std::fs::read(&p).unwrap_or_default())),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}

fuzz_target!(|data: &[u8]| {
    let d = dirs();
    let before = snapshot(&d.outside);
    let _ = std::fs::remove_dir_all(&d.tree);
    let _ = std::fs::create_dir_all(&d.tree);
    let mut bytes = data.iter().copied();
    while let Some(op) = bytes.next() {
        if op & 0x80 == 0 {
            agent_step(d, op, &mut bytes);
        } else {
            engine_step(d, op, &mut bytes);
        }
    }
    assert_eq!(
        snapshot(&d.outside),
        before,
        "something outside the tree changed"
    );
});
