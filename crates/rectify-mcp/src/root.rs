//! The root a server may read under: every path a client names is resolved (symbolic links
//! followed) and refused unless it stays beneath it.

use std::path::{Component, Path, PathBuf};

/// Why a path a client named was refused. Nothing was read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Refused {
    /// The path names a place outside the root.
    #[error("`{given}` is outside the server's root `{root}`")]
    Outside {
        /// The path as the client gave it.
        given: String,
        /// The root.
        root: String,
    },
    /// The path is beneath the root as written, but a symbolic link on it leads out.
    #[error("`{given}` leads out of the server's root `{root}` through a symbolic link")]
    Symlink {
        /// The path as the client gave it.
        given: String,
        /// The root.
        root: String,
    },
    /// The path does not exist (or cannot be resolved).
    #[error("`{given}` cannot be used: {source}")]
    Missing {
        /// The path as the client gave it.
        given: String,
        /// Why it cannot be resolved.
        source: std::io::Error,
    },
    /// The path is empty or holds a NUL byte.
    #[error("`{given}` is not a usable path")]
    Malformed {
        /// The path as the client gave it.
        given: String,
    },
}

/// The directory a server is confined to, canonical (symbolic links resolved).
#[derive(Clone, Debug)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// The root at `dir`, which must be an existing directory.
    pub fn new(dir: &Path) -> std::io::Result<Root> {
        let dir = dir.canonicalize()?;
        if !dir.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("`{}` is not a directory", dir.display()),
            ));
        }
        Ok(Root { dir })
    }

    /// The root's canonical path.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Resolves `given` (relative to the root, or absolute) to the canonical path it names,
    /// refused unless that is beneath the root. The check is made on the resolved path, so a
    /// symbolic link anywhere on it that leads out is refused as well.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, Refused> {
        if given.is_empty() || given.contains('\0') {
            return Err(Refused::Malformed {
                given: given.to_owned(),
            });
        }
        let joined = self.dir.join(given);
        if !lexically_beneath(&joined, &self.dir) {
            return Err(self.outside(given));
        }
        let resolved = joined.canonicalize().map_err(|source| Refused::Missing {
            given: given.to_owned(),
            source,
        })?;
        if resolved.starts_with(&self.dir) {
            Ok(resolved)
        } else {
            Err(Refused::Symlink {
                given: given.to_owned(),
                root: self.dir.display().to_string(),
            })
        }
    }

    fn outside(&self, given: &str) -> Refused {
        Refused::Outside {
            given: given.to_owned(),
            root: self.dir.display().to_string(),
        }
    }
}

/// Whether `path` stays beneath `root` when its `..` components are applied as written
/// (without looking at the filesystem).
fn lexically_beneath(path: &Path, root: &Path) -> bool {
    let mut normal: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if normal.pop().is_none() {
                    return false;
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal.iter().collect::<PathBuf>().starts_with(root)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn dot_dot_past_the_root_is_outside_before_anything_is_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        assert!(matches!(
            root.resolve("../../etc/passwd"),
            Err(Refused::Outside { .. })
        ));
        assert!(matches!(
            root.resolve("/etc/passwd"),
            Err(Refused::Outside { .. })
        ));
    }

    #[test]
    fn a_symlink_out_of_the_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("out")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        assert!(matches!(
            root.resolve("out/passwd"),
            Err(Refused::Symlink { .. })
        ));
    }

    #[test]
    fn a_file_beneath_the_root_resolves() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/x.json"), "{}").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let path = root.resolve("a/../a/x.json").unwrap();
        assert!(path.ends_with("a/x.json"));
    }
}
