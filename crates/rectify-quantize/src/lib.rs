//! Converts a GGUF model file to another quantization with llama.cpp's own quantizer
//! (`llama_model_quantize`), the one llama.cpp function rectify calls that the safe
//! `llama-cpp-2` bindings do not wrap.
//!
//! Why: llama.cpp's CPU backend re-lays out the weights of some quantizations at load time
//! ("repacking") for its fastest matrix kernels. Qwen2.5-Coder 0.5B's published "Q4_K_M" file
//! is mostly `q5_0` (its width, 896, is not a multiple of the K-quants' 256), which has no such
//! layout; the same weights in `q4_0` have one, and answer about a quarter faster on a
//! 2-core x86 machine (docs/BENCHMARKS.md, "issue 36, fifth round").
//!
//! The input is read by llama.cpp's GGUF parser, as a model load reads it: pass only files
//! whose bytes were verified (rectify converts only models it fetched and checked by
//! SHA-256).

use std::ffi::CString;
use std::path::{Path, PathBuf};

/// A quantization to convert to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quant {
    /// `Q4_0`: 4-bit weights in blocks of 32 with one scale; repacked for AVX2 / AVX-512
    /// (and Arm) matrix kernels at load.
    Q4_0,
    /// `IQ4_NL`: 4-bit weights in blocks of 32 on a non-linear grid (closer to the original
    /// weights than `Q4_0` at the same size); repacked like `Q4_0`.
    Iq4Nl,
}

impl Quant {
    /// The short name used in file names (`q4_0`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Q4_0 => "q4_0",
            Self::Iq4Nl => "iq4_nl",
        }
    }

    fn ftype(self) -> llama_cpp_sys_2::llama_ftype {
        match self {
            Self::Q4_0 => llama_cpp_sys_2::LLAMA_FTYPE_MOSTLY_Q4_0,
            Self::Iq4Nl => llama_cpp_sys_2::LLAMA_FTYPE_MOSTLY_IQ4_NL,
        }
    }
}

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
pub enum QuantizeError {
    /// A path llama.cpp cannot be given (it holds a NUL byte or is not UTF-8).
    #[error("cannot hand the path {path} to llama.cpp")]
    Path {
        /// The path.
        path: PathBuf,
    },
    /// llama.cpp's quantizer reported a failure (its log says why).
    #[error("llama.cpp could not convert {input} to {quant}")]
    Failed {
        /// The input model.
        input: PathBuf,
        /// The quantization asked for.
        quant: &'static str,
    },
}

/// Writes `input`'s weights converted to `quant` to `output` (replaced if it exists; removed
/// when the conversion fails), with
/// `threads` threads. Tensors already in a lower precision are converted from what they
/// hold (`allow_requantize`); llama.cpp keeps its usual exceptions (norms in `f32`, the
/// output tensor in a higher precision). Blocking: a 0.5B model takes seconds.
///
/// llama.cpp's backend must be initialised first (any model load does it; in rectify-local,
/// the engine's `backend()`).
pub fn convert(
    input: &Path,
    output: &Path,
    quant: Quant,
    threads: u16,
) -> Result<(), QuantizeError> {
    let c_input = c_path(input)?;
    let c_output = c_path(output)?;
    let status = quantize(&c_input, &c_output, quant.ftype(), threads);
    if status == 0 && output.is_file() {
        Ok(())
    } else {
        // What llama.cpp may have begun to write is not a model.
        let _ = std::fs::remove_file(output);
        Err(QuantizeError::Failed {
            input: input.to_path_buf(),
            quant: quant.name(),
        })
    }
}

fn c_path(path: &Path) -> Result<CString, QuantizeError> {
    path.to_str()
        .and_then(|p| CString::new(p).ok())
        .ok_or_else(|| QuantizeError::Path {
            path: path.to_path_buf(),
        })
}

#[allow(unsafe_code)]
fn quantize(
    input: &CString,
    output: &CString,
    ftype: llama_cpp_sys_2::llama_ftype,
    threads: u16,
) -> u32 {
    // SAFETY: `llama_model_quantize_default_params` takes nothing and returns a plain struct
    // by value.
    let mut params = unsafe { llama_cpp_sys_2::llama_model_quantize_default_params() };
    params.ftype = ftype;
    params.nthread = i32::from(threads.max(1));
    params.allow_requantize = true;
    // SAFETY: both paths are NUL-terminated strings that outlive the call, and `params` is a
    // valid struct from llama.cpp's own defaults whose pointer fields (imatrix, overrides,
    // pruned layers) are null as those defaults set them. llama.cpp catches its own C++
    // exceptions in this function and reports them as a non-zero status.
    unsafe {
        llama_cpp_sys_2::llama_model_quantize(input.as_ptr(), output.as_ptr(), &raw const params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_model_is_an_error_and_leaves_no_output() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("not-a-model.gguf");
        std::fs::write(&input, b"GGUF but not really").unwrap();
        let output = dir.path().join("out.gguf");
        let error = convert(&input, &output, Quant::Q4_0, 1).unwrap_err();
        assert!(matches!(error, QuantizeError::Failed { .. }), "{error}");
        assert!(error.to_string().contains("q4_0"), "{error}");
        assert!(!output.exists());
    }

    #[test]
    fn a_missing_input_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = convert(
            &dir.path().join("missing.gguf"),
            &dir.path().join("out.gguf"),
            Quant::Q4_0,
            1,
        )
        .unwrap_err();
        assert!(matches!(error, QuantizeError::Failed { .. }), "{error}");
    }

    #[test]
    fn a_path_with_a_nul_byte_is_refused_before_llama_cpp_sees_it() {
        let error = convert(
            Path::new("bad\0path.gguf"),
            Path::new("out.gguf"),
            Quant::Q4_0,
            1,
        )
        .unwrap_err();
        assert!(matches!(error, QuantizeError::Path { .. }), "{error}");
    }
}
