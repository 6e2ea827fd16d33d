//! The grounding benchmark (issue 16): do the embedded model's extraction answers hold the
//! request's values? Validity says nothing about content; a base model can fill a valid shape
//! with placeholders.
//!
//! Requests are under `crates/rectify-bench/data/grounding/`, one file a part: the tuning parts
//! `tune`, `tune2`, `tune3`, `fresh` and `fresh3` (their misses were read after they were first
//! measured), and the held-out parts `test` (known kinds), `fresh2`, `fresh4`, `fresh5`,
//! `fresh6` and `fresh7` (new kinds), never tuned on (`--parts` picks them; each file's `note` says how it
//! was written).
//! Each request has a JSON Schema and expected values written by hand. Every request runs
//! through the loop as `rectify ask` runs it with the embedded model (at most 3 attempts,
//! fresh feedback) at each temperature; an answer is scored field by field (see `score.rs`).
//!
//! Prints a Markdown table (for docs/BENCHMARKS.md) on stdout, progress on stderr, and one JSON
//! line per run to `--out`.
//!
//! ```text
//! cargo run --release -p rectify-bench --features local-model --bin grounding -- \
//!     [--parts tune,test] [--temperatures 0,0.7] [--threads 1] [--seed N] [--only t01,t02] \
//!     [--grounding auto|off|on] [--model NAME] [--out target/grounding.jsonl]
//! ```
//!
//! `--threads 0` lets the provider choose (the cores other processes leave idle, as `rectify ask`
//! does); the default, 1, keeps the runs comparable on a shared machine.
//!
//! `--model` picks a model of `rectify_local::MODELS` by name (as `RECTIFY_LOCAL_MODEL` does);
//! the other switches of the embedded model come from its environment variables
//! (`RECTIFY_LOCAL_FIELD_BY_FIELD`, `RECTIFY_LOCAL_CONTRAST`, `RECTIFY_LOCAL_CHAT`, …). The
//! table reports the wall time per answer (median and 95th percentile, all attempts, the model
//! already loaded; its load time is printed first), answers that ended on the token limit, and
//! the process's peak resident memory; a second table says where the time went (prompt tokens
//! evaluated and restored from the cache, answer tokens, seconds in each), from each response's
//! metadata, which the log's lines keep under `metadata`.
//!
//! `--validity DIR` instead runs the loop-effectiveness prompts (`examples/bench-prompts`) the
//! way that benchmark's constrained mode (d) does (same tasks, schemas and rules, one provider
//! for all constrained calls, so the same seeds) and reports valid answers within 3 attempts,
//! calls and tokens per valid answer: the no-regression check of grounding, without the
//! unconstrained runs that take most of that benchmark's time.

#[path = "../loop_effectiveness/cases.rs"]
#[allow(dead_code)]
mod cases;
mod score;

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use rectify_local::{Grounding, LocalOptions, LocalProvider};
use rectify_loop::{Engine, FeedbackMode, Outcome, Task};
use rectify_provider::{Capabilities, CompletionFuture, Provider, Request};
use serde_json::{Value, json};

/// Token budget of one answer (as in the loop-effectiveness benchmark).
const MAX_OUTPUT_TOKENS: u32 = 400;

struct Args {
    data: PathBuf,
    parts: Vec<String>,
    temperatures: Vec<f64>,
    threads: u16,
    seed: Option<u32>,
    only: Vec<String>,
    grounding: Option<Grounding>,
    model: Option<String>,
    validity: Option<PathBuf>,
    out: PathBuf,
}

/// One extraction request with its expected values.
struct Case {
    id: String,
    kind: String,
    prompt: String,
    schema: Value,
    expected: Value,
}

/// The local provider, keeping each response's generation metadata (`Response::raw`: prompt
/// and answer tokens, their times, forced tokens) for the log; the loop's ledger keeps only the
/// answer text.
#[derive(Clone)]
struct Recording {
    inner: LocalProvider,
    metadata: Arc<Mutex<Vec<Value>>>,
}

