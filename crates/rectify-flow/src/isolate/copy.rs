//! Copy views: the tree's files that git would not ignore, copied; the change set is the
//! difference from what was copied.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use super::changes::{ChangeKind, ChangeSet};

/// What was copied, by relative path.
#[derive(Debug, Default)]
pub(super) struct Manifest {
    entries: BTreeMap<PathBuf, Entry>,
}

#[derive(Debug, PartialEq, Eq)]
enum Entry {
    /// The copy's inode, size, mode and times: any write or `chmod` changes its `ctime`,
    /// which no program can set back, so an unchanged stamp means unchanged content.
    File(Stamp),
    Symlink(PathBuf),
}

#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    len: u64,
    mode: u32,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            ino: meta.ino(),
            len: meta.len(),
            mode: meta.mode(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// Copies `shared` to `root` (files git would not ignore, symlinks as symlinks; not `.git/`
/// or `.rectify/`).
pub(super) fn copy_tree(shared: &Path, root: &Path) -> std::io::Result<Manifest> {
    std::fs::create_dir_all(root)?;
    let mut manifest = Manifest::default();
    let walker = ignore::WalkBuilder::new(shared)
        .hidden(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != ".rectify")
        .build();
    for entry in walker.flatten() {
        let Ok(rel) = entry.path().strip_prefix(shared) else {
            continue;
        };
        if rel.as_os_str().is_empty() || in_flight(rel) {
            continue;
        }
        let Some(kind) = entry.file_type() else {
            continue;
        };
        // Other units' change sets are applied while this copy is made: an entry that is gone
        // by the time it is copied (renamed over, removed) is left out, as if the copy had
        // been made a moment earlier or later.
        match copy_entry(entry.path(), &root.join(rel), kind) {
            Ok(Some(e)) => {
                manifest.entries.insert(rel.to_path_buf(), e);
            }
            Ok(None) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(manifest)
}

/// Copies one entry of the shared tree to `dest`; what the manifest records of it.
fn copy_entry(
    source: &Path,
    dest: &Path,
    kind: std::fs::FileType,
) -> std::io::Result<Option<Entry>> {
    if kind.is_dir() {
        std::fs::create_dir_all(dest)?;
        Ok(None)
    } else if kind.is_symlink() {
        let target = std::fs::read_link(source)?;
        std::os::unix::fs::symlink(&target, dest)?;
        Ok(Some(Entry::Symlink(target)))
    } else if kind.is_file() {
        std::fs::copy(source, dest)?;
        Ok(Some(Entry::File(Stamp::of(&std::fs::symlink_metadata(
            dest,
        )?))))
    } else {
        Ok(None)
    }
}

/// A file being written atomically by the engine (`.rectify-tmp-*`, renamed into place).
fn in_flight(rel: &Path) -> bool {
    rel.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(crate::beneath::TEMP_PREFIX))
}

/// What differs in `root` from `manifest`: deletions first, then writes. A file whose stamp
/// changed is compared with the shared tree's (a rewrite of the same bytes is no change).
pub(super) fn changes(
    shared: &Path,
    root: &Path,
    manifest: &Manifest,
) -> std::io::Result<ChangeSet> {
    let mut writes = ChangeSet::default();
    let mut seen = std::collections::BTreeSet::new();
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .build();
    for entry in walker.flatten() {
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if rel.as_os_str().is_empty() || kind.is_dir() {
            continue;
        }
        let rel = rel.to_path_buf();
        seen.insert(rel.clone());
        let old = manifest.entries.get(&rel);
        if kind.is_symlink() {
            let target = std::fs::read_link(entry.path())?;
            if old != Some(&Entry::Symlink(target.clone())) {
                writes.push(rel, ChangeKind::Symlink { target });
            }
        } else if kind.is_file() {
            let meta = std::fs::symlink_metadata(entry.path())?;
            if old != Some(&Entry::File(Stamp::of(&meta))) {
                let source = entry.path().to_path_buf();
                let before = shared.join(&rel);
                writes.file(rel, &source, Some(&before), &meta)?;
            }
        } else {
            writes.push(rel, ChangeKind::Special);
        }
    }
    let mut set = ChangeSet::default();
    for rel in manifest.entries.keys().filter(|p| !seen.contains(*p)) {
        set.push(rel.clone(), ChangeKind::Delete);
    }
    set.changes.extend(writes.changes);
    Ok(set)
}
