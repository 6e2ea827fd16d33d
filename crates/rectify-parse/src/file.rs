//! Reading documents from files, with the same limits and format detection everywhere.

use std::io::Read;
use std::path::{Path, PathBuf};

use rectify_core::Format;

use crate::{Limits, Parsed};

/// A file that could not be read at all (as opposed to one whose content is invalid, which is
/// a diagnostic in [`Parsed`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The operating system refused: missing file, no permission, ...
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The path is a directory.
    #[error("cannot read `{}`: it is a directory, not a file", path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
    },
}

/// Reads the bytes of `path`, refusing directories; at most `limits.max_bytes + 1` bytes are
/// read, so an oversized file is reported by the reader without exhausting memory.
pub fn read_file_bytes(path: &Path, limits: &Limits) -> Result<Vec<u8>, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    if metadata.is_dir() {
        return Err(ReadError::Directory {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // Sized up front: growing by doubling would reach twice the limit for a file past it.
    let expected = metadata.len().min(limits.max_bytes as u64);
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).saturating_add(1));
    file.take(limits.max_bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    Ok(bytes)
}

/// The format of a document: `hint` if given, else from the name's extension, else guessed
/// from the first 4 KiB of content.
pub fn detect_format(name: &str, bytes: &[u8], hint: Option<Format>) -> Format {
    hint.or_else(|| Format::from_path(name))
        .unwrap_or_else(|| Format::sniff(&String::from_utf8_lossy(&bytes[..bytes.len().min(4096)])))
}

/// Reads and parses the file at `path` (format as in [`detect_format`]).
pub fn read_file(path: &Path, hint: Option<Format>, limits: &Limits) -> Result<Parsed, ReadError> {
    let bytes = read_file_bytes(path, limits)?;
    let format = detect_format(&path.to_string_lossy(), &bytes, hint);
    Ok(crate::read_bytes(bytes, format, limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_directory_and_oversized_files() {
        let dir = std::env::temp_dir();
        let err = read_file(
            &dir.join("rectify-no-such-file.json"),
            None,
            &Limits::default(),
        );
        assert!(matches!(err, Err(ReadError::Io { .. })));
        let err = read_file(&dir, None, &Limits::default()).unwrap_err();
        assert!(
            err.to_string().ends_with("it is a directory, not a file"),
            "{err}"
        );
        let path = dir.join(format!("rectify-file-test-{}.yaml", std::process::id()));
        std::fs::write(&path, "a: [1, 2, 3]\n").unwrap();
        let limits = Limits {
            max_bytes: 5,
            ..Limits::default()
        };
        let parsed = read_file(&path, None, &limits).unwrap();
        assert_eq!(parsed.diagnostics[0].code, "parse.too_large");
        let parsed = read_file(&path, None, &Limits::default()).unwrap();
        assert_eq!(
            parsed.document.unwrap().value,
            serde_json::json!({"a": [1, 2, 3]})
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn format_detection_order() {
        assert_eq!(
            detect_format("x.yaml", b"{}", Some(Format::Json)),
            Format::Json
        );
        assert_eq!(detect_format("x.yaml", b"{}", None), Format::Yaml);
        assert_eq!(detect_format("-", b"  [1]", None), Format::Json);
    }
}
