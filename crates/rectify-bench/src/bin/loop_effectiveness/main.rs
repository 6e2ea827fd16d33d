//! The loop-effectiveness benchmark (issue 6): how often the embedded model's answers are
//! valid, and at what cost, under four ways of asking.
//!
//! For every prompt under `examples/bench-prompts/` (a schema and optional rules) and every
//! temperature, two loop runs of at most three attempts against one shared model:
//!
//! - unconstrained sampling, feedback retries. Its first attempt gives (a) the single-attempt
//!   rate (the raw answer parses as strict JSON and passes every check) and (b) the rate with
//!   deterministic repair (the loop's report of that attempt); the run gives (c) the rate within
//!   three attempts with repair and feedback;
//! - (d) constrained sampling (llguidance grammar from the schema), same loop: first-attempt
//!   and within-three rates.
//!
//! Prints a Markdown table (for docs/BENCHMARKS.md) on stdout, progress on stderr, and writes
//! one JSON line per run to `--out`.
//!
//! ```text
//! cargo run --release -p rectify-bench --bin loop_effectiveness -- \
//!     [--prompts examples/bench-prompts] [--temperatures 0,0.7] [--threads 2] [--seed N] [--limit N] \
//!     [--feedback fresh|append|prefix|suffix] [--out target/loop_effectiveness.jsonl]
//! ```

mod cases;
mod grounding;
mod report;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use rectify_local::{LocalOptions, LocalProvider};
use rectify_loop::{Engine, FeedbackMode, Outcome};
use serde_json::{Value, json};

use cases::Case;
use report::{Mode, Tally};

struct Args {
    prompts: PathBuf,
    temperatures: Vec<f64>,
    threads: u16,
    seed: Option<u32>,
    limit: usize,
    only: Vec<String>,
    feedback: FeedbackMode,
    out: PathBuf,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let mut cases = cases::load(&args.prompts, args.limit)?;
    if !args.only.is_empty() {
        cases.retain(|c| args.only.contains(&c.id));
    }
    let base = LocalProvider::from_env_or_default(LocalOptions {
        threads: Some(args.threads),
        seed: args.seed.unwrap_or(LocalOptions::default().seed),
        ..LocalOptions::default()
    })?;
    let model = base.load()?;
    eprintln!("model {} loaded in {:?}", model.name(), model.load_time());
    let free = LocalProvider::with_model(
        Arc::clone(&model),
        LocalOptions {
            constrained: false,
            ..base.options().clone()
        },
    );
    let mut out = std::fs::File::create(&args.out)?;
    let mut tallies = Vec::new();
    for &temperature in &args.temperatures {
        let mut tally = Tally::new(temperature);
        for case in &cases {
            let task = case.task(temperature)?;
            let engine = |p: &LocalProvider| {
                Engine::new(p.clone())
                    .max_attempts(3)
                    .feedback(args.feedback)
            };
            let unconstrained = engine(&free).run(&task).await;
            let constrained = engine(&base).run(&task).await;
            let line = tally.record(case, &task, &unconstrained, &constrained);
            eprintln!(
                "{}",
                progress(case, temperature, &unconstrained, &constrained)
            );
            writeln!(out, "{line}")?;
        }
        tallies.push(tally);
    }
    println!("{}", report::markdown(&tallies, cases.len(), args.feedback));
    Ok(())
}

fn progress(
    case: &Case,
    temperature: f64,
    free: &Outcome<Value>,
    fixed: &Outcome<Value>,
) -> String {
    let summary =
        |o: &Outcome<Value>| json!({"valid": o.is_valid(), "attempts": o.ledger().totals.attempts});
    format!(
        "T={temperature} {} unconstrained={} constrained={}",
        case.id,
        summary(free),
        summary(fixed)
    )
}

fn parse_args() -> Result<Args, Box<dyn std::error::Error>> {
    let mut args = Args {
        prompts: PathBuf::from("examples/bench-prompts"),
        temperatures: vec![0.0, 0.7],
        threads: 2,
        seed: None,
        limit: usize::MAX,
        only: Vec::new(),
        // What `rectify ask` uses with the embedded model.
        feedback: FeedbackMode::Fresh,
        out: PathBuf::from("target/loop_effectiveness.jsonl"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--prompts" => args.prompts = PathBuf::from(value),
            "--temperatures" => {
                args.temperatures = value.split(',').map(str::parse).collect::<Result<_, _>>()?;
            }
            "--threads" => args.threads = value.parse()?,
            "--seed" => args.seed = Some(value.parse()?),
            "--limit" => args.limit = value.parse()?,
            "--only" => args.only = value.split(',').map(str::to_owned).collect(),
            "--feedback" => args.feedback = value.parse()?,
            "--out" => args.out = PathBuf::from(value),
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    Ok(args)
}

/// Modes in table order.
pub(crate) const MODES: [Mode; 5] = [
    Mode::Single,
    Mode::Repair,
    Mode::Retries,
    Mode::ConstrainedFirst,
    Mode::Constrained,
];
