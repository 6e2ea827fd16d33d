//! Commands and secrets in workflows (issue 15): a workflow's values never reach a shell, and
//! agents and command validators do not see the provider keys of the process running rectify;
//! nothing rectify writes (output, store) holds a key; `rectify ask` agents get no key unless
//! `--pass-env` names it.

use std::process::Command;

/// Shell syntax in an input (and so in the prompt) stays data: the agent receives it
/// verbatim on stdin and nothing is executed.
#[test]
fn shell_syntax_in_values_stays_data_and_agents_never_see_the_keys() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    // Agents work in their own views of the tree: they log outside it.
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path();
    std::fs::write(
        p.join("workflow.yaml"),
        "name: sec\ninputs:\n  topic: {type: string}\nproviders:\n  sh: {kind: command, command: [sh, writer.sh]}\nagents:\n  writer: writer.md\ndefaults: {provider: sh, confine: off}\nsteps:\n  - id: w\n    agent: writer\n    prompt: \"Write about {{ inputs.topic }}\"\n    outputs: [{path: out.txt}]\n    validate:\n      validators: [{command: [sh, judge.sh]}]\n",
    )
    .unwrap();
    std::fs::write(
        p.join("writer.sh"),
        format!(
            "cat > '{0}/prompt.txt'\nenv > '{0}/writer-env.txt'\necho ok > out.txt\necho done\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("judge.sh"),
        format!("env > '{}/judge-env.txt'\n", log.display()),
    )
    .unwrap();
    std::fs::write(p.join("writer.md"), "---\nname: writer\n---\nYou write.\n").unwrap();
    let hostile = "x; touch pwned1 $(touch pwned2) `touch pwned3` | touch pwned4\nrm -rf .";
    let out = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["run", "workflow.yaml", "--output", "json", "--input"])
        .arg(format!("topic={hostile}"))
        .current_dir(p)
        .env("OPENAI_API_KEY", "sk-test-SECRET-0123456789")
        .env("ANTHROPIC_API_KEY", "sk-ant-SECRET-0123456789")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let prompt = std::fs::read_to_string(log.join("prompt.txt")).unwrap();
    assert!(
        prompt.contains(hostile),
        "the value reaches the agent verbatim: {prompt}"
    );
    for n in 1..=4 {
        assert!(
            !p.join(format!("pwned{n}")).exists(),
            "pwned{n} was created"
        );
    }
    for who in ["writer-env.txt", "judge-env.txt"] {
        let env = std::fs::read_to_string(log.join(who)).unwrap();
        assert!(!env.contains("SECRET"), "{who} holds a provider key");
        assert!(env.contains("RECTIFY_STEP=w"), "{who}: {env}");
    }
    // Nothing rectify wrote holds a key: its output, and every byte of its store.
    let mut written = out.stdout.clone();
    written.extend_from_slice(&out.stderr);
    for entry in std::fs::read_dir(p.join(".rectify")).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().contains("rectify.db") {
            written.extend(std::fs::read(&path).unwrap());
        }
    }
    let text = String::from_utf8_lossy(&written);
    assert!(!text.contains("SECRET"), "a key was written");
    assert!(text.contains("touch pwned1"), "the scan reads the store");
}

/// A schema's `$ref` reads only files under the schema's directory: one pointing at a secret
/// elsewhere is a configuration error (exit 2) that neither prints the secret nor uses it, with
/// a hint; `--refs-anywhere` allows it.
#[test]
fn schema_refs_outside_the_schema_directory_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("secret.json"), r#"{"api_key": "sk-do-not-print"}"#).unwrap();
    std::fs::write(p.join("defs.json"), r#"{"type": "integer"}"#).unwrap();
    std::fs::create_dir(p.join("s")).unwrap();
    std::fs::write(
        p.join("s/leak.json"),
        r#"{"properties": {"id": {"$ref": "../secret.json#/api_key"}}}"#,
    )
    .unwrap();
    std::fs::write(
        p.join("s/shared.json"),
        r#"{"properties": {"id": {"$ref": "../defs.json"}}}"#,
    )
    .unwrap();
    std::fs::write(p.join("doc.json"), r#"{"id": 1}"#).unwrap();
    let path = |f: &str| p.join(f).display().to_string();
    let leak = crate::support::run(&["check", &path("doc.json"), "--schema", &path("s/leak.json")]);
    assert_eq!(leak.code, 2, "{}", leak.stderr);
    assert!(
        leak.stderr.contains("outside the schema's directory"),
        "{}",
        leak.stderr
    );
    assert!(
        leak.stderr.contains("hint: `--refs-anywhere`"),
        "{}",
        leak.stderr
    );
    assert!(!format!("{}{}", leak.stdout, leak.stderr).contains("sk-do-not-print"));
    let shared = [
        "check",
        &path("doc.json"),
        "--schema",
        &path("s/shared.json"),
    ];
    assert_eq!(crate::support::run(&shared).code, 2);
    let allowed = crate::support::run(&[&shared[..], &["--refs-anywhere"]].concat());
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
}

/// `rectify ask` with an agent: the agent does not see the provider keys of the process
/// running rectify (issue 15, item 7), unless `--pass-env` names one.
#[test]
fn ask_agents_see_no_provider_key_unless_passed() {
    let script = r#"cat >/dev/null; printf '{"openai":"%s","anthropic":"%s"}' "${OPENAI_API_KEY:-absent}" "${ANTHROPIC_API_KEY:-absent}""#;
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("keys.schema.json");
    std::fs::write(&schema, r#"{"type": "object"}"#).unwrap();
    let ask = |extra: &[&str]| {
        let out = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
            .args(["ask", "give the keys", "--schema"])
            .arg(&schema)
            .args(extra)
            .args(["--", "sh", "-c", script])
            .env("OPENAI_API_KEY", "sk-test-SECRET-0123456789")
            .env("ANTHROPIC_API_KEY", "sk-ant-SECRET-0123456789")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let none = ask(&[]);
    assert_eq!(none["openai"], "absent");
    assert_eq!(none["anthropic"], "absent");
    let passed = ask(&["--pass-env", "ANTHROPIC_API_KEY"]);
    assert_eq!(passed["openai"], "absent");
    // Passed, and echoed: redacted in the answer (issue 34), never kept or printed.
    assert_eq!(passed["anthropic"], "***");
}

/// Issue 34, finding 2: an agent cannot read the keys removed from its environment in its
/// parent's, `/proc/$PPID/environ`: rectify is non-dumpable. Run as an unprivileged user
/// (root reads any process's environment whatever the process does): with `setpriv` when the
/// tests run as root.
#[test]
fn an_agent_cannot_read_rectifys_environment_through_proc() {
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let schema = dir.path().join("s.schema.json");
    std::fs::write(&schema, r#"{"type": "object"}"#).unwrap();
    let script = r#"cat >/dev/null; if tr '\0' '\n' < /proc/$PPID/environ 2>/dev/null | grep -q CANARY; then v=read; else v=refused; fi; printf '{"parent_env":"%s"}' "$v""#;
    let bin = assert_cmd::cargo::cargo_bin("rectify");
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    let out = cmd
        .args(["ask", "x", "--schema"])
        .arg(&schema)
        .args(["--", "sh", "-c", script])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("TMPDIR", dir.path())
        .env("OPENAI_API_KEY", "sk-CANARY-0123456789")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["parent_env"], "refused", "{stderr}");
}
