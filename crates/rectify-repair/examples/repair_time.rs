//! Times the library's repair of one answer: `repair_time FILE [SCHEMA]` prints the best of
//! three runs of `repair` (the value path) and of `repair_to_json` (the text path), in
//! seconds. Used by `crates/rectify-bench/scripts/repair_linear.sh`.

use std::time::{Duration, Instant};

use rectify_repair::{RepairOptions, repair, repair_to_json};

fn best(mut run: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args.next().ok_or("usage: repair_time FILE [SCHEMA]")?;
    let text = std::fs::read_to_string(file)?;
    let mut options = RepairOptions::default();
    if let Some(schema) = args.next() {
        options = options.with_schema(serde_json::from_str(&std::fs::read_to_string(schema)?)?);
    }
    let value = best(|| drop(repair(&text, &options)));
    let json = best(|| drop(repair_to_json(&text, &options)));
    println!("{:.6} {:.6}", value.as_secs_f64(), json.as_secs_f64());
    Ok(())
}
