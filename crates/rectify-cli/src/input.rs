//! Reading the files and standard input that commands take.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rectify::parse::Limits;
use rectify::{Document, Format};

/// Raw input: where it came from and its bytes.
pub struct Source {
    /// `-` for standard input, else the path as given.
    pub name: String,
    /// The bytes, not yet decoded.
    pub bytes: Vec<u8>,
}

/// Whether this process was started with file descriptor 0 closed (`cmd <&-`). Rust's runtime
/// opens `/dev/null` read-write in place of a closed standard descriptor, which would read as
/// an empty document; a shell's `< /dev/null` opens it read-only. So: `/dev/null` open for
/// reading and writing on descriptor 0 is taken as "closed" (where there is no `/proc`, never).
fn stdin_closed() -> bool {
    let null = std::fs::read_link("/proc/self/fd/0").is_ok_and(|p| p == Path::new("/dev/null"));
    let read_write = std::fs::read_to_string("/proc/self/fdinfo/0").is_ok_and(|info| {
        info.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .is_some_and(|flags| flags & 0o3 == 0o2)
    });
    null && read_write
}

/// Reads a file, or standard input for `-`, refusing directories and inputs over the limit
/// (at most the limit plus one byte is ever read, so `/dev/zero` is refused, not read forever).
pub fn read_source(path: &str, limits: &Limits) -> Result<Source> {
    let bytes = if path == "-" {
        if stdin_closed() {
            bail!(
                "standard input is closed (`-` reads the document from it): pipe the document in, or give a file"
            );
        }
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(limits.max_bytes as u64 + 1)
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        rectify::parse::read_file_bytes(Path::new(path), limits)?
    };
    if bytes.len() > limits.max_bytes {
        let name = if path == "-" { "standard input" } else { path };
        bail!(
            "`{name}` is larger than the input limit of {} bytes ({} MiB); nothing was read past it",
            limits.max_bytes,
            limits.max_bytes / (1024 * 1024)
        );
    }
    Ok(Source {
        name: path.to_owned(),
        bytes,
    })
}

/// The format to read `source` as: the flag, else the file extension, else a guess from content.
pub fn format_of(source: &Source, flag: Option<Format>) -> Format {
    rectify::parse::detect_format(&source.name, &source.bytes, flag)
}

/// Reads a configuration document (schema, rules, reference): any problem is a configuration
/// error that names the file and the line ([`rectify::setup::read_document`]).
pub fn read_config_document(path: &Path, what: &str, limits: &Limits) -> Result<Document> {
    Ok(rectify::setup::read_document(path, what, limits)?)
}
