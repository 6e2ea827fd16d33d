//! The cassette file: recorded requests and what came back.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{Capabilities, ErrorKind, ProviderError, Request, Response};

/// The cassette format version written by this crate.
pub const CASSETTE_VERSION: u32 = 1;

/// What a recorded call returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorded {
    /// An answer.
    Response(Response),
    /// A provider error.
    Error(ProviderError),
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interaction {
    /// The request as the caller sent it (secrets redacted).
    pub request: Request,
    /// What came back (secrets redacted).
    pub result: Recorded,
}

/// A recording of provider calls, stored as pretty JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cassette {
    /// Format version.
    pub version: u32,
    /// The name of the recorded provider.
    pub provider: String,
    /// Its capabilities at recording time.
    pub capabilities: Capabilities,
    /// The calls, in order.
    pub interactions: Vec<Interaction>,
}

/// The largest cassette file read (recorded answers are bounded by the providers' own limits;
/// `/dev/zero` or a runaway file is refused, not read into memory).
pub const MAX_CASSETTE_BYTES: u64 = 256 * 1024 * 1024;

/// Reads at most [`MAX_CASSETTE_BYTES`] (refusing a larger file) as UTF-8.
fn read_limited(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_CASSETTE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CASSETTE_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than the cassette limit of {} MiB; nothing was read past it",
            MAX_CASSETTE_BYTES / (1024 * 1024)
        )));
    }
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

impl Cassette {
    /// An empty cassette for a provider.
    pub fn new(provider: impl Into<String>, capabilities: Capabilities) -> Self {
        Self {
            version: CASSETTE_VERSION,
            provider: provider.into(),
            capabilities,
            interactions: Vec::new(),
        }
    }

    /// Reads a cassette file.
    pub fn load(path: &Path) -> Result<Self, ProviderError> {
        let name = replay_name(path);
        let text = read_limited(path)
            .map_err(|e| replay_error(&name, format!("cannot read `{}`: {e}", path.display())))?;
        let cassette: Cassette = serde_json::from_str(&text).map_err(|e| {
            replay_error(
                &name,
                format!("`{}` is not a cassette: {e}", path.display()),
            )
        })?;
        if cassette.version != CASSETTE_VERSION {
            let message = format!(
                "`{}` has cassette version {}, expected {CASSETTE_VERSION}",
                path.display(),
                cassette.version
            );
            return Err(replay_error(&name, message));
        }
        Ok(cassette)
    }

    /// Writes the cassette atomically (temporary file in the same directory, fsync, rename).
    pub fn save(&self, path: &Path) -> Result<(), ProviderError> {
        let name = replay_name(path);
        let fail = |e: &dyn std::fmt::Display| {
            replay_error(&name, format!("cannot write `{}`: {e}", path.display()))
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let text = serde_json::to_string_pretty(self).map_err(|e| fail(&e))?;
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| fail(&e))?;
        file.write_all(text.as_bytes()).map_err(|e| fail(&e))?;
        file.write_all(b"\n").map_err(|e| fail(&e))?;
        file.as_file().sync_all().map_err(|e| fail(&e))?;
        file.persist(path).map_err(|e| fail(&e.error))?;
        Ok(())
    }
}

/// `replay:<file name>`.
pub(crate) fn replay_name(path: &Path) -> String {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    format!("replay:{file}")
}

pub(crate) fn replay_error(provider: &str, message: String) -> ProviderError {
    ProviderError::new(provider, ErrorKind::Replay { message })
}
