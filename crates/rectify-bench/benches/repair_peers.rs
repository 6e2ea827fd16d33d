//! Side-by-side repair timing with peers in other languages (issue 3), driven by
//! `scripts/peers_repair.sh`:
//!
//! - `cargo bench -p rectify-bench --bench repair_peers -- export DIR` writes the workloads
//!   (`small.json`: the corpus inputs repeated to 10,000; `valid.json`, `broken.json`: 10 MB);
//! - `cargo bench -p rectify-bench --bench repair_peers -- time DIR` times rectify and the
//!   jsonrepair-rs crate on those files and prints `tool workload seconds` lines (best of
//!   several runs), the same format the script's Node and Python timers print;
//! - `... -- profile DIR` repairs only the broken document, ten times (for `perf record`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod repair_workloads;

use std::path::Path;
use std::time::Instant;

use rectify_repair::{RepairOptions, repair};
use repair_workloads::{broken_doc, small_cases, valid_doc};

const TEN_MB: usize = 10 * 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.as_slice() {
        [mode, dir] if mode == "export" => export(Path::new(dir)),
        [mode, dir] if mode == "time" => time(Path::new(dir)),
        [mode, dir] if mode == "profile" => profile(Path::new(dir)),
        _ => eprintln!("usage: repair_peers (export|time) DIR"),
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

/// Only rectify on the broken document, ten times: a target for `perf record`.
fn profile(dir: &Path) {
    let broken = std::fs::read_to_string(dir.join("broken.json")).unwrap();
    let options = RepairOptions::default().with_unsafe(true);
    let secs = best(10, || {
        repair(&broken, &options).to_json().map_or(0, |s| s.len())
    });
    println!("rectify broken {secs:.6}");
}

fn time(dir: &Path) {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let small: Vec<String> = serde_json::from_str(&read("small.json")).unwrap();
    let docs = [
        ("valid", read("valid.json")),
        ("broken", read("broken.json")),
    ];
    let options = RepairOptions::default().with_unsafe(true);
    let rectify = |t: &String| repair(t, &options).to_json().map_or(0, |s| s.len());
    let peer = |t: &String| jsonrepair_rs::jsonrepair(t).map_or(0, |s| s.len());
    println!(
        "rectify small {:.6}",
        best(5, || small.iter().map(rectify).sum())
    );
    println!(
        "jsonrepair-rs small {:.6}",
        best(5, || small.iter().map(peer).sum())
    );
    for (name, doc) in &docs {
        println!("rectify {name} {:.6}", best(5, || rectify(doc)));
        println!("jsonrepair-rs {name} {:.6}", best(5, || peer(doc)));
    }
    let valid = &docs[0].1;
    let serde = || serde_json::from_str::<serde_json::Value>(valid).map_or(0, |_| 1);
    println!("serde_json(value) valid {:.6}", best(5, serde));
    let value = || repair(valid, &options).value.map_or(0, |_| 1);
    println!("rectify(value) valid {:.6}", best(5, value));
}