impl Recording {
    /// The metadata recorded since the last call, emptied.
    fn take(&self) -> Vec<Value> {
        std::mem::take(&mut *self.metadata.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Provider for Recording {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(async move {
            let response = self.inner.complete(request).await?;
            let metadata = serde_json::from_str(&response.raw).unwrap_or(Value::Null);
            self.metadata
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(metadata);
            Ok(response)
        })
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn name(&self) -> &str {
        self.inner.name()
    }
}

/// Totals of one part at one temperature.
#[derive(Default)]
struct Tally {
    requests: usize,
    valid: usize,
    exact: usize,
    fields: (usize, usize),
    calls: u64,
    tokens: u64,
    /// Wall time of each answer, seconds.
    seconds: Vec<f64>,
    /// Attempts that ended on the token limit.
    length: usize,
    /// Prompt tokens evaluated, restored from the cache, and generated (all calls).
    prompt_tokens: u64,
    reused_tokens: u64,
    output_tokens: u64,
    /// Milliseconds evaluating prompts and generating answers (all calls).
    prompt_ms: u64,
    generation_ms: u64,
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
    let mut options = LocalOptions {
        threads: Some(args.threads),
        seed: args.seed.unwrap_or(LocalOptions::default().seed),
        model: args.model.clone(),
        ..LocalOptions::default()
    };
    if let Some(grounding) = args.grounding {
        options.grounding = grounding;
    }
    let local = LocalProvider::from_env_or_default(options)?;
    let model = local.load()?;
    let provider = Recording {
        inner: local,
        metadata: Arc::default(),
    };
    eprintln!("model {} loaded in {:?}", model.name(), model.load_time());
    let mut out = std::fs::File::create(&args.out)?;
    if let Some(dir) = &args.validity {
        return validity(&provider, dir, &args, &mut out).await;
    }
    let mut rows = Vec::new();
    for part in &args.parts {
        let mut cases = load(&args.data.join(format!("{part}.json")))?;
        if !args.only.is_empty() {
            cases.retain(|c| args.only.contains(&c.id));
        }
        for &temperature in &args.temperatures {
            let mut tally = Tally::default();
            for case in &cases {
                let started = std::time::Instant::now();
                let outcome = Engine::new(provider.clone())
                    .max_attempts(3)
                    .feedback(FeedbackMode::Fresh)
                    .run(&task(case, temperature)?)
                    .await;
                tally.seconds.push(started.elapsed().as_secs_f64());
                let mut line = tally.record(case, &outcome);
                tally.add_times(&provider.take(), &mut line);
                eprintln!("{part} T={temperature} {}", short(&line));
                writeln!(
                    out,
                    "{}",
                    json!({"part": part, "temperature": temperature, "run": line})
                )?;
            }
            rows.push((part.clone(), temperature, tally));
        }
    }
    println!("{}", table(&rows));
    println!("{}", times(&rows));
    println!(
        "model {} loaded in {:.2} s; peak resident memory {}",
        model.name(),
        model.load_time().as_secs_f64(),
        peak_memory()
    );
    Ok(())
}

/// The process's peak resident set size (`VmHWM` of `/proc/self/status`), or `?`.
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .map(|v| v.trim().to_owned())
        })
        .unwrap_or_else(|| "?".to_owned())
}

/// The `q` quantile (0..=1) of `values`, by the nearest rank.
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or(0.0)
}

