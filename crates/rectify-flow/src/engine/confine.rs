//! Confinement: the working tree before an agent step (respecting `.gitignore`), and what
//! changed outside the paths the step may write afterwards — reported, and undone when
//! `confine: strict`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use rectify_core::{Diagnostic, Location};
use sha2::{Digest, Sha256};

/// Files larger than this are compared by size and time only, and not kept for undo.
const KEEP_LIMIT: u64 = 4 * 1024 * 1024;

/// One file's state.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileState {
    len: u64,
    digest: Option<[u8; 32]>,
    modified: Option<std::time::SystemTime>,
    bytes: Option<Vec<u8>>,
}

/// The working tree at one moment.
#[derive(Debug, Default)]
pub struct Snapshot {
    files: BTreeMap<PathBuf, FileState>,
}

/// Paths (relative to the working directory) a step may change.
#[derive(Debug)]
pub struct Allowed {
    exact: Vec<PathBuf>,
    globs: GlobSet,
}

impl Allowed {
    /// The exact paths plus the globs.
    pub fn new(exact: Vec<PathBuf>, globs: &[String]) -> Allowed {
        let mut builder = GlobSetBuilder::new();
        for g in globs {
            if let Ok(glob) = Glob::new(g) {
                builder.add(glob);
            }
        }
        Allowed {
            exact,
            globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    fn allows(&self, rel: &Path) -> bool {
        self.exact.iter().any(|p| p == rel) || self.globs.is_match(rel)
    }
}

impl Snapshot {
    /// Records every file under `root` that git would not ignore (and not `.git/` or
    /// `.rectify/`); with `keep`, also the bytes of files up to 4 MiB, for undo.
    pub fn take(root: &Path, keep: bool) -> Snapshot {
        let mut files = BTreeMap::new();
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .git_ignore(true)
            .git_exclude(true)
            .require_git(false)
            .filter_entry(|e| {
                let name = e.file_name();
                name != ".git" && name != ".rectify"
            })
            .build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            if rel
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".rectify-tmp-"))
            {
                continue;
            }
            if let Some(state) = state(entry.path(), keep) {
                files.insert(rel.to_path_buf(), state);
            }
        }
        Snapshot { files }
    }

    /// Changes between `self` (before) and `after` outside `allowed`, as diagnostics
    /// (errors when `strict`, else warnings); with `strict`, each is undone.
    pub fn confine(
        &self,
        after: &Snapshot,
        root: &Path,
        allowed: &Allowed,
        strict: bool,
    ) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (rel, new) in &after.files {
            if allowed.allows(rel) {
                continue;
            }
            match self.files.get(rel) {
                None => {
                    let undone = strict && std::fs::remove_file(root.join(rel)).is_ok();
                    out.push(finding(rel, "created", strict, undone));
                }
                Some(old) if changed(old, new) => {
                    let undone = strict && restore(root, rel, old);
                    out.push(finding(rel, "changed", strict, undone));
                }
                Some(_) => {}
            }
        }
        for (rel, old) in &self.files {
            if !after.files.contains_key(rel) && !allowed.allows(rel) {
                let undone = strict && restore(root, rel, old);
                out.push(finding(rel, "deleted", strict, undone));
            }
        }
        out
    }
}

fn state(path: &Path, keep: bool) -> Option<FileState> {
    let meta = std::fs::metadata(path).ok()?;
    let len = meta.len();
    let modified = meta.modified().ok();
    if len > KEEP_LIMIT {
        return Some(FileState {
            len,
            digest: None,
            modified,
            bytes: None,
        });
    }
    let bytes = std::fs::read(path).ok()?;
    Some(FileState {
        len,
        digest: Some(Sha256::digest(&bytes).into()),
        modified,
        bytes: keep.then_some(bytes),
    })
}

fn changed(old: &FileState, new: &FileState) -> bool {
    match (old.digest, new.digest) {
        (Some(a), Some(b)) => a != b,
        _ => old.len != new.len || old.modified != new.modified,
    }
}

fn restore(root: &Path, rel: &Path, old: &FileState) -> bool {
    match &old.bytes {
        Some(bytes) => super::paths::write_atomic(&root.join(rel), bytes).is_ok(),
        None => false,
    }
}

fn finding(rel: &Path, what: &str, strict: bool, undone: bool) -> Diagnostic {
    let path = rel.display().to_string();
    let message = match (strict, undone) {
        (true, true) => {
            format!("`{path}` was {what} outside the step's outputs; the change was undone")
        }
        (true, false) => {
            format!("`{path}` was {what} outside the step's outputs and could not be undone")
        }
        (false, _) => format!("`{path}` was {what} outside the step's outputs"),
    };
    let location = Location::root();
    let d = if strict {
        Diagnostic::error("flow.confinement", location, message)
    } else {
        Diagnostic::warning("flow.confinement", location, message)
    };
    d.expected("changes only to the declared outputs and `may_write` paths")
        .received(path)
        .source("confinement")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_outside_are_found_and_undone_when_strict() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("keep.txt"), "original").unwrap();
        std::fs::write(root.join("gone.txt"), "x").unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        let before = Snapshot::take(root, true);
        std::fs::write(root.join("keep.txt"), "changed").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::write(root.join("out.yaml"), "a: 1").unwrap();
        std::fs::write(root.join("new.txt"), "n").unwrap();
        std::fs::create_dir(root.join("build")).unwrap();
        std::fs::write(root.join("build/x.o"), "ignored").unwrap();
        let after = Snapshot::take(root, false);
        let allowed = Allowed::new(vec![PathBuf::from("out.yaml")], &[]);
        let found = before.confine(&after, root, &allowed, true);
        let mut paths: Vec<_> = found.iter().map(|d| d.received.clone().unwrap()).collect();
        paths.sort();
        assert_eq!(paths, ["gone.txt", "keep.txt", "new.txt"]);
        assert!(
            found
                .iter()
                .all(|d| d.is_error() && d.message.contains("undone"))
        );
        assert_eq!(
            std::fs::read_to_string(root.join("keep.txt")).unwrap(),
            "original"
        );
        assert!(root.join("gone.txt").exists());
        assert!(!root.join("new.txt").exists());
        assert!(root.join("out.yaml").exists());
    }

    #[test]
    fn globs_allow_and_report_mode_only_warns() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let before = Snapshot::take(root, false);
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "fn a() {}").unwrap();
        std::fs::write(root.join("notes.txt"), "n").unwrap();
        let after = Snapshot::take(root, false);
        let allowed = Allowed::new(vec![], &["src/**".to_owned()]);
        let found = before.confine(&after, root, &allowed, false);
        assert_eq!(found.len(), 1);
        assert!(!found[0].is_error());
        assert!(root.join("notes.txt").exists());
    }
}
