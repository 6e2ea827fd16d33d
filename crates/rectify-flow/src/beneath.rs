//! Files under the working directory, opened so that nothing leads out of it at the moment of
//! access: every path is resolved from a descriptor of the working directory with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` (Linux 5.6+), so a symlink an agent
//! planted (to `/proc/self/environ`, `~/.ssh`, `../..`) is refused by the kernel, not by a check
//! made earlier. Where `openat2` is missing, each component is opened with `O_NOFOLLOW`
//! (every symlink refused). Reads take regular files only, bounded; writes are atomic (a
//! temporary file in the same directory, renamed over the target).
//!
//! The working directory itself is trusted: the person chose it.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// Why a path under the working directory could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BeneathError {
    /// The path, or a symlink on the way, leads out of the working directory.
    #[error(
        "`{0}` leads out of the working directory (through `..`, an absolute path or a symlink)"
    )]
    Escapes(String),
    /// Not a regular file (a directory, fifo, socket or device).
    #[error("`{0}` is not a regular file")]
    NotAFile(String),
    /// Larger than the limit.
    #[error("`{path}` has more than {limit} bytes")]
    TooLarge {
        /// The path, relative to the working directory.
        path: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// Any other I/O error.
    #[error("`{path}`: {source}")]
    Io {
        /// The path, relative to the working directory.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl BeneathError {
    fn io(rel: &Path, e: impl Into<std::io::Error>) -> BeneathError {
        let source = e.into();
        let path = rel.display().to_string();
        match source.raw_os_error() {
            Some(n) if n == Errno::XDEV.raw_os_error() || n == Errno::LOOP.raw_os_error() => {
                BeneathError::Escapes(path)
            }
            _ => BeneathError::Io { path, source },
        }
    }

    /// Whether the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, BeneathError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

impl From<BeneathError> for std::io::Error {
    fn from(e: BeneathError) -> std::io::Error {
        match e {
            BeneathError::Io { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

/// The parts of `rel`, refusing anything but plain names (`.` is skipped).
fn names(rel: &Path) -> Result<Vec<&std::ffi::OsStr>, BeneathError> {
    let mut out = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return Err(BeneathError::Escapes(rel.display().to_string())),
        }
    }
    Ok(out)
}

fn open_root(root: &Path) -> Result<OwnedFd, BeneathError> {
    rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| BeneathError::io(Path::new("."), e))
}

/// Opens `rel` beneath `dir` with `flags`.
fn resolve(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
    let how = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    for _ in 0..16 {
        match rustix::fs::openat2(dir, rel, flags | OFlags::CLOEXEC, mode, how) {
            // A rename elsewhere raced the lookup: the kernel asks to try again.
            Err(Errno::AGAIN) => {}
            Err(Errno::NOSYS) => return walk(dir, rel, flags, mode),
            other => return other,
        }
    }
    Err(Errno::AGAIN)
}

/// `openat2` missing: each component opened with `O_NOFOLLOW` (every symlink refused).
fn walk(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
    let parts: Vec<_> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    let Some((last, parents)) = parts.split_last() else {
        return rustix::fs::openat(dir, ".", flags | OFlags::CLOEXEC, mode);
    };
    let mut current: Option<OwnedFd> = None;
    for part in parents {
        let at = current.as_ref().map_or(dir, AsFd::as_fd);
        let next = rustix::fs::openat(
            at,
            *part,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        current = Some(next);
    }
    let at = current.as_ref().map_or(dir, AsFd::as_fd);
    rustix::fs::openat(at, *last, flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, mode)
}

/// Reads `rel` under `root`, at most `limit` bytes; `Ok(None)` when it does not exist.
pub fn read(root: &Path, rel: &Path, limit: u64) -> Result<Option<Vec<u8>>, BeneathError> {
    names(rel)?;
    let dir = open_root(root)?;
    // Non-blocking: opening a fifo an agent left must not wait for a writer.
    let fd = match resolve(
        dir.as_fd(),
        rel,
        OFlags::RDONLY | OFlags::NONBLOCK,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(BeneathError::io(rel, e)),
    };
    let file = File::from(fd);
    let meta = file.metadata().map_err(|e| BeneathError::io(rel, e))?;
    let shown = || rel.display().to_string();
    if !meta.is_file() {
        return Err(BeneathError::NotAFile(shown()));
    }
    if meta.len() > limit {
        return Err(BeneathError::TooLarge {
            path: shown(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| BeneathError::io(rel, e))?;
    if bytes.len() as u64 > limit {
        return Err(BeneathError::TooLarge {
            path: shown(),
            limit,
        });
    }
    Ok(Some(bytes))
}

/// The directory `rel` under `root`, created (with its parents) when missing.
fn dir_beneath(root: BorrowedFd<'_>, rel: &Path) -> Result<OwnedFd, BeneathError> {
    let flags = OFlags::PATH | OFlags::DIRECTORY;
    match resolve(root, rel, flags, Mode::empty()) {
        Ok(fd) => return Ok(fd),
        Err(Errno::NOENT) => {}
        Err(e) => return Err(BeneathError::io(rel, e)),
    }
    let mut current = rustix::fs::openat(root, ".", flags | OFlags::CLOEXEC, Mode::empty())
        .map_err(|e| BeneathError::io(rel, e))?;
    for name in names(rel)? {
        match rustix::fs::mkdirat(&current, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(BeneathError::io(rel, e)),
        }
        current = resolve(current.as_fd(), Path::new(name), flags, Mode::empty())
            .map_err(|e| BeneathError::io(rel, e))?;
    }
    Ok(current)
}

/// The parent directory of `rel` (created when missing) and its file name.
fn parent<'a>(root: &Path, rel: &'a Path) -> Result<(OwnedFd, &'a std::ffi::OsStr), BeneathError> {
    let parts = names(rel)?;
    let Some(name) = parts.last().copied() else {
        return Err(BeneathError::NotAFile(rel.display().to_string()));
    };
    let dir = open_root(root)?;
    let fd = dir_beneath(dir.as_fd(), parent_of(rel))?;
    Ok((fd, name))
}

/// Writes `bytes` to `rel` under `root` atomically, creating parent directories; `mode` is
/// the new file's permissions (default: `0o666` less the umask). A symlink at `rel` is
/// replaced, never followed.
pub fn write(root: &Path, rel: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), BeneathError> {
    write_from(root, rel, &mut &bytes[..], mode)
}

/// [`write()`] with the content read from `source`.
pub fn write_from(
    root: &Path,
    rel: &Path,
    source: &mut dyn std::io::Read,
    mode: Option<u32>,
) -> Result<(), BeneathError> {
    let (dir, name) = parent(root, rel)?;
    let (tmp, fd) = temp_in(dir.as_fd()).map_err(|e| BeneathError::io(rel, e))?;
    let result = (|| -> std::io::Result<()> {
        let mut file = File::from(fd);
        std::io::copy(source, &mut file)?;
        file.flush()?;
        if let Some(mode) = mode {
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777))?;
        }
        file.sync_all()?;
        rustix::fs::renameat(&dir, &tmp, &dir, name)?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = rustix::fs::unlinkat(&dir, &tmp, rustix::fs::AtFlags::empty());
        return Err(BeneathError::io(rel, e));
    }
    Ok(())
}

/// How the engine's temporary files start (`.rectify-tmp-PID-…`): written whole, then renamed
/// into place; swept by [`crate::remove_stale_temps`] when their process is gone, and never
/// copied into an agent's view.
pub(crate) const TEMP_PREFIX: &str = ".rectify-tmp-";

/// A new temporary file in `dir`, named like the ones [`crate::remove_stale_temps`] sweeps.
fn temp_in(dir: BorrowedFd<'_>) -> std::io::Result<(String, OwnedFd)> {
    for _ in 0..100 {
        let name = format!(
            "{TEMP_PREFIX}{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        );
        match rustix::fs::openat(
            dir,
            name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => return Ok((name, fd)),
            Err(Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(std::io::Error::other("no temporary file name was free"))
}

/// Removes `rel` under `root`: a file or symlink (never followed), or a directory with
/// everything in it. Absent is fine.
pub fn remove(root: &Path, rel: &Path) -> Result<(), BeneathError> {
    let (dir, name) = parent(root, rel)?;
    remove_at(dir.as_fd(), name).map_err(|e| BeneathError::io(rel, e))
}

fn remove_at(dir: BorrowedFd<'_>, name: &std::ffi::OsStr) -> Result<(), Errno> {
    use rustix::fs::AtFlags;
    match rustix::fs::unlinkat(dir, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => return Ok(()),
        Err(Errno::ISDIR | Errno::PERM) => {}
        Err(e) => return Err(e),
    }
    // A directory: emptied through descriptors (no path is resolved twice), then removed.
    let sub = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut pending = Vec::new();
    for entry in rustix::fs::Dir::read_from(&sub)? {
        let entry = entry?;
        let n = entry.file_name().to_bytes();
        if n != b"." && n != b".." {
            use std::os::unix::ffi::OsStrExt as _;
            pending.push(std::ffi::OsStr::from_bytes(n).to_owned());
        }
    }
    for child in pending {
        remove_at(sub.as_fd(), &child)?;
    }
    rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)
}

/// What a path holds, read without following a final symlink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A fifo, socket or device.
    Other,
}

/// What is at `rel` under `root`, without following a final symlink: `None` when absent (or
/// when the way to it leads out).
pub fn kind(root: &Path, rel: &Path) -> Option<Kind> {
    let (dir, name) = parent_existing(root, rel)?;
    let stat = rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    Some(match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
        rustix::fs::FileType::RegularFile => Kind::File,
        rustix::fs::FileType::Directory => Kind::Dir,
        rustix::fs::FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    })
}

fn parent_existing<'a>(root: &Path, rel: &'a Path) -> Option<(OwnedFd, &'a std::ffi::OsStr)> {
    let name = names(rel).ok()?.last().copied()?;
    let dir = open_root(root).ok()?;
    let fd = resolve(
        dir.as_fd(),
        parent_of(rel),
        OFlags::PATH | OFlags::DIRECTORY,
        Mode::empty(),
    )
    .ok()?;
    Some((fd, name))
}

/// `rel`'s parent, `.` for a top-level name.
fn parent_of(rel: &Path) -> &Path {
    match rel.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}