/// The loop-effectiveness prompts under the constrained loop (see the module docs).
async fn validity(
    provider: &Recording,
    dir: &Path,
    args: &Args,
    out: &mut std::fs::File,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut cases = cases::load(dir, usize::MAX)?;
    if !args.only.is_empty() {
        cases.retain(|c| args.only.contains(&c.id));
    }
    println!(
        "| temperature | prompts | valid ≤3 attempts | valid first | calls per valid | tokens per valid |"
    );
    println!("|---|---|---|---|---|---|");
    for &temperature in &args.temperatures {
        let (mut valid, mut first, mut calls, mut tokens) = (0usize, 0usize, 0u64, 0u64);
        for case in &cases {
            let outcome = Engine::new(provider.clone())
                .max_attempts(3)
                .feedback(FeedbackMode::Fresh)
                .run(&case.task(temperature)?)
                .await;
            let totals = &outcome.ledger().totals;
            valid += usize::from(outcome.is_valid());
            first += usize::from(outcome.is_valid() && totals.attempts == 1);
            calls += u64::from(totals.attempts);
            tokens += totals.usage.total();
            let line = json!({"id": case.id, "kind": case.kind, "temperature": temperature,
                "valid": outcome.is_valid(), "attempts": totals.attempts,
                "tokens": totals.usage.total(), "answer": outcome.value()});
            eprintln!("{line}");
            writeln!(out, "{line}")?;
        }
        let per_valid = |x: u64| x as f64 / valid.max(1) as f64;
        println!(
            "| {temperature} | {} | {valid}/{} | {first}/{} | {:.2} | {:.0} |",
            cases.len(),
            cases.len(),
            cases.len(),
            per_valid(calls),
            per_valid(tokens)
        );
    }
    Ok(())
}

fn task(case: &Case, temperature: f64) -> Result<Task, Box<dyn std::error::Error>> {
    let template = Request::default()
        .with_temperature(temperature)
        .with_max_output_tokens(MAX_OUTPUT_TOKENS);
    Ok(Task::new(&case.prompt)
        .schema(case.schema.clone())?
        .request_template(template))
}

impl Tally {
    /// Counts one run; returns its JSON line for the log.
    fn record(&mut self, case: &Case, outcome: &Outcome<Value>) -> Value {
        let value = match outcome {
            Outcome::Valid { value, .. } => Some(value.clone()),
            Outcome::Exhausted { best, .. } => best.as_ref().and_then(|b| b.value.clone()),
            _ => None,
        };
        let (right, all) = score::score(&case.expected, value.as_ref());
        let totals = &outcome.ledger().totals;
        self.requests += 1;
        self.valid += usize::from(outcome.is_valid());
        self.exact += usize::from(right == all && outcome.is_valid());
        self.fields.0 += right;
        self.fields.1 += all;
        self.calls += u64::from(totals.attempts);
        self.tokens += totals.usage.total();
        self.length += outcome
            .ledger()
            .attempts
            .iter()
            .filter(|a| a.finish_reason == rectify_provider::FinishReason::Length)
            .count();
        let raw: Vec<&str> = outcome
            .ledger()
            .attempts
            .iter()
            .map(|a| a.raw.as_str())
            .collect();
        json!({
            "id": case.id, "kind": case.kind, "valid": outcome.is_valid(),
            "right": right, "fields": all, "attempts": totals.attempts,
            "tokens": totals.usage.total(), "answer": value, "expected": case.expected,
            "raw": raw, "seconds": self.seconds.last(),
        })
    }
}

impl Tally {
    /// Adds the calls' generation metadata to the totals and to `line` (as `metadata`).
    fn add_times(&mut self, metadata: &[Value], line: &mut Value) {
        for m in metadata {
            let get = |key: &str| m[key].as_u64().unwrap_or(0);
            self.prompt_tokens += get("prompt_tokens");
            self.reused_tokens += get("reused_prompt_tokens");
            self.output_tokens += get("output_tokens");
            self.prompt_ms += get("prompt_ms");
            self.generation_ms += get("generation_ms");
        }
        line["metadata"] = Value::from(metadata.to_vec());
    }
}

fn short(line: &Value) -> String {
    format!(
        "{} valid={} {}/{} attempts={} {}",
        line["id"].as_str().unwrap_or_default(),
        line["valid"],
        line["right"],
        line["fields"],
        line["attempts"],
        line["answer"]
    )
}

