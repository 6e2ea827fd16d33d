//! Resource bounds (issue 15): every command that reads a document or a workflow file, fed
//! each hostile input, ends with a clear message and a known exit status — never a panic, a
//! hang or an unbounded read. Time and memory are measured by
//! `crates/rectify-bench/scripts/bounds.sh`, not asserted here.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One hostile input, written into `dir`.
struct Case {
    name: &'static str,
    make: fn(&Path) -> PathBuf,
    /// Exit status of `check`, `repair`, `run` with it as the workflow file.
    expect: [i32; 3],
    /// Text the message must hold (for every command).
    says: &'static str,
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn big(dir: &Path) -> PathBuf {
    // 300 MB, past the 256 MiB limit, written in chunks.
    let path = dir.join("big.json");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"[").unwrap();
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..300 {
        f.write_all(&chunk).unwrap();
    }
    f.write_all(b"1]").unwrap();
    path
}

fn deep(dir: &Path) -> PathBuf {
    write(dir, "deep.json", "[".repeat(10_000).as_bytes())
}

fn alias_bomb(dir: &Path) -> PathBuf {
    let mut y = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 0..9 {
        let prev = if i == 0 {
            "a".to_owned()
        } else {
            format!("a{}", i - 1)
        };
        let items = vec![format!("*{prev}"); 10].join(", ");
        let _ = writeln!(y, "a{i}: &a{i} [{items}]");
    }
    write(dir, "bomb.yaml", y.as_bytes())
}

fn long_line(dir: &Path) -> PathBuf {
    let mut s = String::from("{\"text\": \"");
    s.push_str(&"x".repeat(50 * 1024 * 1024));
    s.push_str("\"}");
    write(dir, "line.json", s.as_bytes())
}

fn invalid_utf8(dir: &Path) -> PathBuf {
    write(dir, "bad.json", b"{\"a\": \"\xff\xfe\"}")
}

fn nul(dir: &Path) -> PathBuf {
    write(dir, "nul.json", b"{\"a\": 1}\0{\"b\": 2}")
}

fn empty(dir: &Path) -> PathBuf {
    write(dir, "empty.json", b"")
}

fn directory(dir: &Path) -> PathBuf {
    let path = dir.join("adir");
    std::fs::create_dir_all(&path).unwrap();
    path
}

const CASES: &[Case] = &[
    Case {
        name: "300 MB",
        make: big,
        expect: [2, 2, 2],
        says: "limit",
    },
    Case {
        name: "10,000 deep",
        make: deep,
        expect: [1, 1, 2],
        says: "deep",
    },
    Case {
        name: "YAML alias bomb",
        make: alias_bomb,
        expect: [1, 1, 2],
        says: "alias",
    },
    Case {
        name: "50 MB line",
        make: long_line,
        expect: [0, 0, 2],
        says: "",
    },
    Case {
        name: "invalid UTF-8",
        make: invalid_utf8,
        expect: [1, 1, 2],
        says: "utf",
    },
    Case {
        name: "NUL byte",
        make: nul,
        // Two objects with a NUL between: keeping one drops the other, an unsafe choice.
        expect: [1, 1, 2],
        says: "",
    },
    Case {
        name: "empty file",
        make: empty,
        expect: [1, 1, 2],
        says: "empty",
    },
    Case {
        name: "directory",
        make: directory,
        expect: [2, 2, 2],
        says: "directory",
    },
];

/// Runs `rectify ARGS` (stdin from `stdin`, else empty); a guard of 120 s turns a hang into
/// a failure instead of a stuck suite.
fn rectify(args: &[&str], stdin: Option<&str>) -> (i32, String) {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("rectify"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd.stdin(match stdin {
        Some(path) => Stdio::from(std::fs::File::open(path).unwrap()),
        None => Stdio::null(),
    });
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("rectify {args:?} did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let code = out.status.code().expect("exited, not killed by a signal");
    (code, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn every_command_bounds_every_hostile_input() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in CASES {
        let path = (case.make)(dir.path());
        let p = path.to_str().unwrap();
        let runs = [
            rectify(&["check", p], None),
            rectify(&["repair", p], None),
            rectify(
                &[
                    "run",
                    p,
                    "--dry-run",
                    "--workdir",
                    dir.path().to_str().unwrap(),
                ],
                None,
            ),
        ];
        for ((command, (code, stderr)), expect) in
            ["check", "repair", "run"].iter().zip(runs).zip(case.expect)
        {
            let panicked = code == 101 || stderr.contains("panicked");
            let silent = code != 0 && stderr.trim().is_empty();
            let wrong = code != expect
                || (code != 0 && !stderr.to_lowercase().contains(&case.says.to_lowercase()));
            if panicked || silent || wrong {
                failures.push(format!(
                    "{command} on {}: exit {code} (expected {expect}, message holding `{}`): {}",
                    case.name,
                    case.says,
                    stderr.chars().take(300).collect::<String>()
                ));
            }
        }
        if path.is_file() {
            std::fs::remove_file(&path).unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `/dev/zero` on standard input is refused at the size limit, not read forever; a FIFO is
/// read like a file.
#[test]
fn endless_standard_input_is_refused_at_the_limit_and_a_fifo_is_read() {
    for command in ["check", "repair"] {
        let (code, stderr) = rectify(&[command, "-"], Some("/dev/zero"));
        assert_eq!(code, 2, "{command}: {stderr}");
        assert!(
            stderr.contains("standard input") && stderr.contains("limit"),
            "{stderr}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, b"{\"a\": 1,}").unwrap())
    };
    let (code, stderr) = rectify(&["repair", fifo.to_str().unwrap()], None);
    writer.join().unwrap();
    assert_eq!(code, 0, "{stderr}");
}

/// `rectify repair t.yaml` reads YAML (the extension), not the flow list inside it as JSON
/// with the rest dropped.
#[test]
fn a_yaml_file_is_repaired_as_yaml_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "t.yaml", b"name: x\nitems: [\"x\", \"y\"]\n");
    let out = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["repair", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value, serde_json::json!({"name": "x", "items": ["x", "y"]}));
}
