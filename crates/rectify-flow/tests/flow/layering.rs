//! The engine's modules form a DAG (issue 35: "no import cycle between the engine's
//! modules"): every `super::NAME` and `crate::engine::NAME` path in `src/engine/` is an edge,
//! and no module reaches itself. `mod.rs` (the `Runner` every module extends) is the root and
//! not a node.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn identifiers_after<'a>(text: &'a str, prefix: &'a str) -> impl Iterator<Item = String> + 'a {
    text.match_indices(prefix).map(move |(i, _)| {
        text[i + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect()
    })
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            for inner in std::fs::read_dir(&path).unwrap() {
                files.push(inner.unwrap().path());
            }
        } else {
            files.push(path);
        }
    }
    for path in files {
        let rel = path.strip_prefix(&dir).unwrap();
        let module = rel
            .iter()
            .next()
            .unwrap()
            .to_string_lossy()
            .replace(".rs", "");
        if module == "mod" || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let uses = edges.entry(module.clone()).or_default();
        for prefix in ["super::", "crate::engine::"] {
            uses.extend(identifiers_after(&text, prefix).filter(|m| *m != module));
        }
    }
    let modules: BTreeSet<String> = edges.keys().cloned().collect();
    for uses in edges.values_mut() {
        uses.retain(|m| modules.contains(m));
    }
    edges
}

fn reaches(edges: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = edges[from].iter().map(String::as_str).collect();
    while let Some(m) = stack.pop() {
        if m == to {
            return true;
        }
        if seen.insert(m) {
            stack.extend(edges[m].iter().map(String::as_str));
        }
    }
    false
}

#[test]
fn the_engine_modules_have_no_import_cycle() {
    let edges = graph();
    assert!(
        edges.len() > 10,
        "the engine's modules were not found: {edges:?}"
    );
    assert!(
        edges["step"].contains("router"),
        "edges are read: {edges:?}"
    );
    let cycles: Vec<&String> = edges.keys().filter(|m| reaches(&edges, m, m)).collect();
    assert!(
        cycles.is_empty(),
        "modules on a cycle: {cycles:?}\n{edges:#?}"
    );
}
