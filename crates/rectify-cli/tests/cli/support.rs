//! Helpers shared by the CLI tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The repository root (examples live there).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A `rectify` command running in the repository root, with colour off.
pub fn rectify() -> Command {
    let mut cmd = Command::cargo_bin("rectify").expect("binary built");
    cmd.current_dir(root()).env("NO_COLOR", "1");
    cmd
}

/// What a finished command did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `rectify ARGS` and captures the result.
pub fn run(args: &[&str]) -> Run {
    run_cmd(rectify().args(args))
}

/// Runs `rectify ARGS` with `stdin` and captures the result.
pub fn run_stdin(args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
    run_cmd(rectify().args(args).write_stdin(stdin))
}

fn run_cmd(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("rectify runs");
    Run {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Parses `--output json` stdout.
pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", run.stdout))
}

/// The diagnostics of a JSON result as `(code, path, line)` triples.
pub fn triples(run: &Run) -> Vec<(String, String, i64)> {
    json(run)["diagnostics"]
        .as_array()
        .expect("diagnostics array")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_owned(),
                d["path"].as_str().unwrap_or_default().to_owned(),
                d["line"].as_i64().unwrap_or(0),
            )
        })
        .collect()
}

/// Checks `value` against the documented wire format `docs/output/NAME.schema.json`.
pub fn assert_wire_format(name: &str, value: &serde_json::Value) {
    let path = root()
        .join("docs/output")
        .join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path).expect("the documented schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("a JSON schema");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON schema");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "`{name}` output does not match docs/output/{name}.schema.json: {errors:#?}\n{value:#}"
    );
}

/// Runs `rectify ARGS --workdir DIR` and captures the result.
pub fn in_dir(dir: &Path, args: &[&str]) -> Run {
    run_cmd(rectify().args(args).arg("--workdir").arg(dir))
}

/// Waits (up to 2 s) for process `pid` to be gone (no longer in /proc, or a zombie).
pub fn process_gone(pid: &str) -> bool {
    (0..40).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.is_empty() || stat.contains(") Z ")
    })
}
