//! Agents that misbehave: hang, write too much, print garbage, write through a symlink.

use std::time::Instant;

use rectify_flow::RunStatus;

use crate::support::{Fixture, step};

#[test]
fn a_hanging_agent_is_stopped_with_its_children_and_the_step_routes() {
    let f = Fixture::new();
    f.script(
        "writer",
        r#"sleep 30 & echo $! > "$LOG/child.pid"; sleep 30"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: w\n    agent: writer\n    prompt: go\n    outputs: [{{path: out.txt}}]\n    timeout_secs: 1\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["writer"])
    ));
    let start = Instant::now();
    let (s, _) = f.run(&[]);
    assert!(
        start.elapsed().as_secs() < 15,
        "stopped after its time limit"
    );
    assert_eq!(s.status, RunStatus::Waiting);
    let codes: Vec<String> = s
        .waiting
        .unwrap()
        .diagnostics
        .iter()
        .map(|d| d.code.clone())
        .collect();
    assert!(codes.contains(&"agent.timeout".to_owned()), "{codes:?}");
    let pid = std::fs::read_to_string(f.log.join("child.pid")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let alive = std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
        && !std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .unwrap_or_default()
            .contains(") Z ");
    assert!(
        !alive,
        "the agent's background child was killed with its process group"
    );
}

#[test]
fn an_oversized_or_garbage_output_is_a_diagnostic_not_a_crash() {
    let f = Fixture::new();
    f.script(
        "writer",
        "head -c 200000 /dev/zero > big.json; printf '\\377\\376garbage' > bin.json",
    );
    f.workflow(&format!(
        "name: t\n{}defaults: {{max_output_bytes: 100000}}\nsteps:\n  - id: w\n    agent: writer\n    prompt: go\n    outputs: [{{path: big.json}}, {{path: bin.json}}]\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    let w = s.waiting.unwrap();
    let messages: Vec<&str> = w.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("more than the limit of 100000")),
        "{messages:?}"
    );
    assert!(
        w.diagnostics.iter().any(|d| d.code == "parse.encoding"),
        "{messages:?}"
    );
}

#[test]
fn an_output_path_through_a_symlink_out_of_the_workdir_is_refused() {
    let f = Fixture::new();
    std::os::unix::fs::symlink(&f.log, f.work.join("escape")).unwrap();
    f.script("writer", "true");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: w\n    agent: writer\n    prompt: go\n    outputs: [{{path: escape/x.json}}]\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Failed);
    assert_eq!(f.calls("writer"), 0, "refused before the agent ran");
    let w = step(&s, "w");
    assert!(
        w.diagnostics[0].message.contains("symlink"),
        "{:?}",
        w.diagnostics
    );
}

#[test]
fn a_missing_required_input_and_an_unknown_input_are_reported_together() {
    let f = Fixture::new();
    f.script("writer", "true");
    let path = f.workflow(&format!(
        "name: t\ninputs:\n  topic: {{type: string}}\n  n: {{type: integer, default: \"2\"}}\n{}steps:\n  - id: w\n    agent: writer\n    prompt: \"{{{{ inputs.topic }}}} {{{{ inputs.n }}}}\"\n",
        f.agents_yaml(&["writer"])
    ));
    let wf = rectify_flow::load(&path).unwrap();
    let store = std::sync::Arc::new(rectify_flow::Store::open(&f.work).unwrap());
    let mut options = rectify_flow::RunOptions::new(&f.work);
    options.inputs = vec![("topc".into(), "x".into()), ("n".into(), "two".into())];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let Err(e @ rectify_flow::RunError::Config(_)) =
        rt.block_on(rectify_flow::run(wf, store, options))
    else {
        panic!("inputs must be checked before the run starts");
    };
    let rectify_flow::RunError::Config(problems) = &e else {
        unreachable!()
    };
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert_eq!(f.calls("writer"), 0);
    // The one message every front end prints: the count, then each problem on its own line.
    let message = e.to_string();
    assert!(
        message.starts_with("the run cannot go on (3 problems):\n  --input: "),
        "{message}"
    );
    assert_eq!(message.lines().count(), 4, "{message}");
}
