//! Paths inside the working directory: nothing written or read by the engine escapes it,
//! through `..`, an absolute path or a symlink; writes are atomic.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

/// Joins `relative` to `workdir`, refusing absolute paths, `..`, and symlinks that lead out.
pub fn inside(workdir: &Path, relative: &str) -> Result<PathBuf, String> {
    if let Some(why) = crate::load::escapes_text(relative) {
        return Err(format!("the path `{relative}` {why}"));
    }
    let rel = Path::new(relative.trim());
    if rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "the path `{relative}` is not a plain relative path"
        ));
    }
    let joined = workdir.join(rel);
    let root = workdir
        .canonicalize()
        .map_err(|e| format!("the working directory cannot be resolved: {e}"))?;
    // The deepest part that exists must resolve inside the working directory.
    let mut existing = joined.as_path();
    while !existing.exists() && existing.symlink_metadata().is_err() {
        match existing.parent() {
            Some(p) => existing = p,
            None => break,
        }
    }
    if let Ok(real) = existing.canonicalize()
        && !real.starts_with(&root)
    {
        return Err(format!(
            "the path `{relative}` leads out of the working directory through a symlink"
        ));
    }
    if existing
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
        && existing.canonicalize().is_err()
    {
        return Err(format!("the path `{relative}` is a dangling symlink"));
    }
    Ok(joined)
}

/// Writes `bytes` to `path` atomically (a temporary file in the same directory, then a
/// rename), creating parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile_in(dir)?;
    tmp.1.write_all(bytes)?;
    tmp.1.sync_all()?;
    drop(tmp.1);
    std::fs::rename(&tmp.0, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp.0);
    })
}

fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    for n in 0..100u32 {
        let name = format!("{}{}-{n}", crate::beneath::TEMP_PREFIX, std::process::id());
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no temporary file name was free"))
}

/// Reads at most `limit` bytes of `path`: `Ok(None)` when it does not exist, `Err` with a
/// message when it is larger than `limit` or not a regular file.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read as _;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    if !meta.is_file() {
        return Err("it is not a regular file".to_owned());
    }
    if meta.len() > limit {
        return Err(format!(
            "it has {} bytes, more than the limit of {limit}",
            meta.len()
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "it grew past the limit of {limit} bytes while being read"
        ));
    }
    Ok(Some(bytes))
}

/// `path` (absolute under `workdir`, or relative to it) as a path relative to `workdir`.
fn relative<'a>(workdir: &Path, path: &'a Path) -> std::io::Result<&'a Path> {
    if path.is_relative() {
        return Ok(path);
    }
    path.strip_prefix(workdir).map_err(|_| {
        std::io::Error::other(format!(
            "`{}` is outside the working directory",
            path.display()
        ))
    })
}

/// [`read_bounded`] for a file under `workdir`, resolved beneath it at the moment of the read
/// (a symlink leading out, to `/proc` or anywhere else, is refused): see [`crate::beneath`].
pub fn read_in(workdir: &Path, path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let rel = relative(workdir, path).map_err(|e| e.to_string())?;
    match crate::beneath::read(workdir, rel, limit) {
        Ok(bytes) => Ok(bytes),
        Err(crate::beneath::BeneathError::TooLarge { limit, .. }) => {
            Err(format!("it has more than the limit of {limit} bytes"))
        }
        Err(crate::beneath::BeneathError::NotAFile(_)) => {
            Err("it is not a regular file".to_owned())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// [`write_atomic`] for a file under `workdir`, resolved beneath it (a symlink at the path is
/// replaced, one on the way out refused).
pub fn write_in(workdir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let rel = relative(workdir, path)?;
    crate::beneath::write(workdir, rel, bytes, None).map_err(Into::into)
}

/// Removes a file under `workdir`, resolved beneath it (absent is fine).
pub fn remove_in(workdir: &Path, path: &Path) -> std::io::Result<()> {
    let rel = relative(workdir, path)?;
    crate::beneath::remove(workdir, rel).map_err(Into::into)
}

/// Removes the temporary files that a killed rectify process left under `workdir` (named
/// `.rectify-tmp-PID-N`, where PID is no longer a live process); the files they were
/// replacing are intact, since each is renamed into place only when complete. Returns how
/// many were removed.
pub fn remove_stale_temps(workdir: &Path) -> usize {
    let walker = ignore::WalkBuilder::new(workdir)
        .hidden(false)
        .ignore(false)
        .git_ignore(true)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != ".rectify")
        .build();
    let ours = std::process::id();
    let mut removed = 0;
    for entry in walker.flatten() {
        let name = entry.file_name().to_string_lossy();
        let Some(rest) = name.strip_prefix(crate::beneath::TEMP_PREFIX) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let alive = pid == ours || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(inside(dir.path(), "a/b.yaml").is_ok());
        assert!(inside(dir.path(), "../x").is_err());
        assert!(inside(dir.path(), "/etc/passwd").is_err());
        assert!(inside(dir.path(), "a/../../x").is_err());
        std::os::unix::fs::symlink("/tmp", dir.path().join("out")).unwrap();
        let err = inside(dir.path(), "out/x.yaml").unwrap_err();
        assert!(err.contains("symlink"), "{err}");
    }

    #[test]
    fn atomic_writes_and_bounded_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d/f.txt");
        write_atomic(&path, b"hello").unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap().unwrap(), b"hello");
        assert!(read_bounded(&path, 3).unwrap_err().contains("limit"));
        assert!(read_bounded(&dir.path().join("none"), 3).unwrap().is_none());
        assert!(read_bounded(dir.path(), 3).is_err());
    }
}
