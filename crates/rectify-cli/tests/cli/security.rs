//! Commands and secrets in workflows (issue 15): a workflow's values never reach a shell, and
//! agents and command validators do not see the provider keys of the process running rectify;
//! nothing rectify writes (output, store) holds a key.

use std::process::Command;

/// Shell syntax in an input (and so in the prompt) stays data: the agent receives it
/// verbatim on stdin and nothing is executed.
#[test]
fn shell_syntax_in_values_stays_data_and_agents_never_see_the_keys() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("workflow.yaml"),
        "name: sec\ninputs:\n  topic: {type: string}\nproviders:\n  sh: {kind: command, command: [sh, writer.sh]}\nagents:\n  writer: writer.md\ndefaults: {provider: sh, confine: off}\nsteps:\n  - id: w\n    agent: writer\n    prompt: \"Write about {{ inputs.topic }}\"\n    outputs: [{path: out.txt}]\n    validate:\n      validators: [{command: [sh, judge.sh]}]\n",
    )
    .unwrap();
    std::fs::write(
        p.join("writer.sh"),
        "cat > .rectify/prompt.txt\nenv > .rectify/writer-env.txt\necho ok > out.txt\necho done\n",
    )
    .unwrap();
    std::fs::write(p.join("judge.sh"), "env > .rectify/judge-env.txt\n").unwrap();
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
    let prompt = std::fs::read_to_string(p.join(".rectify/prompt.txt")).unwrap();
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
        let env = std::fs::read_to_string(p.join(".rectify").join(who)).unwrap();
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
