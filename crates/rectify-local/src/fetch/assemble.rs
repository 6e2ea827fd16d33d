//! Concatenates model chunks into one file and checks its SHA-256.
//!
//! The file is written to a temporary file beside the destination, synced, hashed while it is
//! written, and renamed into place only when the digest matches, so a model at the destination
//! path is always complete and verified.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::FetchEvent;
use crate::LocalError;

const BLOCK: usize = 1 << 20;

/// Concatenates `chunks` in order into `dest`, checking that the bytes hash to `expected_sha256`
/// (lowercase hex). Reports [`FetchEvent::Assembling`] after every block. On a mismatch nothing
/// is left at `dest` and [`LocalError::HashMismatch`] is returned.
pub(crate) fn assemble_chunks(
    chunks: &[PathBuf],
    dest: &Path,
    expected_sha256: &str,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<PathBuf, LocalError> {
    let total = total_size(chunks)?;
    let dir = dest.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| LocalError::io(dir, e))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(|e| LocalError::io(dir, e))?;
    let mut hasher = Sha256::new();
    let mut done = 0u64;
    let mut buffer = vec![0u8; BLOCK];
    for chunk in chunks {
        let mut input = File::open(chunk).map_err(|e| LocalError::io(chunk, e))?;
        loop {
            let read = input
                .read(&mut buffer)
                .map_err(|e| LocalError::io(chunk, e))?;
            let Some(block) = buffer.get(..read).filter(|b| !b.is_empty()) else {
                break;
            };
            hasher.update(block);
            temp.write_all(block)
                .map_err(|e| LocalError::io(temp.path(), e))?;
            done += read as u64;
            progress(FetchEvent::Assembling { done, total });
        }
    }
    let actual = hex(&hasher.finalize());
    if !actual.eq_ignore_ascii_case(expected_sha256) {
        return Err(LocalError::HashMismatch {
            expected: expected_sha256.to_owned(),
            actual,
        });
    }
    temp.as_file()
        .sync_all()
        .map_err(|e| LocalError::io(temp.path(), e))?;
    temp.persist(dest)
        .map_err(|e| LocalError::io(dest, e.error))?;
    Ok(dest.to_path_buf())
}

fn total_size(chunks: &[PathBuf]) -> Result<u64, LocalError> {
    let mut total = 0u64;
    for chunk in chunks {
        let meta = std::fs::metadata(chunk).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LocalError::ChunkMissing {
                path: chunk.clone(),
            },
            _ => LocalError::io(chunk, e),
        })?;
        total += meta.len();
    }
    Ok(total)
}

/// Lowercase hex SHA-256 of the file at `path`, read in blocks.
pub(crate) fn file_sha256(path: &Path) -> Result<String, LocalError> {
    let mut input = File::open(path).map_err(|e| LocalError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; BLOCK];
    loop {
        let read = input
            .read(&mut buffer)
            .map_err(|e| LocalError::io(path, e))?;
        let Some(block) = buffer.get(..read).filter(|b| !b.is_empty()) else {
            return Ok(hex(&hasher.finalize()));
        };
        hasher.update(block);
    }
}

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::path::{Path, PathBuf};

    use sha2::{Digest, Sha256};

    use super::{assemble_chunks, file_sha256};
    use crate::fetch::FetchEvent;
    use crate::{LocalError, SETUP_HINT};

    fn write_chunks(dir: &Path, parts: &[&[u8]]) -> Vec<PathBuf> {
        parts
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                let path = dir.join(format!("model.part{i:02}"));
                std::fs::write(&path, bytes).unwrap();
                path
            })
            .collect()
    }

    fn sha256_hex(bytes: &[u8]) -> String {
        use std::fmt::Write as _;
        Sha256::digest(bytes)
            .iter()
            .fold(String::new(), |mut out, b| {
                write!(out, "{b:02x}").unwrap();
                out
            })
    }

    #[test]
    fn chunks_are_concatenated_in_order_and_verified() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; 3 * 1024 * 1024 + 5];
        let parts: [&[u8]; 3] = [b"GGUF-head-", &big, b"-tail"];
        let chunks = write_chunks(dir.path(), &parts);
        let expected = sha256_hex(&parts.concat());
        let dest = dir.path().join("models").join("m.gguf");
        let mut events = Vec::new();
        let path = assemble_chunks(&chunks, &dest, &expected, &mut |e| events.push(e)).unwrap();
        assert_eq!(path, dest);
        assert_eq!(std::fs::read(&dest).unwrap(), parts.concat());
        let total = parts.concat().len() as u64;
        assert_eq!(
            events.last(),
            Some(&FetchEvent::Assembling { done: total, total })
        );
        assert!(events.len() >= 4, "progress per block: {events:?}");
    }

    #[test]
    fn a_hash_mismatch_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let chunks = write_chunks(dir.path(), &[b"abc", b"def"]);
        let dest = dir.path().join("out").join("m.gguf");
        let wrong = sha256_hex(b"abcdeX");
        let error = assemble_chunks(&chunks, &dest, &wrong, &mut |_| {}).unwrap_err();
        match &error {
            LocalError::HashMismatch { expected, actual } => {
                assert_eq!(expected, &wrong);
                assert_eq!(actual, &sha256_hex(b"abcdef"));
            }
            other => panic!("unexpected error {other:?}"),
        }
        assert!(!dest.exists());
        let leftovers: Vec<_> = std::fs::read_dir(dest.parent().unwrap()).unwrap().collect();
        assert!(leftovers.is_empty(), "temporary file left: {leftovers:?}");
        assert!(error.to_string().contains("discarded"));
    }

    #[test]
    fn a_missing_chunk_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut chunks = write_chunks(dir.path(), &[b"abc"]);
        chunks.push(dir.path().join("gone.part01"));
        let error = assemble_chunks(&chunks, &dir.path().join("m"), "00", &mut |_| {}).unwrap_err();
        assert!(
            matches!(&error, LocalError::ChunkMissing { path } if path.ends_with("gone.part01"))
        );
        assert!(error.to_string().contains(SETUP_HINT));
    }

    #[test]
    fn a_file_is_hashed_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.gguf");
        let bytes: Vec<u8> = (0..super::BLOCK + 4097).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(file_sha256(&path).unwrap(), sha256_hex(&bytes));
        assert!(matches!(
            file_sha256(&dir.path().join("missing.gguf")),
            Err(LocalError::Io { .. })
        ));
    }
}
