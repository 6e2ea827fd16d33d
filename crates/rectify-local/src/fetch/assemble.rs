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
pub fn assemble_chunks(
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

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}
