//! Resume: decisions on what a run waits for, and exact continuation from the store.

use std::sync::Arc;

use rectify_flow::{Decision, RunStatus, RunSummary, Store, resume};

use crate::support::{Fixture, step};

fn resume_with(
    f: &Fixture,
    store: &Arc<Store>,
    run: &str,
    decision: Decision,
) -> Result<RunSummary, rectify_flow::RunError> {
    let options = rectify_flow::RunOptions::new(&f.work);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(resume(Arc::clone(store), run, decision, options))
}

fn gated(f: &Fixture) {
    f.script("writer", r#"echo "v$n" > spec.txt"#);
    f.script("coder", r#"echo done > code.txt"#);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: spec\n    agent: writer\n    prompt: write\n    outputs: [{{path: spec.txt}}]\n  - id: approve\n    needs: [spec]\n    human: \"ok?\"\n  - id: code\n    needs: [approve]\n    agent: coder\n    prompt: code\n    outputs: [{{path: code.txt}}]\n",
        f.agents_yaml(&["writer", "coder"])
    ));
}

#[test]
fn approving_a_human_step_continues_without_running_finished_steps_again() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    assert_eq!(
        step(&s, "code").status,
        "pending",
        "steps not started are listed"
    );
    let again = resume_with(&f, &store, &s.run_id, Decision::Continue).unwrap();
    assert_eq!(
        again.status,
        RunStatus::Waiting,
        "no decision: still waiting"
    );
    let done = resume_with(&f, &store, &s.run_id, Decision::Approve { step: None }).unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!((f.calls("writer"), f.calls("coder")), (1, 1));
    assert_eq!(step(&done, "approve").verdict.as_deref(), Some("APPROVED"));
    let again = resume_with(&f, &store, &s.run_id, Decision::Continue).unwrap();
    assert_eq!(again.status, RunStatus::Completed);
    assert!(again.notes[0].contains("completed"), "{again:#?}");
    assert_eq!(
        (f.calls("writer"), f.calls("coder")),
        (1, 1),
        "a completed run is not run again"
    );
    assert!(
        resume_with(&f, &store, &s.run_id, Decision::Approve { step: None }).is_err(),
        "nothing waits for a decision"
    );
}

#[test]
fn rejecting_at_a_human_step_sends_the_persons_words_to_the_producer() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    let feedback = Decision::Reject {
        step: Some("approve".into()),
        feedback: "Name the owner.".into(),
    };
    let again = resume_with(&f, &store, &s.run_id, feedback).unwrap();
    assert_eq!(again.status, RunStatus::Waiting, "the gate asks again");
    assert_eq!(f.calls("writer"), 2);
    let second = f.prompt("writer", 2);
    assert!(
        second.contains(
            "A person reviewed your previous work and asks for these changes:\nName the owner."
        ),
        "{second}"
    );
    assert_eq!(f.read("spec.txt"), "v2\n");
    assert_eq!(f.calls("coder"), 0);
}

#[test]
fn approving_an_exhausted_step_records_it_as_accepted_with_its_errors_never_as_valid() {
    let f = Fixture::new();
    f.file("s.json", r#"{"required": ["goal"]}"#);
    f.script("writer", r#"echo '{}' > spec.json"#);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: spec\n    agent: writer\n    prompt: write\n    outputs: [{{path: spec.json, schema: s.json}}]\n    on_invalid: {{revise: 1}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    let rejected = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Reject {
            step: None,
            feedback: "add a goal".into(),
        },
    )
    .unwrap();
    assert_eq!(
        rejected.status,
        RunStatus::Waiting,
        "counters kept: one more run, then exhausted again"
    );
    assert_eq!(f.calls("writer"), 3);
    assert!(f.prompt("writer", 3).contains("add a goal"));
    let done = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Approve {
            step: Some("spec".into()),
        },
    )
    .unwrap();
    assert_eq!(done.status, RunStatus::Completed);
    let spec = step(&done, "spec");
    assert_eq!(spec.status, "done_with_warnings");
    assert_eq!(spec.verdict.as_deref(), Some("ACCEPTED_BY_PERSON"));
    assert_eq!(spec.warnings, ["accepted by a person with 1 error"]);
}

