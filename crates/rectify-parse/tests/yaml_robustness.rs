//! Deterministic mutation testing of the YAML and Markdown readers: whatever the input, reading
//! returns (no panic, no hang) and every span is inside the text, on character boundaries.

#![allow(clippy::expect_used)]

use rectify_core::Document;
use rectify_parse::{Limits, Parsed, markdown, yaml};
use serde_json::Value;

const SEEDS: &[&str] = &[
    "name: plan\ntasks:\n  - id: t1\n    files: [a.rs, \"b.rs\"]\n  - id: t2\n",
    "a: &x {k: [1, 2.5, ~, true]}\nb: *x\nc: [*x, *x]\n",
    "é: ü\n名前: |\n  literal\n  text\nfolded: >-\n  a\n  b\n",
    "- [a, {b: c}]\n- ? complex\n  : value\n- !!str 12\n- 'single ''q'''\n",
    "{\"json\": [1, 2, {\"x\": null}], \"s\": \"t\\u00e9\"}\n",
    "---\na: 1\n...\n---\nb: 2\n",
];

const PIECES: &[&str] = &[
    ":",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a ",
    "*a",
    "*x",
    "!!str ",
    "!t ",
    "\"",
    "'",
    "|",
    ">",
    "#",
    "\n",
    "\t",
    "  ",
    "é",
    "日本",
    "? ",
    "---\n",
    "...\n",
    "%YAML 1.2\n",
    "0x1F",
    ".inf",
    "~",
    "\\",
    "\r\n",
    "\u{feff}",
    "<<: *x\n",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % below.max(1)
    }
}

fn boundary(text: &str, rng: &mut Rng) -> usize {
    let mut at = rng.next(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(text: &mut String, rng: &mut Rng) {
    for _ in 0..=rng.next(3) {
        let at = boundary(text, rng);
        if rng.next(3) == 0 && !text.is_empty() {
            let mut end = (at + rng.next(8)).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.replace_range(at..end, "");
        } else {
            text.insert_str(at, PIECES[rng.next(PIECES.len())]);
        }
    }
}

fn check_span(text: &str, start: usize, end: usize) {
    assert!(
        start <= end && end <= text.len(),
        "{start}..{end} in {}",
        text.len()
    );
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{start}..{end} in {text:?}"
    );
}

fn pointers(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), value)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    stack.push((format!("{pointer}/{i}"), item));
                }
            }
            Value::Object(map) => {
                for (k, v) in map {
                    stack.push((
                        format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")),
                        v,
                    ));
                }
            }
            _ => {}
        }
        out.push(pointer);
    }
    out
}

fn check(text: &str, parsed: &Parsed) {
    for d in &parsed.diagnostics {
        if let Some(s) = d.location.span {
            check_span(text, s.start, s.end);
            assert!(s.line >= 1 && s.column >= 1);
        }
        assert!(
            !d.message.contains("could not read"),
            "saphyr panicked on {text:?}"
        );
    }
    if let Some(doc) = &parsed.document {
        check_document(text, doc);
    }
}

fn check_document(text: &str, doc: &Document) {
    assert_eq!(doc.source, text);
    for pointer in pointers(&doc.value).iter().take(500) {
        if let Some((start, end)) = doc.spans.find_nearest(&doc.source, pointer) {
            check_span(text, start, end);
        }
    }
}

#[test]
fn mutated_yaml_reads_safely() {
    let mut rng = Rng(0x5eed);
    for seed in SEEDS {
        for _ in 0..400 {
            let mut text = (*seed).to_owned();
            mutate(&mut text, &mut rng);
            check(&text, &yaml::read(text.clone(), &Limits::default()));
            let md = format!("---\n{text}\n---\n# Heading\n\n```\n# code\n```\n");
            let parsed = markdown::read(md.clone(), &Limits::default());
            check(&md, &parsed);
            let doc = parsed.document.expect("Markdown always gives a document");
            let last = doc.sections.last().map(|s| s.title.as_str());
            assert_eq!(last, Some("Heading"), "{md:?}");
        }
    }
}
