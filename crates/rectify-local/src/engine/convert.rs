//! The quantization a fetched model runs in: the verified file converted once, beside it
//! ([`crate::ModelSpec::convert_to`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rectify_quantize::Quant;

use super::{LocalModel, backend};
use crate::LocalError;
use crate::fetch::{Conversion, FetchEvent};

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
/// nothing at the path). When the conversion fails, `verified` itself, after a
/// [`FetchEvent::ConversionFailed`]: the model then runs as published.
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
        Ok(()) => converted,
        Err(error) => {
            progress(FetchEvent::ConversionFailed {
                message: error.to_string(),
            });
            verified.to_path_buf()
        }
    }
}

fn convert(verified: &Path, converted: &Path, conversion: Conversion) -> Result<(), LocalError> {
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
    let quant = match conversion {
        Conversion::Q4_0 => Quant::Q4_0,
        Conversion::Iq4Nl => Quant::Iq4Nl,
    };
    rectify_quantize::convert(verified, temp.path(), quant, threads)
        .map_err(|e| failed(e.to_string()))?;
    temp.persist(converted)
        .map_err(|e| failed(format!("{}: {}", converted.display(), e.error)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Conversion::Q4_0.path_for(Path::new("/cache/models/qwen-q4_k_m.gguf")),
            Path::new("/cache/models/qwen-q4_k_m.q4_0.gguf")
        );
        assert_eq!(
            Conversion::Iq4Nl.path_for(Path::new("/cache/models/qwen-q4_k_m.gguf")),
            Path::new("/cache/models/qwen-q4_k_m.iq4_nl.gguf")
        );
    }

    #[test]
    fn a_file_that_does_not_convert_is_used_as_it_is_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let verified = dir.path().join("model.gguf");
        std::fs::write(&verified, b"not a GGUF file").unwrap();
        let mut events = Vec::new();
        let used = converted(&verified, Conversion::Q4_0, &mut |e| events.push(e));
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
        let (_dir, verified, bad) = files(b"not a GGUF file either", Conversion::Q4_0, b"damaged");
        let mut events = Vec::new();
        let loaded = load_converted(&verified, Conversion::Q4_0, &mut |e| events.push(e));
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
        let cached = crate::fetch::DEFAULT_MODEL.path_in(&crate::fetch::cache_dir().unwrap());
        assert!(
            cached.is_file(),
            "this test needs the default model {}: run `scripts/setup.sh`",
            cached.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let verified = dir.path().join("model.gguf");
        std::os::unix::fs::symlink(&cached, &verified).unwrap();
        let bad = Conversion::Q4_0.path_for(&verified);
        std::fs::write(&bad, b"GGUF and then nothing").unwrap();
        let mut events = Vec::new();
        let model = load_converted(&verified, Conversion::Q4_0, &mut |e| events.push(e)).unwrap();
        assert_eq!(model.path(), cached.canonicalize().unwrap());
        assert!(
            matches!(&events[..], [FetchEvent::ConversionFailed { message }] if message.contains("q4_0.gguf")),
            "{events:?}"
        );
        assert!(!bad.exists());
    }

    #[test]
    fn an_existing_conversion_is_used_without_converting_again() {
        let (_dir, verified, done) = files(b"verified", Conversion::Iq4Nl, b"converted earlier");
        let mut events = Vec::new();
        assert_eq!(
            converted(&verified, Conversion::Iq4Nl, &mut |e| events.push(e)),
            done
        );
        assert!(events.is_empty());
    }
}
