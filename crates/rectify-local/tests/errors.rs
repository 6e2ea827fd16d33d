//! Configuration errors of the provider, without a real model.

use std::path::PathBuf;

use rectify_local::{LocalError, LocalOptions, LocalProvider, SETUP_HINT};
use rectify_provider::{ErrorKind, Provider, Request};

fn options_with(path: PathBuf) -> LocalOptions {
    LocalOptions {
        model_path: Some(path),
        threads: Some(1),
        ..LocalOptions::default()
    }
}

#[test]
fn a_missing_model_path_names_its_origin_and_the_setup_steps() {
    let error =
        LocalProvider::from_env_or_default(options_with("/no/such/model.gguf".into())).unwrap_err();
    assert!(
        matches!(error, LocalError::ModelMissing { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with("model file `/no/such/model.gguf` does not exist (from --model-path)"),
        "{message}"
    );
    assert!(message.contains(SETUP_HINT), "{message}");
    assert!(SETUP_HINT.contains("scripts/setup.sh"));
}

#[test]
fn a_model_path_that_is_a_directory_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let error = LocalProvider::from_env_or_default(options_with(dir.path().to_path_buf()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("is a directory"), "{error}");
    assert!(!error.contains("does not exist"), "{error}");
}

#[tokio::test]
async fn a_file_that_is_not_gguf_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.gguf");
    std::fs::write(&path, b"this is not a model").unwrap();
    let provider = LocalProvider::from_env_or_default(options_with(path.clone())).unwrap();
    assert_eq!(provider.name(), "local:broken");
    let error = provider.complete(&Request::new("hi")).await.unwrap_err();
    assert_eq!(error.provider, "local:broken");
    assert!(!error.is_retryable());
    match &error.kind {
        ErrorKind::Config { message } => {
            assert!(message.starts_with("could not load model"), "{message}");
            assert!(message.contains("broken.gguf"), "{message}");
        }
        other => panic!("unexpected kind {other:?}"),
    }
}

#[test]
fn capabilities_declare_schema_constraint_only_when_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gguf");
    std::fs::write(&path, b"x").unwrap();
    let constrained = LocalProvider::from_env_or_default(options_with(path.clone())).unwrap();
    let caps = constrained.capabilities();
    assert!(caps.json_mode && caps.json_schema);
    assert!(!caps.multi_turn && !caps.system_prompt && !caps.agent);
    let free = LocalProvider::from_env_or_default(LocalOptions {
        constrained: false,
        ..options_with(path)
    })
    .unwrap();
    assert!(!free.capabilities().json_schema);
}
