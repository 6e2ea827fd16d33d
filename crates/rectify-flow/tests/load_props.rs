//! Property: no workflow text makes loading panic or hang, and every located problem points
//! inside the text it was read from. Inputs are a valid workflow with random edits (the
//! mistakes a person or a model makes: a character lost, doubled or replaced, a line moved).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;

const VALID: &str = r#"name: t
inputs:
  topic: {type: string, default: "x"}
providers:
  sh: {kind: command, command: [sh, "-c", "true"], timeout_secs: 5}
defaults: {provider: sh, max_attempts: 2}
agents:
  writer: agents/writer.md
steps:
  - id: a
    agent: writer
    prompt: "About {{ inputs.topic }}"
    outputs:
      - {path: "out/{{ run.id }}.json"}
    on_invalid: {revise: 1}
  - id: b
    needs: [a]
    human: "ok {{ steps.a.output }}?"
  - id: c
    needs: [b]
    foreach: {document: "out/x.yaml", items: "$.tasks[*]", key: "$.id", needs: "$.dependsOn"}
    parallel: 2
    agent: writer
    prompt: "{{ item.id }}"
    validate: {validators: [writer, {command: ["true"]}]}
"#;

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let chars = prop_oneof![
        Just(':'),
        Just('{'),
        Just('}'),
        Just('['),
        Just(']'),
        Just(' '),
        Just('\n'),
        Just('"'),
        Just('-'),
        Just('\t'),
        Just('&'),
        Just('*'),
        Just('\u{a0}'),
        Just('é'),
        Just('#'),
    ];
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), chars.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), chars).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        if chars.is_empty() {
            break;
        }
        match *e {
            Edit::Delete(i) => {
                chars.remove(i % chars.len());
            }
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Edit::Replace(i, c) => {
                let n = chars.len();
                chars[i % n] = c;
            }
            Edit::SwapLines(a, b) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.lines().collect();
                let n = lines.len();
                if n > 1 {
                    lines.swap(a % n, b % n);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn loading_never_panics_and_problems_point_inside(edits in prop::collection::vec(edit(), 1..6)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("agents")).unwrap();
        std::fs::write(dir.path().join("agents/writer.md"), "---\nname: writer\n---\nWrite.\n").unwrap();
        let path = dir.path().join("workflow.yaml");
        let text = apply(VALID, &edits);
        let lines = text.lines().count().max(1) + 1;
        if let Err(e) = rectify_flow::load_str(&path, text.clone()) {
            prop_assert!(!e.problems.is_empty());
            for p in &e.problems {
                if p.file == path {
                    prop_assert!(p.line.is_none_or(|l| l >= 1 && l <= lines), "{p} outside {lines} lines");
                }
                prop_assert!(!p.message.is_empty());
            }
        }
    }
}

#[test]
fn the_unedited_workflow_loads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents")).unwrap();
    std::fs::write(
        dir.path().join("agents/writer.md"),
        "---\nname: writer\n---\nWrite.\n",
    )
    .unwrap();
    let wf = rectify_flow::load_str(&dir.path().join("workflow.yaml"), VALID.to_owned());
    let wf = wf.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(wf.levels(), vec![vec!["a"], vec!["b"], vec!["c"]]);
}
