//! Validators, `foreach` and confinement.

use rectify_flow::RunStatus;

use crate::support::{Fixture, step};

fn validated(f: &Fixture, verdicts: &str, max: u32) {
    f.script("coder", r#"echo "work $n" > "work.txt""#);
    f.script("validator", verdicts);
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: code\n    agent: coder\n    prompt: implement it\n    outputs: [{{path: work.txt}}]\n    validate: {{validators: [validator], max_validation_attempts: {max}}}\n",
        f.agents_yaml(&["coder", "validator"])
    ));
}

#[test]
fn pass_accepts() {
    let f = Fixture::new();
    validated(&f, "echo '**Verdict: PASS**'", 1);
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed);
    let code = step(&s, "code");
    assert_eq!((code.verdict.as_deref(), code.attempts), (Some("PASS"), 1));
    let prompt = f.prompt("validator", 1);
    assert!(
        prompt.contains("Review the work of the step `code`") && prompt.contains("work 1"),
        "{prompt}"
    );
}

#[test]
fn warn_accepts_and_records() {
    let f = Fixture::new();
    validated(
        &f,
        "printf '**Findings:**\\n- [WARN] no tests (work.txt:1)\\n\\n**Verdict: WARN**\\n'",
        1,
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed);
    let code = step(&s, "code");
    assert_eq!(code.status, "done_with_warnings");
    assert_eq!(code.warnings, ["validator: no tests (work.txt:1)"]);
}

