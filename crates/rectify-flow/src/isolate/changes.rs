//! A change set: what one agent run changed in its view, relative to the working directory.

use std::io::Read as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// What happened to one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// A regular file was created or changed; its new content is at `source` in the view.
    Write {
        /// The file in the view.
        source: PathBuf,
        /// Whether it is executable.
        executable: bool,
    },
    /// The path was removed (a file, a symlink, or a directory with all it held).
    Delete,
    /// A symbolic link was created or changed.
    Symlink {
        /// Where it points.
        target: PathBuf,
    },
    /// A fifo, socket or device was created.
    Special,
}

/// One changed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Relative to the working directory.
    pub path: PathBuf,
    /// What happened.
    pub kind: ChangeKind,
}

/// Every change of one agent run, deletions of a path before writes beneath it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeSet {
    /// In the order they must be applied.
    pub changes: Vec<Change>,
}

impl ChangeSet {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    pub(super) fn push(&mut self, path: PathBuf, kind: ChangeKind) {
        self.changes.push(Change { path, kind });
    }

    /// A file `view` (regular) as a change against `shared` (`None`: a path known to be
    /// new); nothing when both hold the same bytes and mode (a copy-up without a change).
    pub(super) fn file(
        &mut self,
        rel: PathBuf,
        view: &Path,
        shared: Option<&Path>,
        meta: &std::fs::Metadata,
    ) -> std::io::Result<()> {
        if let Some(shared) = shared
            && let Ok(old) = std::fs::symlink_metadata(shared)
        {
            if old.is_dir() {
                self.push(rel.clone(), ChangeKind::Delete);
            } else if old.is_file() && same_file(view, meta, shared, &old)? {
                return Ok(());
            }
        }
        let executable = meta.permissions().mode() & 0o111 != 0;
        self.push(
            rel,
            ChangeKind::Write {
                source: view.to_path_buf(),
                executable,
            },
        );
        Ok(())
    }

    /// A symlink in the view as a change against `shared`.
    pub(super) fn symlink(&mut self, rel: PathBuf, view: &Path, shared: Option<&Path>) {
        let target = std::fs::read_link(view).unwrap_or_default();
        if let Some(shared) = shared {
            if std::fs::read_link(shared).ok().as_deref() == Some(target.as_path()) {
                return;
            }
            if std::fs::symlink_metadata(shared).is_ok_and(|m| m.is_dir()) {
                self.push(rel.clone(), ChangeKind::Delete);
            }
        }
        self.push(rel, ChangeKind::Symlink { target });
    }
}

/// Same length, mode and bytes.
fn same_file(
    a: &Path,
    a_meta: &std::fs::Metadata,
    b: &Path,
    b_meta: &std::fs::Metadata,
) -> std::io::Result<bool> {
    if a_meta.len() != b_meta.len() || a_meta.mode() & 0o777 != b_meta.mode() & 0o777 {
        return Ok(false);
    }
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        if na != nb || ba[..na] != bb[..nb] {
            return Ok(false);
        }
        if na == 0 {
            return Ok(true);
        }
    }
}

fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
