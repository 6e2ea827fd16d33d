//! The quantization a fetched model runs in: the verified file converted once, beside it
//! ([`crate::ModelSpec::convert_to`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rectify_quantize::Quant;

use super::{LocalModel, backend};
use crate::LocalError;
use crate::fetch::{Conversion, FetchEvent, Quantization, file_sha256};

/// The verified model at `verified`, loaded in its conversion ([`converted`]). A converted
/// file that does not load (written by a llama.cpp this one cannot read, or damaged since) is
/// removed, reported as a [`FetchEvent::ConversionFailed`], and the verified file is loaded
/// instead; the next load converts again.
pub(crate) fn load_converted(
    verified: &Path,
    conversion: Conversion,
    progress: &mut dyn FnMut(FetchEvent),
) -> Result<Arc<LocalModel>, LocalError> {
    let path = converted(verified, conversion, progress);
    if path == verified {
        return LocalModel::shared(verified);
    }
    LocalModel::shared(&path).or_else(|error| {
        let removed = match std::fs::remove_file(&path) {
            Ok(()) => "removed it".to_owned(),
            Err(e) => format!("could not remove it: {e}"),
        };
        progress(FetchEvent::ConversionFailed {
            message: format!("{error}; {removed}"),
        });
        LocalModel::shared(verified)
    })
}

/// The conversion of the verified model at `verified`, made now if it is not there yet
/// (written to a temporary file and renamed into place, so a conversion cut short leaves
/// nothing at the path; a new one whose digest is not [`Conversion::sha256`] is reported as
/// a [`FetchEvent::ConversionDiffers`]). When the conversion fails, `verified` itself, after
/// a [`FetchEvent::ConversionFailed`]: the model then runs as published.
pub(crate) fn converted(
    verified: &Path,
    conversion: Conversion,
    progress: &mut dyn FnMut(FetchEvent),
) -> PathBuf {
    let converted = conversion.path_for(verified);
    if converted.is_file() {
        return converted;
    }
    progress(FetchEvent::Converting {
        from: verified.to_path_buf(),
    });
    match convert(verified, &converted, conversion) {
        Ok(actual) => {
            if !actual.eq_ignore_ascii_case(conversion.sha256) {
                progress(FetchEvent::ConversionDiffers {
                    path: converted.clone(),
                    expected: conversion.sha256.to_owned(),
                    actual,
                });
            }
            converted
        }
        Err(error) => {
            progress(FetchEvent::ConversionFailed {
                message: error.to_string(),
            });
            verified.to_path_buf()
        }
    }
}