#[test]
fn warn_findings_keep_their_file_and_line() {
    let f = Fixture::new();
    validated(
        &f,
        "printf '**Findings:**\\n- [WARN] no tests (work.txt:1)\\n- [WARN] vague name (work.txt)\\n- [WARN] style\\n\\n**Verdict: WARN**\\n'",
        1,
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let code = step(&s, "code");
    assert_eq!(
        code.warnings,
        [
            "validator: no tests (work.txt:1)",
            "validator: vague name (work.txt)",
            "validator: style"
        ]
    );
}

#[test]
fn the_worst_verdict_of_several_validators_is_the_units() {
    let f = Fixture::new();
    f.script("coder", r#"echo "work $n" > "work.txt""#);
    f.script(
        "warner",
        "printf -- '- [WARN] thin docs (work.txt:1)\\n**Verdict: WARN**\\n'",
    );
    f.script("passer", "echo '**Verdict: PASS**'");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: code\n    agent: coder\n    prompt: implement it\n    outputs: [{{path: work.txt}}]\n    validate: {{validators: [warner, passer]}}\n",
        f.agents_yaml(&["coder", "warner", "passer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let code = step(&s, "code");
    assert_eq!(
        (code.status.as_str(), code.verdict.as_deref()),
        ("done_with_warnings", Some("WARN")),
        "a later PASS does not hide an earlier WARN"
    );
    assert_eq!((f.calls("warner"), f.calls("passer")), (1, 1));
}

#[test]
fn fail_reruns_the_producer_with_the_exact_findings_block() {
    let f = Fixture::new();
    validated(
        &f,
        r#"if [ "$n" = 1 ]; then printf -- '- [FAIL] missing error handling (src/a.rs:12)\n**Verdict: FAIL**\n'; else echo '**Verdict: PASS**'; fi"#,
        1,
    );
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "code").validations, 1);
    let second = f.prompt("coder", 2);
    assert!(
        second.contains("## PREVIOUS VALIDATION FAILED\n\nThe validator `validator` judged your previous work FAIL. Fix these findings:\n- [FAIL] missing error handling (src/a.rs:12)\n\nimplement it"),
        "{second}"
    );
}

#[test]
fn no_verdict_is_fail_and_running_out_escalates() {
    let f = Fixture::new();
    validated(&f, "echo 'looks fine to me'", 1);
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    assert_eq!(f.calls("coder"), 2);
    let code = step(&s, "code");
    assert_eq!(
        (code.verdict.as_deref(), code.validations),
        (Some("FAIL"), 1)
    );
    let w = s.waiting.unwrap();
    assert_eq!(w.reason, "exhausted");
    assert!(
        w.diagnostics
            .iter()
            .any(|d| d.code == "verdict.fail" && d.message.contains("no verdict")),
        "{:?}",
        w.diagnostics
    );
}

#[test]
fn command_validators_pass_on_exit_zero_and_fail_with_the_tail() {
    let f = Fixture::new();
    f.script("coder", r#"echo "v$n" > work.txt"#);
    f.file(
        "check.sh",
        "grep -q v2 work.txt || { echo 'expected v2'; exit 1; }",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: code\n    agent: coder\n    prompt: go\n    outputs: [{{path: work.txt}}]\n    validate: {{validators: [{{command: [sh, \"{}\"]}}]}}\n",
        f.agents_yaml(&["coder"]),
        f.root.join("check.sh").display()
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert!(f.prompt("coder", 2).contains("expected v2"));
}

#[test]
fn foreach_runs_items_by_their_needs_and_validators_never_overlap() {
    let f = Fixture::new();
    f.file(
        "work/tasks.yaml",
        "meta:\n  validation: {enabled: true, run_after: [coder], validators: [validator]}\ntasks:\n  - {id: A}\n  - {id: B}\n  - {id: C, dependsOn: [A, B]}\n  - {id: D, agent: writer}\n",
    );
    f.script("coder", r#"echo "$(date +%s%N) start $RECTIFY_STEP" >> "$LOG/order"; sleep 0.2; echo "$(date +%s%N) end $RECTIFY_STEP" >> "$LOG/order""#);
    f.script(
        "validator",
        r#"echo "$(date +%s%N) vstart" >> "$LOG/validators"; sleep 0.2; echo "$(date +%s%N) vend" >> "$LOG/validators"; echo '**Verdict: PASS**'"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: implement\n    foreach: {{document: tasks.yaml, items: \"$.tasks[*]\", key: \"$.id\", needs: \"$.dependsOn\", validation_from_document: true}}\n    parallel: 2\n    agent: coder\n    prompt: \"Implement {{{{ item.id }}}}\"\n",
        f.agents_yaml(&["coder", "validator"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    for k in ["A", "B", "C", "D"] {
        assert_eq!(step(&s, &format!("implement[{k}]")).status, "done");
    }
    assert_eq!(step(&s, "implement[A]").verdict.as_deref(), Some("PASS"));
    assert_eq!(
        step(&s, "implement[D]").verdict,
        None,
        "D's agent type is not in run_after"
    );
    assert_eq!(f.calls("validator"), 3);
    let order = std::fs::read_to_string(f.log.join("order")).unwrap();
    let at = |what: &str| order.lines().position(|l| l.ends_with(what)).unwrap();
    assert!(at("start implement") < at("end implement"));
    let prompts: Vec<String> = (1..=4).map(|n| f.prompt("coder", n)).collect();
    let c = prompts
        .iter()
        .position(|p| p.contains("Implement C"))
        .unwrap();
    let a = prompts
        .iter()
        .position(|p| p.contains("Implement A"))
        .unwrap();
    let b = prompts
        .iter()
        .position(|p| p.contains("Implement B"))
        .unwrap();
    assert!(c > a && c > b, "C runs after A and B");
    let times: Vec<(u128, bool)> = std::fs::read_to_string(f.log.join("validators"))
        .unwrap()
        .lines()
        .map(|l| {
            let (t, what) = l.split_once(' ').unwrap();
            (t.parse().unwrap(), what == "vstart")
        })
        .collect();
    for pair in times.chunks(2) {
        assert!(
            pair[0].1 && !pair[1].1,
            "validators never overlap: {times:?}"
        );
    }
}

#[test]
fn foreach_document_with_duplicate_keys_or_a_cycle_escalates_with_located_problems() {
    let f = Fixture::new();
    f.file(
        "work/tasks.yaml",
        "tasks:\n  - {id: A, dependsOn: [B]}\n  - {id: B, dependsOn: [A]}\n  - {id: B}\n",
    );
    f.script("coder", "true");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: implement\n    foreach: {{document: tasks.yaml, items: \"$.tasks[*]\", key: \"$.id\", needs: \"$.dependsOn\"}}\n    agent: coder\n    prompt: \"{{{{ item.id }}}}\"\n",
        f.agents_yaml(&["coder"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    assert_eq!(f.calls("coder"), 0);
    let w = s.waiting.unwrap();
    let messages: Vec<String> = w
        .diagnostics
        .iter()
        .map(|d| format!("{:?} {}", d.location.span.map(|s| s.line), d.message))
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("Some(4)") && m.contains("`B` is used by two items")),
        "{messages:?}"
    );
    assert!(messages.iter().any(|m| m.contains("cycle")), "{messages:?}");
}

#[test]
fn confinement_reports_and_undoes_writes_outside_the_outputs() {
    let f = Fixture::new();
    f.file("work/README.md", "original\n");
    f.script(
        "writer",
        "echo out > out.txt; echo hacked > README.md; echo x > stray.txt",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: w\n    agent: writer\n    prompt: go\n    outputs: [{{path: out.txt}}]\n    confine: strict\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(
        s.status,
        RunStatus::Waiting,
        "a strict confinement breach is an error"
    );
    assert_eq!(f.read("README.md"), "original\n");
    assert!(!f.work.join("stray.txt").exists());
    assert_eq!(f.read("out.txt"), "out\n");
    let w = s.waiting.unwrap();
    let codes: Vec<&str> = w.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["flow.confinement", "flow.confinement"]);
}
