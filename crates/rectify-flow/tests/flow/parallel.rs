//! Parallel units are isolated: each agent works in its own view, and one unit's confinement,
//! repair or conflict never deletes, reverts or blames another unit's output.

use rectify_flow::RunStatus;
use sha2::{Digest, Sha256};

use crate::support::{Fixture, step};

const SCHEMA: &str =
    r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#;

/// The latest file each unit's links record, by path.
pub fn recorded(store: &rectify_flow::Store, run: &str, unit: &str) -> Vec<(String, String)> {
    let mut last: Vec<(String, String)> = Vec::new();
    for link in store.links(run).unwrap() {
        if link.step != unit {
            continue;
        }
        last.retain(|(p, _)| *p != link.path);
        last.push((link.path, link.hash));
    }
    last
}

pub fn on_disk(f: &Fixture, rel: &str) -> String {
    let bytes = std::fs::read(f.work.join(rel)).unwrap_or_default();
    rectify_flow::load::hex(&Sha256::digest(&bytes))
}

/// The issue's first reproduction: `b`'s producer writes its valid output while `c`'s repair
/// agent (strict) runs; the file stays, `b` is done with exactly those bytes.
#[test]
fn a_repair_agent_never_undoes_a_parallel_steps_output() {
    let f = Fixture::new();
    f.file("schema.json", SCHEMA);
    f.script(
        "b",
        "sleep 0.3; mkdir -p out; echo '{\"n\": 2}' > out/b.json",
    );
    f.script("c", "mkdir -p out; echo '{\"n\": \"x\"}' > out/c.json");
    f.script("fixer", "sleep 0.8; echo '{\"n\": 3}' > out/c.json");
    f.workflow(&format!(
        "name: t\n{}defaults: {{confine: strict}}\nsteps:\n  - id: b\n    agent: b\n    prompt: go\n    outputs: [{{path: out/b.json, schema: schema.json}}]\n  - id: c\n    agent: c\n    prompt: go\n    outputs: [{{path: out/c.json, schema: schema.json}}]\n    on_invalid: {{repair: fixer, max: 1}}\n",
        f.agents_yaml(&["b", "c", "fixer"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(f.read("out/b.json"), "{\"n\": 2}\n");
    assert_eq!(f.read("out/c.json"), "{\"n\": 3}\n");
    for unit in ["b", "c"] {
        assert!(step(&s, unit).warnings.is_empty(), "{s:#?}");
        for (path, hash) in recorded(&store, &s.run_id, unit) {
            assert_eq!(on_disk(&f, &path), hash, "{unit}: {path}");
        }
    }
}

/// The second: `b`'s output is repaired deterministically and written back while `c`'s repair
/// agent runs; the repaired bytes stay, and nobody is told of a mistake nobody made.
#[test]
fn a_deterministic_repair_beside_a_repair_agent_stays_and_blames_nobody() {
    let f = Fixture::new();
    f.file("schema.json", SCHEMA);
    f.script(
        "b",
        "sleep 0.3; mkdir -p out; echo '{\"n\": 2,}' > out/b.json",
    );
    f.script("c", "mkdir -p out; echo '{\"n\": \"x\"}' > out/c.json");
    f.script("fixer", "sleep 0.8; echo '{\"n\": 3}' > out/c.json");
    f.script("d", "mkdir -p out; echo '{\"n\": 4}' > out/d.json");
    f.workflow(&format!(
        "name: t\n{}defaults: {{confine: strict}}\nsteps:\n  - id: b\n    agent: b\n    prompt: go\n    outputs: [{{path: out/b.json, schema: schema.json}}]\n  - id: c\n    agent: c\n    prompt: go\n    outputs: [{{path: out/c.json, schema: schema.json}}]\n    on_invalid: {{repair: fixer, max: 1}}\n  - id: d\n    needs: [b, c]\n    agent: d\n    prompt: go\n    outputs: [{{path: out/d.json, schema: schema.json}}]\n",
        f.agents_yaml(&["b", "c", "fixer", "d"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let b: serde_json::Value = serde_json::from_str(&f.read("out/b.json")).unwrap();
    assert_eq!(b, serde_json::json!({"n": 2}));
    assert!(!f.prompt("d", 1).contains("outside the step's outputs"));
    let run = store.run(&s.run_id).unwrap().unwrap();
    assert!(
        !run.memory.unwrap_or_default().contains("flow.confinement"),
        "the error memory holds a confinement breach nobody made"
    );
}

/// Producers in `report` mode side by side get no warnings for each other's files.
#[test]
fn producers_side_by_side_are_not_warned_about_each_other() {
    let f = Fixture::new();
    let mut steps = String::new();
    let mut names = Vec::new();
    for i in 0..4 {
        let name = format!("p{i}");
        f.script(
            &name,
            &format!("sleep 0.0{i}; mkdir -p out; echo '{{\"n\": {i}}}' > out/{i}.json"),
        );
        steps.push_str(&format!(
            "  - id: {name}\n    agent: {name}\n    prompt: go\n    outputs: [{{path: out/{i}.json}}]\n"
        ));
        names.push(name);
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    f.workflow(&format!("name: t\n{}steps:\n{steps}", f.agents_yaml(&refs)));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed);
    for n in &names {
        assert!(step(&s, n).warnings.is_empty(), "{s:#?}");
    }
}

/// A repair agent's writes outside its files are refused (nothing reaches the tree), and when
/// the file it fixed is valid the step is done: it is not called again with nothing to do.
#[test]
fn a_repair_agents_refused_writes_do_not_exhaust_a_valid_step() {
    let f = Fixture::new();
    f.file("schema.json", SCHEMA);
    f.script("p", "echo '{\"n\": \"x\"}' > out.json");
    f.script(
        "fixer",
        "echo '{\"n\": 1}' > out.json; echo stray > stray.txt",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: p\n    agent: p\n    prompt: go\n    outputs: [{{path: out.json, schema: schema.json}}]\n    on_invalid: {{repair: fixer, max: 3}}\n",
        f.agents_yaml(&["p", "fixer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(f.calls("fixer"), 1);
    assert!(!f.work.join("stray.txt").exists());
    let p = step(&s, "p");
    assert_eq!(p.status, "done_with_warnings");
    assert!(p.warnings.iter().any(|w| w.contains("stray.txt")), "{p:#?}");
}

/// Two units that write one path at once: the second is a conflict on that unit (not a
/// silent overwrite); with a revision left it runs again on the new tree.
#[test]
fn two_units_writing_one_path_conflict_and_the_second_retries() {
    let f = Fixture::new();
    // y's view opens with x's (one batch); x applies its change half a second later, while y
    // still works.
    f.script("x", "sleep 0.5; echo x > shared.txt; echo x > x.txt");
    f.script("y", "sleep 1; echo y > shared.txt; echo y > y.txt");
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: x\n    agent: x\n    prompt: go\n    outputs: [{{path: x.txt}}]\n    may_write: [shared.txt]\n  - id: y\n    agent: y\n    prompt: go\n    outputs: [{{path: y.txt}}]\n    may_write: [shared.txt]\n    on_invalid: {{revise: 1}}\n",
        f.agents_yaml(&["x", "y"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(f.calls("y"), 2, "the conflicting unit ran again");
    assert!(
        f.prompt("y", 2).contains("flow.conflict")
            || f.prompt("y", 2).contains("also changed by `x`")
    );
    assert_eq!(
        f.read("shared.txt"),
        "y\n",
        "the retry, based on x's change, applied"
    );
    let run = store.run(&s.run_id).unwrap().unwrap();
    assert!(!run.memory.unwrap_or_default().contains("flow.conflict"));
}

/// `.git/` and `.rectify/` are never outputs: refused at load time when written literally, and
/// when a template renders there (a `foreach` item's path from a model's document), the unit
/// fails with nothing written.
#[test]
fn outputs_inside_git_or_the_store_are_refused() {
    let f = Fixture::new();
    f.script("w", "mkdir -p .git; echo planted > .git/config");
    let agents = f.agents_yaml(&["w"]);
    let path = f.workflow(&format!(
        "name: t\n{agents}steps:\n  - id: a\n    agent: w\n    prompt: go\n    outputs: [{{path: .git/config}}]\n  - id: b\n    agent: w\n    prompt: go\n    outputs: [{{path: ./.rectify/rectify.db}}]\n"
    ));
    let e = rectify_flow::load(&path).unwrap_err();
    let messages: Vec<String> = e.problems.iter().map(|p| p.message.clone()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages
            .iter()
            .all(|m| m.contains("`.git/` or `.rectify/`"))
    );

    f.workflow(&format!(
        "name: t\ninputs:\n  p: {{type: string}}\n{agents}steps:\n  - id: a\n    agent: w\n    prompt: go\n    outputs: [{{path: \"{{{{ inputs.p }}}}\"}}]\n"
    ));
    std::fs::create_dir_all(f.work.join(".git")).unwrap();
    std::fs::write(f.work.join(".git/config"), "[core]\n").unwrap();
    let (s, _) = f.run(&[("p", ".git/config")]);
    assert_eq!(s.status, RunStatus::Failed, "{s:#?}");
    assert_eq!(f.read(".git/config"), "[core]\n");
}

/// An agent that replaces its output with a symlink (to a file outside the tree, or to
/// rectify's own environment) gets nothing read through it: the link never reaches the tree.
#[test]
fn a_symlink_an_agent_makes_is_never_followed_or_applied() {
    let f = Fixture::new();
    f.file("secret.txt", "TOP SECRET\n");
    let secret = f.root.join("secret.txt");
    f.script(
        "w",
        &format!(
            "ln -s '{}' out.txt; ln -s /proc/self/environ env.txt",
            secret.display()
        ),
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: w\n    prompt: go\n    outputs: [{{path: out.txt}}, {{path: env.txt}}]\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["w"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Waiting);
    assert!(f.work.join("out.txt").symlink_metadata().is_err());
    assert!(f.work.join("env.txt").symlink_metadata().is_err());
    let report =
        serde_json::to_string(&rectify_flow::Report::load(&store, &s.run_id).unwrap()).unwrap();
    assert!(!report.contains("TOP SECRET"));
    assert!(!report.contains("PATH="));
    assert!(
        report.contains("symbolic link"),
        "the refused link is reported"
    );
}

/// An agent's oversized `.gitignore` never reaches the tree (every later view's walk would
/// compile it at about 150 bytes of memory per byte); a normal one does, with the output.
#[test]
fn an_oversized_gitignore_an_agent_writes_is_never_applied() {
    let f = Fixture::new();
    f.script(
        "w",
        "echo ok > out.txt; head -c 300000 /dev/zero | tr '\\0' x > .gitignore; mkdir -p sub; echo '*.log' > sub/.gitignore",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: w\n    prompt: go\n    outputs: [{{path: out.txt}}]\n",
        f.agents_yaml(&["w"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(f.read("out.txt"), "ok\n");
    assert!(f.work.join(".gitignore").symlink_metadata().is_err());
    assert_eq!(f.read("sub/.gitignore"), "*.log\n");
    let report =
        serde_json::to_string(&rectify_flow::Report::load(&store, &s.run_id).unwrap()).unwrap();
    assert!(report.contains("ignore file over 256 KiB"), "{report}");
}

/// A validator agent judges in its own view: what it writes never reaches the tree, and the
/// step records that it tried.
#[test]
fn a_validator_agents_writes_never_reach_the_tree() {
    let f = Fixture::new();
    f.script("w", "echo ok > out.txt");
    f.script(
        "judge",
        "echo tampered > out.txt; echo new > judge.txt; echo '**Verdict: PASS**'",
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: w\n    prompt: go\n    outputs: [{{path: out.txt}}]\n    validate: {{validators: [judge]}}\n",
        f.agents_yaml(&["w", "judge"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(f.read("out.txt"), "ok\n");
    assert!(!f.work.join("judge.txt").exists());
    let a = step(&s, "a");
    assert!(
        a.warnings
            .iter()
            .any(|w| w.contains("validator `judge` changed files")),
        "{a:#?}"
    );
}

/// What git ignores is judged by each directory's own `.gitignore` (its patterns relative to
/// that directory) and `.git/info/exclude`; and a change set as deep as an agent likes is read
/// without recursion.
#[test]
fn ignored_paths_follow_nested_gitignores_and_deep_trees_are_read() {
    let f = Fixture::new();
    f.file("work/sub/.gitignore", "/build\n");
    f.file("work/.git/info/exclude", "*.log\n");
    let deep = vec!["d"; 400].join("/");
    f.script(
        "w",
        &format!(
            "echo ok > out.txt; mkdir -p sub/build build; echo o > sub/build/x.o; echo o > build/y.o; echo l > run.log; mkdir -p {deep}; echo deep > {deep}/f.txt"
        ),
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: a\n    agent: w\n    prompt: go\n    outputs: [{{path: out.txt}}]\n    confine: strict\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["w"])
    ));
    let (s, _) = f.run(&[]);
    // Scratch is applied and never judged; `build/` at the root is not ignored (the pattern is
    // `sub/`'s), nor is the deep file: both refused.
    assert_eq!(f.read("sub/build/x.o"), "o\n");
    assert_eq!(f.read("run.log"), "l\n");
    assert!(!f.work.join("build/y.o").exists());
    assert!(!f.work.join(&deep).join("f.txt").exists());
    let w = s.waiting.expect("strict breaches escalate");
    let mut refused: Vec<String> = w
        .diagnostics
        .iter()
        .filter_map(|d| d.received.clone())
        .collect();
    refused.sort();
    // (A long path is shortened in `received`.)
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert_eq!(refused[0], "build/y.o");
    assert!(refused[1].starts_with("d/d/d/"), "{refused:?}");
}
