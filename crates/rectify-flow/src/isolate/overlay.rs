//! Overlay views: the shared tree as the lower layer, the agent's changes in the upper one.

use std::ffi::CString;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use rustix::mount::{MountFlags, UnmountFlags};

use super::changes::{ChangeKind, ChangeSet};

/// Whether an overlay can be mounted here (tried once, in a directory of its own).
pub(super) fn probe(scratch: &Path) -> bool {
    let dir = scratch.join(format!("probe-{}", std::process::id()));
    let lower = dir.join("lower");
    if std::fs::create_dir_all(&lower).is_err() {
        return false;
    }
    let ok = mount(&lower, &dir).is_ok() && unmount(&dir.join("tree")).is_ok();
    super::remove_all(&dir);
    ok
}

/// Mounts `dir/tree` with `shared` below and `dir/upper` above.
pub(super) fn mount(shared: &Path, dir: &Path) -> std::io::Result<()> {
    let (upper, work, tree) = (dir.join("upper"), dir.join("work"), dir.join("tree"));
    for d in [&upper, &work, &tree] {
        std::fs::create_dir_all(d)?;
    }
    let options = format!(
        "lowerdir={},upperdir={},workdir={},redirect_dir=off,metacopy=off,index=off,xino=off",
        escape(shared),
        escape(&upper),
        escape(&work)
    );
    // `volatile` (Linux 5.10+): the upper layer is scratch read back through the page cache,
    // so the kernel need not sync it to disk at unmount (that sync cost each unit 5-25 ms).
    match mount_with(&tree, &format!("{options},volatile")) {
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) => {
            mount_with(&tree, &options)
        }
        other => other,
    }
}

fn mount_with(tree: &Path, options: &str) -> std::io::Result<()> {
    let data = CString::new(options).map_err(std::io::Error::other)?;
    rustix::mount::mount(
        "overlay",
        tree,
        "overlay",
        MountFlags::NOSUID,
        data.as_c_str(),
    )?;
    Ok(())
}

/// Unmounts `tree`, detached: it leaves the mount table at once (nothing can reach the shared
/// tree through it anymore), and the kernel tears it down when the last process using it (an
/// agent's orphaned child) lets go, without making this thread wait for a sync.
pub(super) fn unmount(tree: &Path) -> std::io::Result<()> {
    rustix::mount::unmount(tree, UnmountFlags::DETACH)?;
    Ok(())
}

/// Whether `path` is a mount point (its device differs from its parent's).
pub(super) fn is_mount(path: &Path) -> bool {
    match (
        std::fs::metadata(path),
        path.parent().map(std::fs::metadata),
    ) {
        (Ok(a), Some(Ok(b))) => a.dev() != b.dev(),
        _ => false,
    }
}

/// The overlay option syntax: `,`, `:` and `\` escaped.
fn escape(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if matches!(c, ',' | ':' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The upper layer read as changes: whiteouts are deletions, an opaque directory deletes
/// what the shared tree holds beneath it, files and symlinks are writes.
pub(super) fn changes(shared: &Path, dir: &Path) -> std::io::Result<ChangeSet> {
    let upper = dir.join("upper");
    let mut set = ChangeSet::default();
    // Directories still to read, each with `fresh`: it replaced what the shared tree held
    // there (nothing below is compared). A stack, not recursion: an agent decides the depth.
    let mut dirs: Vec<(PathBuf, bool)> = vec![(PathBuf::new(), false)];
    while let Some((rel, fresh)) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(upper.join(&rel))?.collect::<Result<_, _>>()?;
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let path: PathBuf = rel.join(entry.file_name());
            let meta = entry.metadata()?;
            let kind = meta.file_type();
            let old = (!fresh).then(|| shared.join(&path));
            if kind.is_char_device() && meta.rdev() == 0 {
                if old.is_some_and(|o| std::fs::symlink_metadata(o).is_ok()) {
                    set.push(path, ChangeKind::Delete);
                }
            } else if kind.is_dir() {
                let replaced = fresh || replaces(shared, &upper, &path);
                if replaced && !fresh {
                    // Deleted first: the directory's content comes later, from the stack.
                    set.push(path.clone(), ChangeKind::Delete);
                }
                dirs.push((path, replaced));
            } else if kind.is_file() {
                set.file(path, &entry.path(), old.as_deref(), &meta)?;
            } else if kind.is_symlink() {
                set.symlink(path, &entry.path(), old.as_deref());
            } else {
                set.push(path, ChangeKind::Special);
            }
        }
    }
    Ok(set)
}

/// Whether the upper layer's directory `path` replaced what the shared tree holds there: a
/// file, or a directory it hides (opaque).
fn replaces(shared: &Path, upper: &Path, path: &Path) -> bool {
    match std::fs::symlink_metadata(shared.join(path)) {
        Ok(m) if !m.is_dir() => true,
        Ok(_) => opaque(&upper.join(path)),
        Err(_) => false,
    }
}

fn opaque(dir: &Path) -> bool {
    let mut buf = [0u8; 4];
    ["trusted.overlay.opaque", "user.overlay.opaque"]
        .iter()
        .any(
            |name| matches!(rustix::fs::getxattr(dir, *name, &mut buf), Ok(n) if buf[..n] == *b"y"),
        )
}
