//! Verdicts of validator agents (docs/architecture.md, "Validators and verdicts"):
//! `**Verdict: PASS|WARN|FAIL**` and a `**Findings:**` list of `- [PASS|WARN|FAIL] text
//! (file:line)`.

use std::sync::LazyLock;

use rectify_core::{Diagnostic, Finding, FindingLevel, Location, Verdict};
use regex::Regex;

/// `Verdict: PASS` with any emphasis, heading marks or case; `PASSED`/`FAILED`/`WARNING` too.
static VERDICT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^[\s>#*_`-]*verdict[\s*_`]*[:\-–—][\s*_`]*(pass(?:ed)?|warn(?:ing)?|fail(?:ed)?)\b([^\n]*)$",
    )
    .ok()
});

/// `- [FAIL] text (file:line)` with `-`, `*` or `+` bullets and optional emphasis.
static FINDING: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*[-*+]\s*[*_`]*\[\s*(pass|warn|warning|fail)\s*\][*_`]*\s*(.*?)\s*$").ok()
});

/// A trailing `(path/to/file.rs:12)`.
static LOCATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\(\s*([^()\s]+?):(\d+)\s*\)\s*$").ok());

/// Parses a validator's answer. The last verdict line wins; a missing (or ambiguous)
/// verdict is `Fail`, with a finding that says so. Findings are collected from the whole text.
///
/// ```
/// use rectify_core::Verdict;
/// use rectify_loop::parse_verdict;
///
/// let text = "Looks mostly fine.\n\n**Findings:**\n- [WARN] no tests for parse (src/parse.rs:40)\n\n**Verdict: warn**";
/// let Verdict::Warn { findings } = parse_verdict(text) else { panic!() };
/// assert_eq!(findings[0].file.as_deref(), Some("src/parse.rs"));
/// assert_eq!(findings[0].line, Some(40));
/// assert!(matches!(parse_verdict("I think it is good."), Verdict::Fail { .. }));
/// ```
pub fn parse_verdict(text: &str) -> Verdict {
    let findings = findings(text);
    match level(text) {
        Some(FindingLevel::Pass) => Verdict::Pass,
        Some(FindingLevel::Warn) => Verdict::Warn { findings },
        Some(FindingLevel::Fail) => Verdict::Fail { findings },
        None => {
            let mut findings = findings;
            findings.push(Finding {
                level: FindingLevel::Fail,
                text: "no verdict found: end the answer with `**Verdict: PASS**`, `**Verdict: WARN**` or `**Verdict: FAIL**`".to_owned(),
                file: None,
                line: None,
            });
            Verdict::Fail { findings }
        }
    }
}

fn level(text: &str) -> Option<FindingLevel> {
    let re = VERDICT.as_ref()?;
    re.captures_iter(text)
        .filter(|c| {
            // `Verdict: PASS|WARN|FAIL` is the template, not a verdict.
            let rest = c.get(2).map_or("", |m| m.as_str()).trim_start();
            !rest.starts_with(['|', '/'])
        })
        .last()
        .and_then(|c| c.get(1))
        .and_then(|m| parse_level(m.as_str()))
}

fn parse_level(word: &str) -> Option<FindingLevel> {
    let word = word.to_ascii_lowercase();
    if word.starts_with("pass") {
        Some(FindingLevel::Pass)
    } else if word.starts_with("warn") {
        Some(FindingLevel::Warn)
    } else if word.starts_with("fail") {
        Some(FindingLevel::Fail)
    } else {
        None
    }
}

fn findings(text: &str) -> Vec<Finding> {
    let Some(re) = FINDING.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text)
        .filter_map(|c| {
            let level = parse_level(c.get(1)?.as_str())?;
            Some(finding(level, c.get(2).map_or("", |m| m.as_str())))
        })
        .collect()
}

fn finding(level: FindingLevel, text: &str) -> Finding {
    let located = LOCATION.as_ref().and_then(|re| re.captures(text));
    let (text, file, line) = match located {
        Some(c) => {
            let start = c.get(0).map_or(text.len(), |m| m.start());
            (
                text.get(..start).unwrap_or(text),
                c.get(1).map(|m| m.as_str().to_owned()),
                c.get(2).and_then(|m| m.as_str().parse().ok()),
            )
        }
        None => (text, None, None),
    };
    Finding {
        level,
        text: text.trim().to_owned(),
        file,
        line,
    }
}

