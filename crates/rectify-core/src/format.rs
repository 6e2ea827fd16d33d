use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The textual format of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// JSON (RFC 8259).
    Json,
    /// YAML 1.2.
    Yaml,
    /// Markdown, optionally with YAML front matter.
    Markdown,
    /// Plain text: no structure, only text rules apply.
    Text,
}

impl Format {
    /// Guesses the format from a file name's extension, if it has a known one.
    pub fn from_path(path: &str) -> Option<Format> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "json" | "jsonl" | "geojson" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            "md" | "markdown" => Some(Format::Markdown),
            "txt" | "text" => Some(Format::Text),
            _ => None,
        }
    }

    /// Guesses the format from content: `{`/`[` means JSON, a leading `#` heading or front
    /// matter means Markdown, anything else YAML.
    pub fn sniff(text: &str) -> Format {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        match trimmed.as_bytes().first() {
            Some(b'{' | b'[') => Format::Json,
            Some(b'#') => Format::Markdown,
            _ => Format::Yaml,
        }
    }

    /// The lowercase name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Markdown => "markdown",
            Format::Text => "text",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "json" => Ok(Format::Json),
            "yaml" | "yml" => Ok(Format::Yaml),
            "markdown" | "md" => Ok(Format::Markdown),
            "text" | "txt" => Ok(Format::Text),
            other => Err(format!(
                "unknown format `{other}` (expected json, yaml, markdown or text)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_and_sniffing() {
        assert_eq!(Format::from_path("a/plan.YML"), Some(Format::Yaml));
        assert_eq!(Format::from_path("plan"), None);
        assert_eq!(Format::sniff("  [1]"), Format::Json);
        assert_eq!(Format::sniff("# Plan"), Format::Markdown);
        assert_eq!(Format::sniff("a: 1"), Format::Yaml);
        assert!("xml".parse::<Format>().is_err());
    }
}
