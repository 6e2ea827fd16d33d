//! Side-by-side repair timing with peers in other languages (issue 3), driven by
//! `scripts/peers_repair.sh`:
//!
//! - `cargo bench -p rectify-bench --bench repair_peers -- export DIR` writes the workloads
//!   (`small.json`: the corpus inputs repeated to 10,000; `valid.json`, `broken.json`: 10 MB);
//! - `cargo bench -p rectify-bench --bench repair_peers -- time DIR` times rectify and the
//!   jsonrepair-rs crate on those files and prints `tool workload seconds` lines (best of
//!   several runs), the same format the script's Node and Python timers print;
//! - `... -- profile DIR [small|valid|broken] [N]` repairs only that workload with rectify's
//!   text path, N times (default 10; for `perf record`), and prints the best time;
//! - `... -- cases DIR` times each distinct small input alone (rectify, jsonrepair-rs, in
//!   microseconds), costliest for rectify first;
//! - `... -- diff N [SEED]` repairs N generated broken documents with both rectify and
//!   jsonrepair-rs and prints how often their values agree (`repair_diff.rs`).
//!
//! rectify is timed through `repair_to_json` (text to repaired text, the same job the peers
//! do); `rectify(records)` also reads every repair record (they are built when first read);
//! the `rectify(value)` row stops at the `serde_json::Value` (`repair`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod repair_diff;
mod repair_workloads;

use std::path::Path;
use std::time::Instant;

use rectify_repair::{RepairOptions, repair, repair_to_json};
use repair_workloads::{broken_doc, small_cases, valid_doc};

const TEN_MB: usize = 10 * 1024 * 1024;

/// Runs of the small workload (about 10 ms each): a pass of best-of-5 spans too short a
/// window on a noisy machine to skip a transient slowdown.
const SMALL_RUNS: usize = 20;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.as_slice() {
        [mode, dir] if mode == "export" => export(Path::new(dir)),
        [mode, dir] if mode == "time" => time(Path::new(dir)),
        [mode, dir, rest @ ..] if mode == "profile" => profile(Path::new(dir), rest),
        [mode, dir] if mode == "cases" => cases(Path::new(dir)),
        [mode, n, rest @ ..] if mode == "diff" => repair_diff::run(
            n.parse().unwrap_or(10_000),
            rest.first().and_then(|s| s.parse().ok()).unwrap_or(12),
        ),
        _ => eprintln!("usage: repair_peers (export|time|profile|cases) DIR | diff N [SEED]"),
    }
}

fn export(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let small = serde_json::to_string(&small_cases(10_000)).unwrap();
    std::fs::write(dir.join("small.json"), small).unwrap();
    std::fs::write(dir.join("valid.json"), valid_doc(TEN_MB)).unwrap();
    std::fs::write(dir.join("broken.json"), broken_doc(TEN_MB)).unwrap();
}

/// Best wall time of `runs` calls of `f`, in seconds.
fn best(runs: usize, mut f: impl FnMut() -> usize) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Only rectify on one workload, N times: a target for `perf record`.
fn profile(dir: &Path, rest: &[String]) {
    let work = rest.first().map_or("broken", String::as_str);
    let runs = rest.get(1).and_then(|n| n.parse().ok()).unwrap_or(10);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let inputs: Vec<String> = if work == "small" {
        serde_json::from_str(&read("small.json")).unwrap()
    } else {
        vec![read(&format!("{work}.json"))]
    };
    let options = RepairOptions::default().with_unsafe(true);
    let secs = best(runs, || {
        inputs
            .iter()
            .map(|t| repair_to_json(t, &options).json.map_or(0, |s| s.len()))
            .sum()
    });
    println!("rectify {work} {secs:.9}");
}

/// Each distinct small input timed alone: where the small workload's time goes.
fn cases(dir: &Path) {
    let small: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("small.json")).unwrap()).unwrap();
    let mut distinct = small.clone();
    distinct.sort();
    distinct.dedup();
    let options = RepairOptions::default().with_unsafe(true);
    let mut rows: Vec<(f64, f64, bool, String)> = distinct
        .iter()
        .map(|t| {
            let ours = best(20, || {
                repair_to_json(t, &options).json.map_or(0, |s| s.len())
            });
            let peer = best(20, || jsonrepair_rs::jsonrepair(t).map_or(0, |s| s.len()));
            let count = small.iter().filter(|s| *s == t).count() as f64;
            (
                ours * 1e6 * count,
                peer * 1e6 * count,
                rectify_repair::testing::takes_text_path(t, &options),
                t.chars().take(60).collect(),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let shown = std::env::var("CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    for (ours, peer, text_path, text) in rows.iter().take(shown) {
        let path = if *text_path { "text " } else { "value" };
        println!("{ours:10.1} {peer:10.1} {path} {text:?}");
    }
    let fallback: f64 = rows.iter().filter(|r| !r.2).map(|r| r.0).sum();
    println!(
        "value-path fallbacks: {} inputs, {fallback:.0} µs",
        rows.iter().filter(|r| !r.2).count()
    );
    let (ours, peer) = rows.iter().fold((0.0, 0.0), |(a, b), r| (a + r.0, b + r.1));
    println!("total (µs, weighted by repetitions): rectify {ours:.0}, jsonrepair-rs {peer:.0}");
}

fn time(dir: &Path) {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let small: Vec<String> = serde_json::from_str(&read("small.json")).unwrap();
    let docs = [
        ("valid", read("valid.json")),
        ("broken", read("broken.json")),
    ];
    let options = RepairOptions::default().with_unsafe(true);
    let rectify = |t: &String| repair_to_json(t, &options).json.map_or(0, |s| s.len());
    let peer = |t: &String| jsonrepair_rs::jsonrepair(t).map_or(0, |s| s.len());
    println!(
        "rectify small {:.6}",
        best(SMALL_RUNS, || small.iter().map(rectify).sum())
    );
    println!(
        "jsonrepair-rs small {:.6}",
        best(SMALL_RUNS, || small.iter().map(peer).sum())
    );
    for (name, doc) in &docs {
        println!("rectify {name} {:.6}", best(5, || rectify(doc)));
        println!("jsonrepair-rs {name} {:.6}", best(5, || peer(doc)));
    }
    // The same, then every repair record read (built from the compact log).
    let records = |t: &String| {
        let out = repair_to_json(t, &options);
        out.repairs.iter().count() + out.json.map_or(0, |s| s.len())
    };
    println!(
        "rectify(records) small {:.6}",
        best(SMALL_RUNS, || small.iter().map(records).sum())
    );
    println!(
        "rectify(records) broken {:.6}",
        best(5, || records(&docs[1].1))
    );
    let valid = &docs[0].1;
    let serde = || serde_json::from_str::<serde_json::Value>(valid).map_or(0, |_| 1);
    println!("serde_json(value) valid {:.6}", best(5, serde));
    let value = || repair(valid, &options).value.map_or(0, |_| 1);
    println!("rectify(value) valid {:.6}", best(5, value));
    // The value path then serialised: what the rectify row measured before the text path.
    let via_value = |t: &String| repair(t, &options).to_json().map_or(0, |s| s.len());
    println!(
        "rectify(value+to_json) small {:.6}",
        best(SMALL_RUNS, || small.iter().map(via_value).sum())
    );
    for (name, doc) in &docs {
        println!(
            "rectify(value+to_json) {name} {:.6}",
            best(5, || via_value(doc))
        );
    }
}
