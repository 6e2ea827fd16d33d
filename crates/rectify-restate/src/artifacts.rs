//! Content-addressed storage for what is too large for Restate's journal (issue 17, item 3).
//!
//! A journaled call keeps its answer inline up to [`INLINE_LIMIT`] bytes; a larger answer text
//! or raw body is written here, named by its SHA-256, and the journal keeps the name. A replay
//! on any endpoint reads it back and checks the hash, so the store must be where every
//! endpoint can reach it: a directory on shared storage (the run's working directory's
//! `.rectify/artifacts/` by default). [`ArtifactStore`] is the interface an object store (an
//! S3-compatible bucket, keys by hash) would implement; only the directory exists so far.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Texts up to this size stay in the journal (Restate's default message limit is 32 MiB; the
/// journal is replayed to the endpoint on every retry, so large entries cost every replay).
pub const INLINE_LIMIT: usize = 256 * 1024;

/// A failure to store or read back an artifact.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArtifactError {
    /// The store could not be written or read.
    #[error("artifact store {dir}: {source}")]
    Io {
        /// The store's directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// What is stored under a hash is not what was stored (or is missing): the store is not
    /// the one the run used, or it was changed.
    #[error("artifact {hash} in {dir}: {message}")]
    Mismatch {
        /// The store's directory.
        dir: PathBuf,
        /// The hash the journal names.
        hash: String,
        /// What is wrong.
        message: String,
    },
}

/// Where artifacts live: put bytes, get them back by hash.
pub trait ArtifactStore: Send + Sync {
    /// Stores `bytes`; returns their SHA-256 (lower-case hex). Storing the same bytes again
    /// is a no-op.
    fn put(&self, bytes: &[u8]) -> Result<String, ArtifactError>;
    /// The bytes stored under `hash`, checked against it.
    fn get(&self, hash: &str) -> Result<Vec<u8>, ArtifactError>;
}

/// Artifacts as files named by hash in one directory.
#[derive(Clone, Debug)]
pub struct DirStore {
    dir: PathBuf,
}

impl DirStore {
    /// A store in `dir` (created on the first put).
    pub fn new(dir: impl Into<PathBuf>) -> DirStore {
        DirStore { dir: dir.into() }
    }

    fn io(&self, source: std::io::Error) -> ArtifactError {
        ArtifactError::Io {
            dir: self.dir.clone(),
            source,
        }
    }
}

/// Lower-case hex SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    rectify_flow::load::hex(&Sha256::digest(bytes))
}

impl ArtifactStore for DirStore {
    fn put(&self, bytes: &[u8]) -> Result<String, ArtifactError> {
        let hash = sha256(bytes);
        let path = self.dir.join(&hash);
        if !path.exists() {
            rectify_flow::engine::write_atomic(&path, bytes).map_err(|e| self.io(e))?;
        }
        Ok(hash)
    }

    fn get(&self, hash: &str) -> Result<Vec<u8>, ArtifactError> {
        let mismatch = |message: String| ArtifactError::Mismatch {
            dir: self.dir.clone(),
            hash: hash.to_owned(),
            message,
        };
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(mismatch("not a SHA-256".to_owned()));
        }
        let bytes = std::fs::read(self.dir.join(hash)).map_err(|e| mismatch(e.to_string()))?;
        if sha256(&bytes) != hash {
            return Err(mismatch("its content has another hash".to_owned()));
        }
        Ok(bytes)
    }
}

/// A text as the journal keeps it: inline, or the hash of an artifact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Text {
    /// Kept in the journal.
    Inline(String),
    /// In the artifact store.
    Stored {
        /// Its SHA-256.
        sha256: String,
        /// Its length in bytes.
        bytes: usize,
    },
}

impl Text {
    /// `text` as the journal keeps it: stored when it is larger than `limit`.
    pub(crate) fn keep(
        text: String,
        limit: usize,
        store: &dyn ArtifactStore,
    ) -> Result<Text, ArtifactError> {
        if text.len() <= limit {
            return Ok(Text::Inline(text));
        }
        Ok(Text::Stored {
            sha256: store.put(text.as_bytes())?,
            bytes: text.len(),
        })
    }

    /// The text back.
    pub(crate) fn take(self, store: &dyn ArtifactStore) -> Result<String, ArtifactError> {
        match self {
            Text::Inline(text) => Ok(text),
            Text::Stored { sha256, .. } => {
                let bytes = store.get(&sha256)?;
                String::from_utf8(bytes).map_err(|e| ArtifactError::Mismatch {
                    dir: PathBuf::new(),
                    hash: sha256,
                    message: e.to_string(),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_texts_stay_inline_and_large_ones_round_trip_through_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirStore::new(dir.path().join("a"));
        let small = Text::keep("short".to_owned(), 8, &store).unwrap();
        assert_eq!(small, Text::Inline("short".to_owned()));
        let big = "é".repeat(100);
        let kept = Text::keep(big.clone(), 8, &store).unwrap();
        let Text::Stored { sha256, bytes } = &kept else {
            panic!("stored: {kept:?}");
        };
        assert_eq!(*bytes, big.len());
        assert!(dir.path().join("a").join(sha256).is_file());
        assert_eq!(kept.clone().take(&store).unwrap(), big);
        // Stored twice: one file.
        Text::keep(big.clone(), 8, &store).unwrap();
        assert_eq!(std::fs::read_dir(dir.path().join("a")).unwrap().count(), 1);
    }

    #[test]
    fn a_changed_or_missing_artifact_is_an_error_not_another_answer() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirStore::new(dir.path());
        let hash = store.put(b"the answer").unwrap();
        std::fs::write(dir.path().join(&hash), b"another answer").unwrap();
        let err = store.get(&hash).unwrap_err().to_string();
        assert!(err.contains("another hash"), "{err}");
        let missing = DirStore::new(dir.path().join("elsewhere"));
        assert!(missing.get(&hash).is_err());
        assert!(
            store
                .get("../../etc/passwd")
                .unwrap_err()
                .to_string()
                .contains("not a SHA-256")
        );
    }
}