/// Converts `verified` into `converted`; the new file's SHA-256.
fn convert(
    verified: &Path,
    converted: &Path,
    conversion: Conversion,
) -> Result<String, LocalError> {
    let failed = |message: String| LocalError::Load {
        path: verified.to_path_buf(),
        message,
    };
    backend()?;
    let dir = converted.parent().unwrap_or_else(|| Path::new("."));
    let temp = tempfile::Builder::new()
        .prefix(".converting-")
        .suffix(".gguf")
        .tempfile_in(dir)
        .map_err(|e| failed(format!("temporary file in {}: {e}", dir.display())))?;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| u16::try_from(n.get()).unwrap_or(u16::MAX));
    let quant = match conversion.quant {
        Quantization::Q4_0 => Quant::Q4_0,
        Quantization::Iq4Nl => Quant::Iq4Nl,
    };
    rectify_quantize::convert(verified, temp.path(), quant, threads)
        .map_err(|e| failed(e.to_string()))?;
    let digest = file_sha256(temp.path())?;
    temp.persist(converted)
        .map_err(|e| failed(format!("{}: {}", converted.display(), e.error)))?;
    Ok(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default model's conversion, as the catalog records it.
    const Q4_0: Conversion = match crate::fetch::DEFAULT_MODEL.convert_to {
        Some(conversion) => conversion,
        None => panic!("the default model is converted"),
    };
    const IQ4_NL: Conversion = Conversion {
        quant: Quantization::Iq4Nl,
        sha256: "",
    };

    /// A directory holding `model.gguf`, a link to the real default model.
    #[cfg(unix)]
    fn real_model() -> (tempfile::TempDir, PathBuf) {
        let cached = crate::fetch::DEFAULT_MODEL.path_in(&crate::fetch::cache_dir().unwrap());
        assert!(
            cached.is_file(),
            "this test needs the default model {}: run `scripts/setup.sh`",
            cached.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let verified = dir.path().join("model.gguf");
        std::os::unix::fs::symlink(&cached, &verified).unwrap();
        (dir, verified)
    }

    /// A verified file and its conversion, with these contents, in a new directory.
    fn files(
        verified: &[u8],
        conversion: Conversion,
        converted: &[u8],
    ) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.gguf");
        std::fs::write(&path, verified).unwrap();
        let conversion_path = conversion.path_for(&path);
        std::fs::write(&conversion_path, converted).unwrap();
        (dir, path, conversion_path)
    }

    #[test]
    fn the_conversion_sits_beside_the_verified_file() {
        assert_eq!(
            Q4_0.path_for(Path::new("/cache/models/qwen-q4_k_m.gguf")),
            Path::new("/cache/models/qwen-q4_k_m.q4_0.gguf")
        );
        assert_eq!(
            IQ4_NL.path_for(Path::new("/cache/models/qwen-q4_k_m.gguf")),
            Path::new("/cache/models/qwen-q4_k_m.iq4_nl.gguf")
        );
    }

    #[test]
    fn a_file_that_does_not_convert_is_used_as_it_is_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let verified = dir.path().join("model.gguf");
        std::fs::write(&verified, b"not a GGUF file").unwrap();
        let mut events = Vec::new();
        let used = converted(&verified, Q4_0, &mut |e| events.push(e));
        assert_eq!(used, verified);
        assert!(matches!(events[0], FetchEvent::Converting { .. }));
        assert!(
            matches!(&events[1], FetchEvent::ConversionFailed { message } if message.contains("q4_0")),
            "{events:?}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the verified file: {left:?}");
    }

    #[test]
    fn a_conversion_that_does_not_load_is_removed_and_reported() {
        let (_dir, verified, bad) = files(b"not a GGUF file either", Q4_0, b"damaged");
        let mut events = Vec::new();
        let loaded = load_converted(&verified, Q4_0, &mut |e| events.push(e));
        assert!(
            matches!(&loaded, Err(LocalError::Load { path, .. }) if *path == verified),
            "the verified file is tried next: {loaded:?}"
        );
        assert!(
            matches!(&events[..], [FetchEvent::ConversionFailed { message }] if message.contains("removed it")),
            "{events:?}"
        );
        assert!(!bad.exists(), "the damaged conversion is gone");
        assert!(verified.is_file());
    }

    /// With the real default model: a damaged conversion beside it gives way to the verified
    /// file, which loads and answers for it.
    #[cfg(unix)]
    #[test]
    fn a_damaged_conversion_gives_way_to_the_verified_model() {
        let (_dir, verified) = real_model();
        let cached = verified.canonicalize().unwrap();
        let bad = Q4_0.path_for(&verified);
        std::fs::write(&bad, b"GGUF and then nothing").unwrap();
        let mut events = Vec::new();
        let model = load_converted(&verified, Q4_0, &mut |e| events.push(e)).unwrap();
        assert_eq!(model.path(), cached);
        assert!(
            matches!(&events[..], [FetchEvent::ConversionFailed { message }] if message.contains("q4_0.gguf")),
            "{events:?}"
        );
        assert!(!bad.exists());
    }

    #[test]
    fn an_existing_conversion_is_used_without_converting_again() {
        let (_dir, verified, done) = files(b"verified", IQ4_NL, b"converted earlier");
        let mut events = Vec::new();
        assert_eq!(converted(&verified, IQ4_NL, &mut |e| events.push(e)), done);
        assert!(events.is_empty());
    }

    /// The catalog's pin is what the linked llama.cpp makes of the real default model: a
    /// llama.cpp that quantizes differently fails here, not silently on users' machines.
    #[cfg(unix)]
    #[test]
    fn the_default_model_converts_to_the_recorded_digest() {
        let (_dir, verified) = real_model();
        let mut events = Vec::new();
        let made = converted(&verified, Q4_0, &mut |e| events.push(e));
        assert_eq!(made, Q4_0.path_for(&verified), "{events:?}");
        assert!(made.is_file());
        assert!(
            matches!(&events[..], [FetchEvent::Converting { .. }]),
            "{events:?}"
        );
    }

    /// A conversion whose digest is not the recorded one is kept and runs, and the difference
    /// is reported.
    #[cfg(unix)]
    #[test]
    fn a_conversion_with_another_digest_is_used_and_reported() {
        let (_dir, verified) = real_model();
        let recorded_elsewhere = Conversion {
            sha256: "0000000000000000000000000000000000000000000000000000000000000000",
            ..Q4_0
        };
        let mut events = Vec::new();
        let used = converted(&verified, recorded_elsewhere, &mut |e| events.push(e));
        assert_eq!(used, Q4_0.path_for(&verified));
        assert!(used.is_file());
        assert!(
            matches!(&events[..], [FetchEvent::Converting { .. }, FetchEvent::ConversionDiffers { path, expected, actual }]
                if *path == used && expected == recorded_elsewhere.sha256 && actual == Q4_0.sha256),
            "{events:?}"
        );
        let mut again = Vec::new();
        assert_eq!(
            converted(&verified, recorded_elsewhere, &mut |e| again.push(e)),
            used
        );
        assert!(again.is_empty(), "made and reported once: {again:?}");
    }
}
