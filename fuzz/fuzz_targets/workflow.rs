//! Fuzz target for the workflow-file and agent-definition loaders (`rectify_flow::load_str`):
//!
//! - no panic and no hang on any bytes (invalid UTF-8 is refused before loading, as `load`
//!   does);
//! - every problem located in the workflow file points at a line of the input;
//! - a workflow that loads has an acyclic step graph (its levels hold every step once).
//!
//! `cargo fuzz run workflow` (from `fuzz/`).

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// A directory with one agent file, shared by every run (the loader reads agents from disk).
fn dir() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("rectify-fuzz-workflow-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("agents"));
        let _ = std::fs::write(
            dir.join("agents/writer.md"),
            "---\nname: writer\n---\nWrite.\n",
        );
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = dir().join("workflow.yaml");
    let lines = text.lines().count().max(1) + 1;
    match rectify_flow::load_str(&path, text.to_owned()) {
        Ok(wf) => {
            let placed: usize = wf.levels().iter().map(Vec::len).sum();
            assert_eq!(
                placed,
                wf.spec.steps.len(),
                "every step is in exactly one level"
            );
        }
        Err(e) => {
            assert!(!e.problems.is_empty());
            for p in e.problems.iter().filter(|p| p.file == path) {
                assert!(p.line.is_none_or(|l| (1..=lines).contains(&l)), "{p}");
            }
        }
    }
});
