//! Confinement: the paths a unit's agent may change (its outputs and `may_write` globs; a
//! repair agent's failing files). What an agent changed elsewhere is judged when its change
//! set is applied (see `tree.rs`): reported, or with `confine: strict` never applied.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

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
            exact: exact.into_iter().map(|p| normal(&p)).collect(),
            globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    /// Whether `rel` may be changed.
    pub fn allows(&self, rel: &Path) -> bool {
        let rel = normal(rel);
        self.exact.contains(&rel) || self.globs.is_match(&rel)
    }
}

/// `./a/b` and `a/b` are one path.
pub(crate) fn normal(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_paths_globs_and_dot_prefixes() {
        let allowed = Allowed::new(vec![PathBuf::from("./out/a.json")], &["src/**".to_owned()]);
        assert!(allowed.allows(Path::new("out/a.json")));
        assert!(allowed.allows(Path::new("src/x/lib.rs")));
        assert!(!allowed.allows(Path::new("out/b.json")));
        assert!(!allowed.allows(Path::new("notes.txt")));
    }
}
