//! Arguments of `rectify report` and `rectify runs`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

/// Arguments of `rectify report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run.
    #[arg(value_name = "RUN")]
    pub run: String,
    /// The working directory whose `.rectify/rectify.db` holds the run.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workdir: PathBuf,
    /// `html`: one self-contained page; `json`: the whole run as one JSON document.
    #[arg(long, value_enum, default_value_t)]
    pub output: ReportFormat,
}

/// What `rectify report` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// A self-contained HTML page (timeline, attempts, diagnostics, verdicts, usage).
    #[default]
    Html,
    /// One JSON document.
    Json,
}

/// Arguments of `rectify runs`.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// What to do with the stored runs.
    #[command(subcommand)]
    pub command: RunsCommand,
}

/// `rectify runs` subcommands.
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Delete runs (not running ones) last updated longer ago than `--older-than`, with
    /// their answers and files, and compact the store.
    Prune(PruneArgs),
}

/// Arguments of `rectify runs prune`.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Age, as a number and a unit: `30d`, `12h`, `45m`, `90s`.
    #[arg(long, value_name = "DURATION", value_parser = parse_age)]
    pub older_than: std::time::Duration,
    /// The working directory whose `.rectify/rectify.db` holds the runs.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workdir: PathBuf,
}

/// Parses `30d`, `12h`, `45m`, `90s`.
pub fn parse_age(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{text}` has no unit: use d, h, m or s (e.g. `30d`)"))?;
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` does not start with a number (e.g. `30d`)"))?;
    let seconds = match unit {
        "d" => 86_400,
        "h" => 3_600,
        "m" => 60,
        "s" => 1,
        _ => {
            return Err(format!(
                "unknown unit `{unit}` in `{text}`: use d, h, m or s"
            ));
        }
    };
    n.checked_mul(seconds)
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| format!("`{text}` is too long"))
}

#[cfg(test)]
mod tests {
    use super::parse_age;

    #[test]
    fn ages_take_a_unit() {
        assert_eq!(parse_age("30d").unwrap().as_secs(), 30 * 86_400);
        assert_eq!(parse_age("90s").unwrap().as_secs(), 90);
        assert!(parse_age("30").is_err());
        assert!(parse_age("d").is_err());
        assert!(parse_age("3w").is_err());
        assert!(parse_age("99999999999999999999d").is_err());
    }
}