#[test]
fn an_interrupted_step_replays_its_recorded_answer_instead_of_asking_again() {
    let f = Fixture::new();
    f.script("writer", r#"echo ok > a.txt; echo "the answer""#);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: writer\n    prompt: write\n    outputs: [{{path: a.txt}}]\n  - id: b\n    needs: [a]\n    agent: writer\n    prompt: again\n    answer: {{format: text}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed);
    assert_eq!(f.calls("writer"), 2);
    // As if the process died after step b's answer was recorded but before it was checked.
    let mut b = store
        .steps(&s.run_id)
        .unwrap()
        .into_iter()
        .find(|r| r.id == "b")
        .unwrap();
    b.status = rectify_flow::store::StepStatusField(rectify_flow::store::StepStatus::Running);
    b.attempts = 1;
    store.put_step(&s.run_id, &b, "started").unwrap();
    store.set_run_status(&s.run_id, RunStatus::Running).unwrap();
    let resumed = resume_with(&f, &store, &s.run_id, Decision::Continue).unwrap();
    assert_eq!(resumed.status, RunStatus::Completed, "{resumed:#?}");
    assert_eq!(
        f.calls("writer"),
        2,
        "no finished step and no recorded call is made again"
    );
    assert_eq!(step(&resumed, "b").attempts, 1);
}

/// The torture test's failure (seed 7): an agent's change set touched a file it does not
/// declare (`log.txt`, applied under `report` confinement); a command validator then appended
/// to it in the shared tree; the process died before the step was done. Replaying the
/// agent's call must not put `log.txt` back as the agent left it: the validator's line (whose
/// verdict is replayed, so it never runs again) would be lost.
#[test]
fn a_replay_restores_declared_outputs_only_never_a_later_change_to_another_file() {
    let f = Fixture::new();
    f.script("writer", r#"echo ok > a.txt; echo writer >> log.txt"#);
    f.file(
        "judge.sh",
        "echo judge >> log.txt
",
    );
    let judge = f.root.join("judge.sh");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: writer\n    prompt: write\n    outputs: [{{path: a.txt}}]\n    validate:\n      validators: [{{command: [sh, \"{}\"]}}]\n",
        f.agents_yaml(&["writer"]),
        judge.display()
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(f.read("log.txt"), "writer\njudge\n");
    // As if the process died after the verdict was recorded, before the step was done.
    let mut a = store
        .steps(&s.run_id)
        .unwrap()
        .into_iter()
        .find(|r| r.id == "a")
        .unwrap();
    a.status = rectify_flow::store::StepStatusField(rectify_flow::store::StepStatus::Running);
    a.validations = 0;
    store.put_step(&s.run_id, &a, "started").unwrap();
    store.set_run_status(&s.run_id, RunStatus::Running).unwrap();
    let resumed = resume_with(&f, &store, &s.run_id, Decision::Continue).unwrap();
    assert_eq!(resumed.status, RunStatus::Completed, "{resumed:#?}");
    assert_eq!(f.calls("writer"), 1, "the agent's answer is replayed");
    assert_eq!(f.read("a.txt"), "ok\n");
    assert_eq!(
        f.read("log.txt"),
        "writer\njudge\n",
        "the validator's line, written after the agent's call, is kept"
    );
}

#[test]
fn an_edit_is_checked_like_any_output_an_invalid_one_is_put_back() {
    let f = Fixture::new();
    f.file("s.json", r#"{"required": ["goal"]}"#);
    f.script("writer", r#"echo '{}' > spec.json"#);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: spec\n    agent: writer\n    prompt: write\n    outputs: [{{path: spec.json, schema: s.json}}]\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    let bad = f.file("bad.json", r#"{"title": "no goal"}"#);
    let edit = |file| Decision::Edit {
        step: None,
        edits: vec![("spec.json".to_owned(), file)],
    };
    let shown = resume_with(&f, &store, &s.run_id, edit(bad)).unwrap();
    assert_eq!(shown.status, RunStatus::Waiting);
    assert!(shown.notes[0].contains("not accepted"), "{:?}", shown.notes);
    assert_eq!(
        shown.waiting.unwrap().diagnostics[0].code,
        "schema.required"
    );
    assert_eq!(f.read("spec.json"), "{}\n", "the invalid edit was put back");
    let good = f.file("good.json", r#"{"goal": "ship"}"#);
    let done = resume_with(&f, &store, &s.run_id, edit(good)).unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(
        step(&done, "spec").verdict.as_deref(),
        Some("EDITED_BY_PERSON")
    );
    assert_eq!(f.read("spec.json"), r#"{"goal": "ship"}"#);
    assert_eq!(f.calls("writer"), 1, "no agent ran for the edit");
}

#[test]
fn an_edit_at_a_human_step_replaces_what_the_gate_shows_and_lets_the_run_go_on() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    let mine = f.file("mine.txt", "the person's spec\n");
    let wrong = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Edit {
            step: None,
            edits: vec![("code.txt".into(), mine.clone())],
        },
    );
    assert!(
        wrong.is_err_and(|e| e
            .to_string()
            .contains("not an output of a step that `approve` needs")),
        "only what the gate's needs wrote can be edited"
    );
    let done = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Edit {
            step: None,
            edits: vec![("spec.txt".into(), mine)],
        },
    )
    .unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(f.read("spec.txt"), "the person's spec\n");
    assert_eq!((f.calls("writer"), f.calls("coder")), (1, 1));
    assert_eq!(
        step(&done, "approve").verdict.as_deref(),
        Some("EDITED_BY_PERSON")
    );
    assert_eq!(
        step(&done, "spec").verdict.as_deref(),
        Some("EDITED_BY_PERSON")
    );
}

#[test]
fn an_edit_of_an_exhausted_foreach_item_finishes_that_item_only() {
    let f = Fixture::new();
    f.file(
        "n.schema.json",
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    f.file(
        "plan.json",
        r#"{"tasks": [{"id": "t1"}, {"id": "t2"}, {"id": "t3", "after": ["t2"]}]}"#,
    );
    std::fs::copy(f.root.join("plan.json"), f.work.join("plan.json")).unwrap();
    // t2's coder never gets the type right.
    f.script(
        "coder",
        r#"mkdir -p work
case "$RECTIFY_OUTPUTS" in
  *t2*) echo '{"n": "two"}' > "$RECTIFY_OUTPUTS" ;;
  *) echo '{"n": 1}' > "$RECTIFY_OUTPUTS" ;;
esac"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: build\n    foreach: {{document: plan.json, items: \"$.tasks[*]\", key: \"$.id\", needs: \"$.after\"}}\n    agent: coder\n    prompt: \"do {{{{ item.id }}}}\"\n    outputs: [{{path: \"work/{{{{ item.id }}}}.json\", schema: n.schema.json}}]\n    on_invalid: {{revise: 1}}\n",
        f.agents_yaml(&["coder"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting, "{s:#?}");
    assert_eq!(s.waiting.as_ref().unwrap().step, "build[t2]");
    let before = f.calls("coder");
    let mine = f.file("t2.json", "{\"n\": 2}\n");
    let done = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Edit {
            step: None,
            edits: vec![("work/t2.json".into(), mine)],
        },
    )
    .unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(f.read("work/t2.json"), "{\"n\": 2}\n");
    assert_eq!(
        step(&done, "build[t2]").verdict.as_deref(),
        Some("EDITED_BY_PERSON")
    );
    assert_eq!(
        f.calls("coder"),
        before + 1,
        "only t3 (which needs t2) runs; t1 and t2 are not run again"
    );
}

#[test]
fn one_approve_records_exactly_one_approved_event() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    resume_with(&f, &store, &s.run_id, Decision::Approve { step: None }).unwrap();
    let approved: Vec<_> = store
        .events(&s.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "approved")
        .collect();
    assert_eq!(approved.len(), 1, "{approved:#?}");
}

#[test]
fn an_edit_at_a_human_step_records_one_edited_event_for_the_gate() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    let mine = f.file("mine.txt", "the person's spec\n");
    resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Edit {
            step: None,
            edits: vec![("spec.txt".into(), mine)],
        },
    )
    .unwrap();
    let gate: Vec<String> = store
        .events(&s.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| e.step == "approve" && e.kind == "edited")
        .map(|e| e.kind)
        .collect();
    assert_eq!(gate.len(), 1, "{gate:?}");
}

/// An answer step with `save:` whose answer never passes its rules (a `## Goal` section).
fn unsaved_plan(f: &Fixture) {
    f.file(
        "plan.rules.yaml",
        "rules:\n  - id: goal\n    markdown: {section: \"^## Goal\", nonempty: true}\n",
    );
    f.script("architect", r#"printf '# Plan\n\nno goal yet\n'"#);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: architect\n    prompt: plan\n    answer: {{format: markdown, rules: plan.rules.yaml, save: out/plan.md}}\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["architect"])
    ));
}

#[test]
fn approving_an_exhausted_answer_writes_its_save_file() {
    let f = Fixture::new();
    unsaved_plan(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting, "{s:#?}");
    assert!(!f.work.join("out/plan.md").exists());
    let done = resume_with(&f, &store, &s.run_id, Decision::Approve { step: None }).unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(f.read("out/plan.md"), "# Plan\n\nno goal yet\n");
}

#[test]
fn editing_an_exhausted_answer_writes_the_edit_to_its_save_file() {
    let f = Fixture::new();
    unsaved_plan(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting, "{s:#?}");
    let mine = f.file("mine.md", "# Plan\n\n## Goal\nShip it.\n");
    let done = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Edit {
            step: None,
            edits: vec![("out/plan.md".into(), mine)],
        },
    )
    .unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(f.read("out/plan.md"), "# Plan\n\n## Goal\nShip it.\n");
    assert_eq!(
        step(&done, "plan").verdict.as_deref(),
        Some("EDITED_BY_PERSON")
    );
}

#[test]
fn an_edit_of_work_its_validators_failed_is_judged_by_them_before_the_step_is_done() {
    let f = Fixture::new();
    f.script("coder", r#"echo "sloppy work" > work.txt"#);
    f.script(
        "validator",
        r#"if grep -q careful work.txt; then echo '**Verdict: PASS**'; else printf -- '- [FAIL] sloppy (work.txt:1)\n**Verdict: FAIL**\n'; fi"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: code\n    agent: coder\n    prompt: implement it\n    outputs: [{{path: work.txt}}]\n    validate: {{validators: [validator], max_validation_attempts: 0}}\n",
        f.agents_yaml(&["coder", "validator"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting, "{s:#?}");
    assert_eq!(f.calls("validator"), 1);
    let edit = |file| Decision::Edit {
        step: None,
        edits: vec![("work.txt".to_owned(), file)],
    };
    let still_sloppy = f.file("sloppy.txt", "more sloppy work\n");
    let shown = resume_with(&f, &store, &s.run_id, edit(still_sloppy)).unwrap();
    assert_eq!(shown.status, RunStatus::Waiting, "{shown:#?}");
    assert_eq!(f.calls("validator"), 2, "the validator judged the edit");
    assert!(shown.notes[0].contains("not accepted"), "{:?}", shown.notes);
    let waiting = shown.waiting.unwrap();
    assert!(
        waiting
            .diagnostics
            .iter()
            .any(|d| d.message.contains("sloppy")),
        "{waiting:#?}"
    );
    assert_eq!(
        f.read("work.txt"),
        "sloppy work\n",
        "the refused edit was put back"
    );
    let careful = f.file("careful.txt", "careful work\n");
    let done = resume_with(&f, &store, &s.run_id, edit(careful)).unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(f.calls("validator"), 3);
    assert_eq!(f.read("work.txt"), "careful work\n");
    assert_eq!(
        step(&done, "code").verdict.as_deref(),
        Some("EDITED_BY_PERSON")
    );
    assert_eq!(f.calls("coder"), 1, "no producer ran for the edits");
}

#[test]
fn a_failed_branch_leaves_an_independent_waiting_branch_resumable() {
    let f = Fixture::new();
    f.file("s.json", r#"{"required": ["goal"]}"#);
    f.script("writer", r#"echo '{}' > "$RECTIFY_STEP.json""#);
    f.script("coder", r#"echo done > code.txt"#);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: strict\n    agent: writer\n    prompt: write\n    outputs: [{{path: strict.json, schema: s.json}}]\n    on_invalid: {{revise: 0}}\n    on_exhausted: fail\n  - id: lenient\n    agent: writer\n    prompt: write\n    outputs: [{{path: lenient.json, schema: s.json}}]\n    on_invalid: {{revise: 0}}\n  - id: code\n    needs: [lenient]\n    agent: coder\n    prompt: code\n    outputs: [{{path: code.txt}}]\n",
        f.agents_yaml(&["writer", "coder"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(
        s.status,
        RunStatus::Waiting,
        "something still waits: {s:#?}"
    );
    assert_eq!(step(&s, "strict").status, "failed");
    assert_eq!(step(&s, "lenient").status, "waiting");
    assert_eq!(s.waiting.as_ref().unwrap().step, "lenient");
    let shown = rectify_flow::RunSummary::load(&store, &s.run_id).unwrap();
    assert_eq!(
        (
            step(&shown, "strict").status.as_str(),
            step(&shown, "lenient").status.as_str()
        ),
        ("failed", "waiting")
    );
    let done = resume_with(
        &f,
        &store,
        &s.run_id,
        Decision::Approve {
            step: Some("lenient".into()),
        },
    )
    .unwrap();
    assert_eq!(
        done.status,
        RunStatus::Failed,
        "nothing waits any more and a step failed: {done:#?}"
    );
    assert_eq!(
        step(&done, "code").status,
        "done",
        "the approved branch went on"
    );
    assert_eq!(step(&done, "strict").status, "failed");
    assert_eq!(
        (f.calls("writer"), f.calls("coder")),
        (2, 1),
        "the failed step is not run again"
    );
}

/// Copies `from` (a directory tree, the store included) to `to`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn resume_in(
    dir: &std::path::Path,
    run: &str,
    decision: Decision,
) -> Result<RunSummary, rectify_flow::RunError> {
    let store = Arc::new(Store::open_existing(dir).unwrap().expect("a store"));
    let options = rectify_flow::RunOptions::new(dir);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(resume(store, run, decision, options))
}

#[test]
fn a_copy_of_the_working_directory_resumes_in_the_copy() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    drop(store);
    let copy = f.root.join("copy");
    copy_tree(&f.work, &copy);
    let done = resume_in(&copy, &s.run_id, Decision::Approve { step: None }).unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(
        std::fs::read_to_string(copy.join("code.txt")).unwrap(),
        "done\n"
    );
    assert!(
        !f.work.join("code.txt").exists(),
        "nothing is written in the original directory"
    );
    let copy_dir = copy.canonicalize().unwrap();
    assert!(
        done.notes
            .iter()
            .any(|n| n.contains(&copy_dir.display().to_string())),
        "the resume says which directory it uses: {:?}",
        done.notes
    );
}

#[test]
fn a_moved_working_directory_resumes_where_it_is() {
    let f = Fixture::new();
    gated(&f);
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    drop(store);
    let moved = f.root.join("moved");
    std::fs::rename(&f.work, &moved).unwrap();
    let done = resume_in(&moved, &s.run_id, Decision::Approve { step: None }).unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{done:#?}");
    assert_eq!(
        std::fs::read_to_string(moved.join("code.txt")).unwrap(),
        "done\n"
    );
    assert!(!f.work.exists());
}
