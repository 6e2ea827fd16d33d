//! Every route of the validate/repair pair, driven by script agents, asserting what each
//! agent received and what the store kept.

use rectify_flow::RunStatus;

use crate::support::{Fixture, step};

const SCHEMA: &str = r#"{"title": "A feature spec", "type": "object", "required": ["title", "goal"],
  "properties": {"title": {"type": "string"}, "goal": {"type": "string"}}}"#;

fn spec_workflow(f: &Fixture, agents: &[&str], on_invalid: &str, extra: &str) {
    f.file("spec.schema.json", SCHEMA);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: spec\n    agent: writer\n    prompt: \"Write the spec\"\n    outputs:\n      - {{path: spec.json, schema: spec.schema.json}}\n{on_invalid}{extra}",
        f.agents_yaml(agents)
    ));
}

#[test]
fn valid_at_once() {
    let f = Fixture::new();
    f.script(
        "writer",
        r#"printf '{"title": "a", "goal": "b"}' > spec.json"#,
    );
    spec_workflow(&f, &["writer"], "", "");
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed);
    let spec = step(&s, "spec");
    assert_eq!(
        (spec.status.as_str(), spec.attempts, spec.repairs),
        ("done", 1, 0)
    );
    let prompt = f.prompt("writer", 1);
    assert!(prompt.starts_with("You are the writer."), "{prompt}");
    assert!(
        prompt.contains("- spec.json (json): A feature spec"),
        "{prompt}"
    );
    let calls = store.calls(&s.run_id).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].role, "producer");
}

#[test]
fn deterministic_repair_fixes_without_a_model_call_and_keeps_the_original() {
    let f = Fixture::new();
    f.script(
        "writer",
        r#"printf '```json\n{"title": "a", "goal": "b",}\n```' > spec.json"#,
    );
    spec_workflow(&f, &["writer"], "    on_invalid: {revise: 2}\n", "");
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let spec = step(&s, "spec");
    assert_eq!(spec.attempts, 1);
    assert!(spec.repairs >= 1);
    assert_eq!(f.calls("writer"), 1);
    let fixed: serde_json::Value = serde_json::from_str(&f.read("spec.json")).unwrap();
    assert_eq!(fixed, serde_json::json!({"title": "a", "goal": "b"}));
    let bytes = store_original(&store);
    assert!(
        bytes.contains("\"goal\": \"b\",}"),
        "the original is kept: {bytes}"
    );
}

fn store_original(store: &rectify_flow::Store) -> String {
    // The original's hash is that of the agent's bytes.
    let original = "```json\n{\"title\": \"a\", \"goal\": \"b\",}\n```";
    let hash = rectify_flow::load::hex(&sha2_digest(original.as_bytes()));
    String::from_utf8(store.artifact(&hash).unwrap().expect("original stored")).unwrap()
}

fn sha2_digest(bytes: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).to_vec()
}