/// The findings that need attention as diagnostics, ready to be fed back to the producer:
/// `FAIL` findings are errors, `WARN` findings warnings. A `Fail` verdict without a `FAIL`
/// finding still yields one error, so a failing verdict is never accepted.
pub fn verdict_diagnostics(verdict: &Verdict) -> Vec<Diagnostic> {
    let (findings, failed) = match verdict {
        Verdict::Pass => return Vec::new(),
        Verdict::Warn { findings } => (findings.as_slice(), false),
        Verdict::Fail { findings } => (findings.as_slice(), true),
        // A verdict this version does not know counts as FAIL, as a missing one does.
        _ => (&[][..], true),
    };
    let mut out: Vec<Diagnostic> = findings.iter().filter_map(diagnostic).collect();
    if failed && !out.iter().any(Diagnostic::is_error) {
        out.push(
            Diagnostic::error(
                "verdict.fail",
                Location::root(),
                "the validator's verdict is FAIL",
            )
            .source("verdict"),
        );
    }
    out
}

fn diagnostic(f: &Finding) -> Option<Diagnostic> {
    let message = match (&f.file, f.line) {
        (Some(file), Some(line)) => format!("{} ({file}:{line})", f.text),
        _ => f.text.clone(),
    };
    let d = match f.level {
        FindingLevel::Pass => return None,
        FindingLevel::Warn => Diagnostic::warning("verdict.warn", Location::root(), message),
        FindingLevel::Fail => Diagnostic::error("verdict.fail", Location::root(), message),
    };
    Some(d.source("verdict"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_of_case_emphasis_and_headings() {
        for text in [
            "**Verdict: PASS**",
            "verdict: pass",
            "## Verdict: Passed",
            "**Verdict:** PASS",
            "__VERDICT__ - pass",
            "> Verdict: `PASS`",
        ] {
            assert_eq!(parse_verdict(text), Verdict::Pass, "{text}");
        }
        assert!(matches!(
            parse_verdict("**Verdict: FAILED**"),
            Verdict::Fail { .. }
        ));
        assert!(matches!(
            parse_verdict("Verdict: warning"),
            Verdict::Warn { .. }
        ));
    }

    #[test]
    fn last_verdict_wins_and_the_template_is_ignored() {
        let text = "Reply with **Verdict: PASS|WARN|FAIL**.\n...\n**Verdict: PASS**\nOn reflection:\n**Verdict: FAIL**";
        assert!(matches!(parse_verdict(text), Verdict::Fail { .. }));
        let Verdict::Fail { findings } = parse_verdict("Verdict: PASS/WARN/FAIL") else {
            panic!("template alone is no verdict");
        };
        assert!(findings[0].text.starts_with("no verdict found"));
    }

    #[test]
    fn findings_with_locations_become_diagnostics() {
        let text = "**Findings:**\n- [PASS] builds\n* **[FAIL]** off-by-one in loop (src/a.rs:12)\n- [warn] naming (docs)\n\n**Verdict: FAIL**";
        let verdict = parse_verdict(text);
        let Verdict::Fail { findings } = &verdict else {
            panic!("{verdict:?}");
        };
        assert_eq!(findings.len(), 3);
        assert_eq!(findings[1].text, "off-by-one in loop");
        assert_eq!(
            (findings[1].file.as_deref(), findings[1].line),
            (Some("src/a.rs"), Some(12))
        );
        assert_eq!(findings[2].text, "naming (docs)");
        let diags = verdict_diagnostics(&verdict);
        let lines: Vec<(&str, &str)> = diags
            .iter()
            .map(|d| (d.code.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            lines,
            vec![
                ("verdict.fail", "off-by-one in loop (src/a.rs:12)"),
                ("verdict.warn", "naming (docs)")
            ]
        );
    }

    #[test]
    fn failing_verdict_without_fail_findings_is_still_an_error() {
        let diags = verdict_diagnostics(&parse_verdict("**Verdict: FAIL**"));
        assert_eq!(diags.len(), 1);
        assert!(diags[0].is_error());
        assert!(verdict_diagnostics(&Verdict::Pass).is_empty());
        assert!(!parse_verdict("").accepts());
    }
}
