//! Where a schema's `$ref`s may read from. A schema file is configuration, but the documents it
//! points to end up in error messages (`"sk-…" is not of type …`), so a `$ref` may read only
//! files under the directory of the schema that names it, unless the caller allows any local
//! file. Remote references (`http://`, `https://`) are never fetched.

use std::path::{Path, PathBuf};

use jsonschema::{Retrieve, Uri};
use serde_json::Value;

/// Which local files a schema's `$ref`s may read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefAccess {
    /// Files under the directory of the schema file (symbolic links resolved first); a schema
    /// that is not a file may read none. The default.
    #[default]
    SchemaDir,
    /// Files under this directory (a project's root, where schemas share definitions).
    Under(PathBuf),
    /// Any file this process can read.
    Anywhere,
}

/// Reads `file://` references within the allowed directory; refuses everything else.
pub(super) struct Confined {
    /// The canonical directory files must be under (`None`: no file may be read).
    root: Option<PathBuf>,
    access: RefAccess,
}

impl Confined {
    /// A retriever for the schema at `base` (a file), or for a schema that is not a file.
    pub(super) fn new(base: Option<&Path>, access: RefAccess) -> Confined {
        let root = match &access {
            RefAccess::Under(dir) => std::fs::canonicalize(dir).ok(),
            _ => base
                .and_then(|b| std::fs::canonicalize(b).ok())
                .and_then(|b| b.parent().map(Path::to_path_buf)),
        };
        Confined { root, access }
    }

    fn allowed(&self, path: &Path) -> Result<PathBuf, String> {
        let real = std::fs::canonicalize(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        match (&self.access, &self.root) {
            (RefAccess::Anywhere, _) => Ok(real),
            (_, Some(root)) if real.starts_with(root) => Ok(real),
            (RefAccess::SchemaDir, Some(root)) => Err(format!(
                "`{}` is outside the schema's directory `{}`: a `$ref` may read only files \
                 under it unless references to any file are allowed",
                path.display(),
                root.display()
            )),
            (_, Some(root)) => Err(format!(
                "`{}` is outside `{}`: a `$ref` may read only files under it",
                path.display(),
                root.display()
            )),
            (_, None) => Err(format!(
                "`{}` is a file and this schema is not: its `$ref`s may read no file unless \
                 references to any file are allowed",
                path.display()
            )),
        }
    }
}

impl Retrieve for Confined {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.scheme().as_str() != "file" {
            return Err(format!("remote references are not fetched: `{uri}`").into());
        }
        let path = PathBuf::from(super::compile::percent_decode(uri.path().as_str()));
        let real = self.allowed(&path)?;
        super::compile::read_file(&real).map_err(|e| e.to_string().into())
    }
}