#[test]
fn the_repair_agent_fixes_on_its_second_run() {
    let f = Fixture::new();
    f.script("writer", r#"printf '{"title": "a"}' > spec.json"#);
    f.script(
        "fixer",
        r#"if [ "$n" -ge 2 ]; then printf '{"title": "a", "goal": "g"}' > spec.json; fi"#,
    );
    spec_workflow(
        &f,
        &["writer", "fixer"],
        "    on_invalid: {repair: fixer, max: 3}\n",
        "",
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let spec = step(&s, "spec");
    assert_eq!((spec.attempts, spec.repair_runs, spec.revisions), (1, 2, 0));
    let prompt = f.prompt("fixer", 1);
    assert!(prompt.starts_with("You are the fixer."));
    assert!(
        prompt.contains("write only these files: spec.json"),
        "{prompt}"
    );
    assert!(
        prompt.contains("missing required field \"goal\""),
        "{prompt}"
    );
    assert!(
        prompt.contains("{\"title\": \"a\"}"),
        "the current content is given: {prompt}"
    );
}

#[test]
fn an_exhausted_repair_agent_escalates_and_the_wait_says_why() {
    let f = Fixture::new();
    f.script("writer", r#"printf '{"title": "a"}' > spec.json"#);
    f.script("fixer", "true");
    spec_workflow(
        &f,
        &["writer", "fixer"],
        "    on_invalid: {repair: fixer, max: 2}\n",
        "",
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    assert_eq!(f.calls("fixer"), 2);
    let w = s.waiting.as_ref().unwrap();
    assert_eq!((w.step.as_str(), w.reason.as_str()), ("spec", "exhausted"));
    assert_eq!(w.files, ["spec.json"]);
    assert_eq!(w.diagnostics[0].code, "schema.required");
    assert!(
        w.message
            .as_deref()
            .unwrap()
            .contains("repair agent ran 2 of 2")
    );
    assert_eq!(step(&s, "spec").status, "waiting");
}

#[test]
fn revise_three_times_then_escalate_with_the_problems_as_feedback() {
    let f = Fixture::new();
    f.script("writer", r#"printf '{"title": 5}' > spec.json"#);
    spec_workflow(&f, &["writer"], "    on_invalid: {revise: 3}\n", "");
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    let spec = step(&s, "spec");
    assert_eq!((spec.attempts, spec.revisions), (4, 3));
    assert!(!f.prompt("writer", 1).contains("PREVIOUS VALIDATION FAILED"));
    let second = f.prompt("writer", 2);
    let block = second.find("## PREVIOUS VALIDATION FAILED").expect(&second);
    assert!(
        block < second.find("Write the spec").unwrap(),
        "prefix mode: {second}"
    );
    assert!(
        second.contains("- spec.json: line 1, column 1: missing required field \"goal\""),
        "{second}"
    );
}

#[test]
fn on_exhausted_fail_fails_the_run_and_skips_dependents() {
    let f = Fixture::new();
    f.script("writer", r#"printf 'nothing useful' > spec.json"#);
    spec_workflow(
        &f,
        &["writer"],
        "    on_invalid: {revise: 1}\n    on_exhausted: fail\n",
        "  - id: after\n    needs: [spec]\n    human: \"ok?\"\n",
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Failed);
    assert_eq!(step(&s, "spec").status, "failed");
    assert_eq!(step(&s, "after").status, "skipped");
    assert!(s.waiting.is_none());
}

#[test]
fn a_missing_output_and_a_failing_agent_are_content_problems() {
    let f = Fixture::new();
    f.script("writer", r#"if [ "$n" = 1 ]; then echo boom >&2; exit 3; fi; printf '{"title": "a", "goal": "b"}' > spec.json"#);
    spec_workflow(&f, &["writer"], "    on_invalid: {revise: 1}\n", "");
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let second = f.prompt("writer", 2);
    assert!(
        second.contains("the agent exited with status 3"),
        "{second}"
    );
    assert!(second.contains("`spec.json` was not written"), "{second}");
}

#[test]
fn cross_file_reference_broken_gives_the_repair_agent_both_files() {
    let f = Fixture::new();
    f.file("rules.yaml", "rules:\n  - id: phase\n    each: \"$.tasks[*].phaseId\"\n    in: \"plan:$.phases[*].id\"\n");
    f.script(
        "writer",
        "printf 'phases:\\n  - id: p1\\n' > plan.yaml\nprintf 'tasks:\\n  - id: t1\\n    phaseId: p9\\n' > tasks.yaml",
    );
    f.script(
        "fixer",
        "printf 'tasks:\\n  - id: t1\\n    phaseId: p1\\n' > tasks.yaml",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: writer\n    prompt: plan it\n    outputs:\n      - {{path: plan.yaml}}\n      - {{path: tasks.yaml, rules: rules.yaml, refs: {{plan: plan.yaml}}}}\n    on_invalid: {{repair: fixer}}\n",
        f.agents_yaml(&["writer", "fixer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let prompt = f.prompt("fixer", 1);
    assert!(
        prompt.contains("## tasks.yaml") && prompt.contains("## plan.yaml"),
        "{prompt}"
    );
    assert!(
        prompt.contains("write only these files: tasks.yaml, plan.yaml"),
        "{prompt}"
    );
    assert!(prompt.contains("tasks.yaml:3:14"), "located: {prompt}");
}

#[test]
fn error_memory_of_earlier_steps_reaches_later_prompts() {
    let f = Fixture::new();
    f.file("spec.schema.json", SCHEMA);
    f.script(
        "writer",
        r#"case "$RECTIFY_STEP:$n" in
  one:1) printf '{"title": "a"}' > one.json ;;
  *) printf '{"title": "a", "goal": "b"}' > "$RECTIFY_STEP.json" ;;
esac"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: one\n    agent: writer\n    prompt: one\n    outputs: [{{path: one.json, schema: spec.schema.json}}]\n  - id: two\n    needs: [one]\n    agent: writer\n    prompt: two\n    outputs: [{{path: two.json, schema: spec.schema.json}}]\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    // Call 2 is step one's revision (its own mistake is in the feedback, not the memory);
    // call 3 is step two, which is reminded of step one's mistake.
    let third = f.prompt("writer", 3);
    assert!(third.contains("missing required field \"goal\""), "{third}");
    assert!(!third.contains("PREVIOUS VALIDATION FAILED"), "{third}");
}

#[test]
fn a_missing_reference_document_is_named_relative_to_the_working_directory() {
    let f = Fixture::new();
    f.file("rules.yaml", "rules:\n  - id: phase\n    each: \"$.tasks[*].phaseId\"\n    in: \"plan:$.phases[*].id\"\n");
    f.script(
        "writer",
        "printf 'tasks:\\n  - id: t1\\n    phaseId: p1\\n' > tasks.yaml",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: writer\n    prompt: plan it\n    outputs:\n      - {{path: tasks.yaml, rules: rules.yaml, refs: {{plan: specs/plan.yaml}}}}\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting, "{s:#?}");
    let w = s.waiting.unwrap();
    let d = w
        .diagnostics
        .iter()
        .find(|d| d.code == "flow.reference")
        .unwrap_or_else(|| panic!("{:?}", w.diagnostics));
    assert!(
        d.message
            .starts_with("the reference document `specs/plan.yaml` cannot be read"),
        "{}",
        d.message
    );
    let root = f.root.display().to_string();
    assert!(
        !d.message.contains(&root),
        "no absolute path: {}",
        d.message
    );
}

const COUNTED: &str = r#"{"type": "object", "required": ["title", "count"],
  "properties": {"title": {"type": "string"}, "count": {"type": "integer"}}}"#;

fn yaml_workflow(f: &Fixture, agents: &[&str], on_invalid: &str) {
    f.file("spec.schema.json", COUNTED);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: spec\n    agent: writer\n    prompt: \"Write the spec\"\n    outputs:\n      - {{path: spec.yaml, schema: spec.schema.json}}\n{on_invalid}",
        f.agents_yaml(agents)
    ));
}

#[test]
fn a_yaml_output_repaired_deterministically_stays_yaml_with_only_the_fixes_changed() {
    let f = Fixture::new();
    f.script(
        "writer",
        "printf '# the spec\\ntitle: Fix: the login\\ncount: \"3\"\\n' > spec.yaml",
    );
    yaml_workflow(&f, &["writer"], "    on_invalid: {revise: 0}\n");
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "spec").repairs, 2);
    assert_eq!(
        f.read("spec.yaml"),
        "# the spec\ntitle: \"Fix: the login\"\ncount: 3\n"
    );
}

#[test]
fn the_repair_agent_is_shown_the_repaired_yaml_and_locations_in_it() {
    let f = Fixture::new();
    f.script(
        "writer",
        "printf 'title: Fix: the login\\nnotes:\\n\\t- one\\ncount: many\\n' > spec.yaml",
    );
    f.script(
        "fixer",
        "printf 'title: \"Fix: the login\"\\nnotes:\\n  - one\\ncount: 3\\n' > spec.yaml",
    );
    yaml_workflow(
        &f,
        &["writer", "fixer"],
        "    on_invalid: {repair: fixer}\n",
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let prompt = f.prompt("fixer", 1);
    assert!(
        prompt.contains("```\ntitle: \"Fix: the login\"\nnotes:\n  - one\ncount: many\n```"),
        "the YAML as repaired: {prompt}"
    );
    assert!(prompt.contains("- spec.yaml:4:8: count:"), "{prompt}");
}