fn table(rows: &[(String, f64, Tally)]) -> String {
    let mut out = String::from(
        "| part | temperature | requests | schema-valid | fields right | answers all right | calls per answer | tokens per answer | s per answer p50 / p95 | token limit hit |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (part, temperature, t) in rows {
        let per = |x: u64| x as f64 / t.requests.max(1) as f64;
        let _ = writeln!(
            out,
            "| {part} | {temperature} | {} | {}/{} | {}/{} ({:.1}%) | {}/{} | {:.2} | {:.0} | {:.1} / {:.1} | {} |",
            t.requests,
            t.valid,
            t.requests,
            t.fields.0,
            t.fields.1,
            100.0 * t.fields.0 as f64 / t.fields.1.max(1) as f64,
            t.exact,
            t.requests,
            per(t.calls),
            per(t.tokens),
            quantile(&t.seconds, 0.5),
            quantile(&t.seconds, 0.95),
            t.length,
        );
    }
    out
}

/// Where the time goes, per call: prompt tokens evaluated (and restored from the cache),
/// answer tokens, and the time evaluating the prompt and generating.
fn times(rows: &[(String, f64, Tally)]) -> String {
    let mut out = String::from(
        "| part | temperature | calls | prompt tokens evaluated per call | restored from cache | answer tokens per call | prompt s per call | answer s per call | prompt tokens/s |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for (part, temperature, t) in rows {
        let calls = t.calls.max(1) as f64;
        let evaluated = t.prompt_tokens.saturating_sub(t.reused_tokens);
        let _ = writeln!(
            out,
            "| {part} | {temperature} | {} | {:.0} | {:.0} | {:.1} | {:.2} | {:.2} | {:.0} |",
            t.calls,
            evaluated as f64 / calls,
            t.reused_tokens as f64 / calls,
            t.output_tokens as f64 / calls,
            t.prompt_ms as f64 / 1000.0 / calls,
            t.generation_ms as f64 / 1000.0 / calls,
            evaluated as f64 * 1000.0 / t.prompt_ms.max(1) as f64,
        );
    }
    out
}

fn load(path: &Path) -> Result<Vec<Case>, Box<dyn std::error::Error>> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let cases = doc["cases"]
        .as_array()
        .ok_or_else(|| format!("{}: no `cases` list", path.display()))?;
    Ok(cases
        .iter()
        .map(|c| {
            let text = |key: &str| c[key].as_str().unwrap_or_default().to_owned();
            Case {
                id: text("id"),
                kind: text("kind"),
                prompt: text("prompt"),
                schema: c["schema"].clone(),
                expected: c["expected"].clone(),
            }
        })
        .collect())
}

fn parse_args() -> Result<Args, Box<dyn std::error::Error>> {
    let list = |value: &str| value.split(',').map(str::to_owned).collect::<Vec<_>>();
    let mut args = Args {
        data: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data/grounding")),
        parts: list("tune,test"),
        temperatures: vec![0.0, 0.7],
        threads: 1,
        seed: None,
        only: Vec::new(),
        grounding: None,
        model: None,
        validity: None,
        out: PathBuf::from("target/grounding.jsonl"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--data" => args.data = PathBuf::from(value),
            "--parts" => args.parts = list(&value),
            "--temperatures" => {
                args.temperatures = value.split(',').map(str::parse).collect::<Result<_, _>>()?;
            }
            "--threads" => args.threads = value.parse()?,
            "--seed" => args.seed = Some(value.parse()?),
            "--only" => args.only = list(&value),
            "--grounding" => args.grounding = Some(value.parse()?),
            "--model" => args.model = Some(value),
            "--validity" => args.validity = Some(PathBuf::from(value)),
            "--out" => args.out = PathBuf::from(value),
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    Ok(args)
}
