//! Every configuration mistake is found at load time, with its file, line and column.

use rectify_flow::load;

use crate::support::Fixture;

fn problems(f: &Fixture, yaml: &str) -> Vec<String> {
    let path = f.workflow(yaml);
    match load(&path) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .problems
            .iter()
            .map(|p| {
                format!(
                    "{}:{}:{}",
                    p.line.unwrap_or(0),
                    p.column.unwrap_or(0),
                    p.message
                )
            })
            .collect(),
    }
}

fn base(f: &Fixture) -> String {
    f.script("writer", "true");
    f.agents_yaml(&["writer"])
}

#[test]
fn unknown_keys_are_located_at_the_key_and_every_mistake_is_reported_at_once() {
    let f = Fixture::new();
    let agents = base(&f);
    let found = problems(
        &f,
        &format!(
            "name: t\n{agents}steps:\n  - id: a\n    agent: writer\n    promt: hi\n    needs: [zz]\n    on_invalid: {{repiar: writer}}\n"
        ),
    );
    let has = |prefix: &str, text: &str| {
        found
            .iter()
            .any(|p| p.starts_with(prefix) && p.contains(text))
    };
    assert!(has("9:5:", "unknown field `promt`"), "{found:?}");
    assert!(has("11:18:", "unknown field `repiar`"), "{found:?}");
    assert!(has("10:13:", "unknown step `zz`"), "{found:?}");
    assert!(has("7:5:", "has no `prompt`"), "{found:?}");
}

#[test]
fn unknown_needs_cycles_agents_and_providers() {
    let f = Fixture::new();
    let agents = base(&f);
    let found = problems(
        &f,
        &format!(
            "name: t\n{agents}steps:\n  - id: a\n    agent: writer\n    prompt: x\n    needs: [zz]\n"
        ),
    );
    assert!(
        found[0].starts_with("10:13:") && found[0].contains("unknown step `zz`"),
        "{found:?}"
    );
    let found = problems(
        &f,
        &format!(
            "name: t\n{agents}steps:\n  - id: a\n    agent: writer\n    prompt: x\n    needs: [b]\n  - id: b\n    agent: writer\n    prompt: x\n    needs: [a]\n"
        ),
    );
    assert!(
        found.iter().any(|p| p.contains("cycle: a -> b -> a")),
        "{found:?}"
    );
    let found = problems(
        &f,
        &format!("name: t\n{agents}steps:\n  - id: a\n    agent: nobody\n    prompt: x\n"),
    );
    assert!(
        found[0].starts_with("8:12:") && found[0].contains("unknown agent `nobody`"),
        "{found:?}"
    );
    f.file("agents/odd.md", "---\nprovider: ghost\n---\nhi\n");
    let found = problems(
        &f,
        &format!(
            "name: t\n{agents}  odd: agents/odd.md\nsteps:\n  - id: a\n    agent: odd\n    prompt: x\n"
        ),
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("2:11:") && p.contains("unknown provider `ghost`")),
        "{found:?}"
    );
}

#[test]
fn templates_schemas_rules_and_paths() {
    let f = Fixture::new();
    let agents = base(&f);
    f.file("bad.schema.json", "{\"type\": \"nonsense\"}");
    let yaml = format!(
        "name: t\ninputs:\n  topic: {{type: string}}\n{agents}steps:\n  - id: a\n    agent: writer\n    prompt: \"{{{{ inputs.topc }}}}\"\n    outputs:\n      - {{path: ../escape.json, schema: missing.json}}\n      - {{path: /etc/x.json, schema: bad.schema.json}}\n      - {{path: ok.yaml, rules: none.yaml}}\n"
    );
    let found = problems(&f, &yaml);
    let has = |s: &str| found.iter().any(|p| p.contains(s));
    assert!(has("the input `topc`, which is not declared"), "{found:?}");
    assert!(has("`../escape.json` goes up"), "{found:?}");
    assert!(has("`/etc/x.json` is absolute"), "{found:?}");
    assert!(has("the schema `missing.json` cannot be used"), "{found:?}");
    assert!(
        has("the schema `bad.schema.json` cannot be used"),
        "{found:?}"
    );
    assert!(
        has("the rules file `none.yaml` cannot be used"),
        "{found:?}"
    );
    assert!(
        found.iter().all(|p| !p.starts_with("0:")),
        "every problem is located: {found:?}"
    );
}

#[test]
fn a_step_output_read_before_it_is_needed_is_refused() {
    let f = Fixture::new();
    let agents = base(&f);
    let found = problems(
        &f,
        &format!(
            "name: t\n{agents}steps:\n  - id: a\n    agent: writer\n    prompt: x\n  - id: b\n    agent: writer\n    prompt: \"{{{{ steps.a.output }}}}\"\n"
        ),
    );
    assert!(
        found[0].contains("not among this step's `needs`"),
        "{found:?}"
    );
}

#[test]
fn garbage_files_are_errors_not_panics() {
    let f = Fixture::new();
    for text in [
        "",
        "[1, 2",
        "name: [",
        "a: &x [*x, *x]\n",
        "\u{0}\u{1}",
        "steps: 5",
        "name: t\nsteps: []\n",
    ] {
        let found = problems(&f, text);
        assert!(!found.is_empty(), "{text:?} must be refused");
    }
    let path = f.file("bin.yaml", "");
    std::fs::write(&path, b"name: \xff\xfe\n").unwrap();
    assert!(load(&path).is_err());
    assert!(load(&f.root.join("missing.yaml")).is_err());
}

#[test]
fn an_answer_step_cannot_name_a_repair_agent() {
    let f = Fixture::new();
    let agents = base(&f);
    let found = problems(
        &f,
        &format!(
            "name: t\n{agents}steps:\n  - id: a\n    agent: writer\n    prompt: x\n    answer: {{format: json}}\n    on_invalid: {{repair: writer}}\n"
        ),
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("11:26:") && p.contains("revised by its producer")),
        "{found:?}"
    );
}
