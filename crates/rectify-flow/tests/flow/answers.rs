//! Answer steps: the agent's answer is read with the step's format and checked; Markdown is
//! checked as a document (headings, sections, length), not forced into JSON.

use rectify_flow::RunStatus;

use crate::support::{Fixture, step};

#[test]
fn a_json_answer_is_repaired_checked_saved_and_readable_by_later_steps() {
    let f = Fixture::new();
    f.file(
        "n.schema.json",
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    f.script(
        "writer",
        r#"case "$RECTIFY_STEP" in
  count) printf 'Sure! ```json\n{"n": 3,}\n```' ;;
  *) cat "$LOG/writer-$n.txt" >/dev/null; echo done ;;
esac"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: count\n    agent: writer\n    prompt: count\n    answer: {{format: json, schema: n.schema.json, save: out/n.json}}\n  - id: use\n    needs: [count]\n    agent: writer\n    prompt: \"n is {{{{ steps.count.output.n }}}}\"\n    answer: {{format: text}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert!(step(&s, "count").repairs >= 1);
    let saved: serde_json::Value = serde_json::from_str(&f.read("out/n.json")).unwrap();
    assert_eq!(saved, serde_json::json!({"n": 3}));
    assert!(
        f.prompt("writer", 2).contains("n is 3"),
        "{}",
        f.prompt("writer", 2)
    );
}

#[test]
fn a_markdown_answer_is_checked_as_a_document_and_revised() {
    let f = Fixture::new();
    f.file(
        "plan.rules.yaml",
        "rules:\n  - id: tasks\n    markdown: {heading: \"^### Task \\\\d+:\", min_count: 2}\n  - id: goal\n    markdown: {section: \"^## Goal\", nonempty: true}\n",
    );
    f.script(
        "architect",
        r#"if grep -q 'PREVIOUS VALIDATION FAILED' "$LOG/architect-$n.txt"; then
  printf '# Plan\n\n## Goal\nShip it.\n\n### Task 1: a\n\n### Task 2: b\n'
else
  printf '# Plan\n\n### Task 1: a\n'
fi"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: architect\n    prompt: plan\n    answer: {{format: markdown, rules: plan.rules.yaml, save: plan.md}}\n    on_invalid: {{revise: 3}}\n",
        f.agents_yaml(&["architect"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(
        (step(&s, "plan").attempts, step(&s, "plan").revisions),
        (2, 1)
    );
    let second = f.prompt("architect", 2);
    assert!(second.contains("## PREVIOUS VALIDATION FAILED"), "{second}");
    assert!(
        second.contains("Goal"),
        "the section problem is fed back: {second}"
    );
    assert!(f.read("plan.md").contains("### Task 2: b"));
}

#[test]
fn a_markdown_answer_in_a_markdown_fence_after_a_line_of_prose_is_unwrapped_before_its_checks() {
    let f = Fixture::new();
    f.file(
        "plan.rules.yaml",
        "rules:\n  - id: tasks\n    markdown: {heading: \"^### Task \\\\d+:\", min_count: 2}\n  - id: goal\n    markdown: {section: \"^## Goal\", nonempty: true}\n",
    );
    f.script(
        "architect",
        r#"printf 'Here is the plan:\n\n```markdown\n# Plan\n\n## Goal\nShip it.\n\n```sh\ncargo test\n```\n\n### Task 1: a\n\n### Task 2: b\n```\n'"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: architect\n    prompt: plan\n    answer: {{format: markdown, rules: plan.rules.yaml, save: plan.md}}\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["architect"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let plan = step(&s, "plan");
    assert_eq!(
        (plan.attempts, plan.repairs),
        (1, 2),
        "the fence and the prose"
    );
    assert_eq!(
        f.read("plan.md"),
        "# Plan\n\n## Goal\nShip it.\n\n```sh\ncargo test\n```\n\n### Task 1: a\n\n### Task 2: b\n"
    );
}
