//! Parsing and validating the rules file. Every mistake is a [`ConfigError`] naming the rule
//! by index, id and (when read from text) line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rectify_core::{Document, Severity};
use serde_json::{Map, Value};

use super::path::Query;
use super::template::Template;
use super::{
    Check, Rule, RuleSet, any_nonempty, length, markdown_heading, markdown_section, reference,
    required_nonempty, unique,
};
use crate::ConfigError;

const META: &[&str] = &["id", "message", "severity", "description"];
const CHECKS: &[&str] = &[
    "each",
    "in",
    "any_nonempty",
    "unique",
    "required_nonempty",
    "markdown",
    "min_length",
    "max_length",
];

/// Maps a JSON Pointer in the rules file to a line, when the file was read from text.
pub(super) type LineOf<'a> = &'a dyn Fn(&str) -> Option<usize>;

pub(super) fn parse(
    value: &Value,
    base_dir: Option<&Path>,
    line_of: LineOf<'_>,
) -> Result<RuleSet, ConfigError> {
    let file_error = |pointer: &str, message: String| ConfigError::RulesFile {
        line: line_of(pointer),
        message,
    };
    let Some(top) = value.as_object() else {
        return Err(file_error(
            "",
            "expected a mapping with `rules:` (and optionally `documents:`)".into(),
        ));
    };
    if let Some(key) = top
        .keys()
        .find(|k| !matches!(k.as_str(), "rules" | "documents"))
    {
        return Err(file_error(
            "",
            format!("unknown key `{key}` (expected `rules` and `documents`)"),
        ));
    }
    let documents =
        parse_documents(top.get("documents"), base_dir).map_err(|m| file_error("/documents", m))?;
    let items = match top.get("rules") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(file_error("/rules", "`rules` must be a list".into())),
        None => return Err(file_error("", "missing `rules:` list".into())),
    };
    let mut rules = Vec::with_capacity(items.len());
    let mut seen = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        let line = line_of(&format!("/rules/{index}"));
        let rule = parse_rule(index, item).map_err(|(id, message)| ConfigError::Rule {
            index,
            id,
            line,
            message,
        })?;
        if !seen.insert(rule.id.clone()) {
            return Err(ConfigError::Rule {
                index,
                id: Some(rule.id),
                line,
                message: "duplicate rule id".into(),
            });
        }
        rules.push(rule);
    }
    Ok(RuleSet { rules, documents })
}

fn parse_documents(
    value: Option<&Value>,
    base_dir: Option<&Path>,
) -> Result<BTreeMap<String, PathBuf>, String> {
    let Some(value) = value else {
        return Ok(BTreeMap::new());
    };
    let map = value
        .as_object()
        .ok_or("`documents` must map names to file paths")?;
    map.iter()
        .map(|(name, path)| {
            let path = path
                .as_str()
                .ok_or_else(|| format!("document `{name}` must be a file path"))?;
            reference::check_name(name)?;
            let path = Path::new(path);
            let resolved = match base_dir {
                Some(dir) => under(dir, path).map_err(|why| {
                    format!(
                        "document `{name}`: `{}` {why}; a rules file reads only files under its \
                         own directory (name others with `--ref {name}=FILE`)",
                        path.display()
                    )
                })?,
                None => path.to_path_buf(),
            };
            Ok((name.clone(), resolved))
        })
        .collect()
}

/// `path` joined to `dir` when it stays under it: relative, no `..` out, and (when it exists)
/// no symlink leading out. A rules file is configuration, but what its documents hold ends up
/// in messages, as a schema's `$ref` does.
fn under(dir: &Path, path: &Path) -> Result<PathBuf, &'static str> {
    use std::path::Component;
    if !path.is_relative() {
        return Err("is absolute");
    }
    let mut depth = 0usize;
    for c in path.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir => return Err("leads out of the rules file's directory"),
            _ => {}
        }
    }
    let joined = dir.join(path);
    if let (Ok(real), Ok(root)) = (joined.canonicalize(), dir.canonicalize())
        && !real.starts_with(root)
    {
        return Err("leads out of the rules file's directory through a symlink");
    }
    Ok(joined)
}

type RuleError = (Option<String>, String);

fn parse_rule(index: usize, item: &Value) -> Result<Rule, RuleError> {
    let map = item
        .as_object()
        .ok_or((None, "a rule must be a mapping".to_owned()))?;
    let id = match map.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(_) => return Err((None, "`id` must be a non-empty string".into())),
        None => return Err((None, "missing `id`".into())),
    };
    let fail = |message: String| (Some(id.clone()), message);
    let spec = Spec { map };
    let check = parse_check(&spec).map_err(fail)?;
    let message = match map.get("message") {
        None => None,
        Some(Value::String(text)) => {
            Some(Template::parse(text, check.placeholders()).map_err(fail)?)
        }
        Some(_) => return Err(fail("`message` must be a string".into())),
    };
    let severity = match map.get("severity").map(Value::as_str) {
        None | Some(Some("error")) => Severity::Error,
        Some(Some("warning")) => Severity::Warning,
        Some(_) => return Err(fail("`severity` must be `error` or `warning`".into())),
    };
    Ok(Rule {
        id: id.clone(),
        index,
        severity,
        message,
        check,
    })
}

/// Picks the one check a rule has; two checks, none, or an unknown key are errors.
fn parse_check(spec: &Spec<'_>) -> Result<Check, String> {
    if let Some(key) = spec
        .map
        .keys()
        .find(|k| !META.contains(&k.as_str()) && !CHECKS.contains(&k.as_str()))
    {
        return Err(format!(
            "unknown check `{key}` (known: each/in, any_nonempty, unique, required_nonempty, markdown, min_length, max_length)"
        ));
    }
    let has = |k: &str| spec.map.contains_key(k);
    let mut kinds: Vec<&str> = [
        "in",
        "any_nonempty",
        "unique",
        "required_nonempty",
        "markdown",
    ]
    .into_iter()
    .filter(|k| has(k))
    .collect();
    if has("min_length") || has("max_length") {
        kinds.push(if has("min_length") {
            "min_length"
        } else {
            "max_length"
        });
    }
    match kinds.as_slice() {
        [] if has("each") => Err("`each` needs `in` (or `any_nonempty`/`required_nonempty` to check inside each match)".into()),
        [] => Err("the rule has no check (expected one of each/in, any_nonempty, unique, required_nonempty, markdown, min_length, max_length)".into()),
        [one] => build_check(one, spec),
        [a, b, ..] => Err(format!("the rule has two checks, `{a}` and `{b}`: split it into two rules")),
    }
}

fn build_check(kind: &str, spec: &Spec<'_>) -> Result<Check, String> {
    let scope = spec.query_opt("each")?;
    if scope.is_some() && !matches!(kind, "in" | "any_nonempty" | "required_nonempty") {
        return Err(format!("`each` cannot be combined with `{kind}`"));
    }
    Ok(match kind {
        "in" => Check::Reference(reference::Reference::parse(spec, scope)?),
        "any_nonempty" => Check::AnyNonempty(any_nonempty::AnyNonempty::parse(spec, scope)?),
        "unique" => Check::Unique(unique::Unique::parse(spec)?),
        "required_nonempty" => {
            Check::RequiredNonempty(required_nonempty::RequiredNonempty::parse(spec, scope)?)
        }
        "markdown" => markdown(spec)?,
        _ => Check::Length(length::Length::parse(spec)?),
    })
}

fn markdown(spec: &Spec<'_>) -> Result<Check, String> {
    let inner = spec
        .get("markdown")
        .and_then(Value::as_object)
        .ok_or("`markdown` must be a mapping with `heading` or `section`")?;
    let inner = Spec { map: inner };
    match (
        inner.get("heading").is_some(),
        inner.get("section").is_some(),
    ) {
        (true, false) => Ok(Check::Heading(markdown_heading::Heading::parse(&inner)?)),
        (false, true) => Ok(Check::Section(markdown_section::Section::parse(&inner)?)),
        (true, true) => Err(
            "`markdown` has two checks, `heading` and `section`: split it into two rules".into(),
        ),
        (false, false) => Err("`markdown` needs `heading` or `section`".into()),
    }
}

impl Check {
    fn placeholders(&self) -> &'static [&'static str] {
        match self {
            Check::Reference(_) => reference::PLACEHOLDERS,
            Check::AnyNonempty(_) => any_nonempty::PLACEHOLDERS,
            Check::Unique(_) => unique::PLACEHOLDERS,
            Check::RequiredNonempty(_) => required_nonempty::PLACEHOLDERS,
            Check::Heading(_) => markdown_heading::PLACEHOLDERS,
            Check::Section(_) => markdown_section::PLACEHOLDERS,
            Check::Length(_) => length::PLACEHOLDERS,
        }
    }
}

/// Typed access to the keys of one rule (or of its `markdown:` mapping).
pub(super) struct Spec<'a> {
    map: &'a Map<String, Value>,
}

impl Spec<'_> {
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// Rejects keys other than `allowed` (used for nested mappings).
    pub(super) fn only(&self, what: &str, allowed: &[&str]) -> Result<(), String> {
        match self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(key) => Err(format!(
                "unknown key `{key}` in `{what}` (expected {})",
                allowed.join(", ")
            )),
            None => Ok(()),
        }
    }

    pub(super) fn string(&self, key: &str) -> Result<&str, String> {
        self.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`{key}` must be a string"))
    }

    pub(super) fn query_opt(&self, key: &str) -> Result<Option<Query>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(_) => Query::parse(self.string(key)?).map(Some),
        }
    }

    pub(super) fn query(&self, key: &str) -> Result<Query, String> {
        Query::parse(self.string(key)?)
    }

    /// One JSONPath or a non-empty list of them.
    pub(super) fn queries(&self, key: &str) -> Result<Vec<Query>, String> {
        match self.get(key) {
            Some(Value::String(s)) => Ok(vec![Query::parse(s)?]),
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| format!("`{key}` must list JSONPath strings"))
                        .and_then(Query::parse)
                })
                .collect(),
            _ => Err(format!(
                "`{key}` must be a JSONPath or a non-empty list of JSONPaths"
            )),
        }
    }

    pub(super) fn count(&self, key: &str) -> Result<Option<usize>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("`{key}` must be a non-negative integer")),
        }
    }

    pub(super) fn regex(&self, key: &str) -> Result<regex::Regex, String> {
        let pattern = self.string(key)?;
        regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("invalid regex `{pattern}` in `{key}`: {}", regex_reason(&e)))
    }
}

/// The last line of a regex error (`error: unclosed group`), without the pattern repeated.
fn regex_reason(err: &regex::Error) -> String {
    let text = err.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(&text);
    last.trim().trim_start_matches("error: ").to_owned()
}

/// Reads a rules file as a document with spans.
pub(super) fn read_file(path: &Path) -> Result<Document, ConfigError> {
    read_document(path).map_err(|message| ConfigError::Unreadable {
        origin: path.display().to_string(),
        message,
    })
}

/// Reads a reference document named `name`.
pub(super) fn read_reference(name: &str, path: &Path) -> Result<Document, ConfigError> {
    read_document(path).map_err(|message| ConfigError::InvalidDocument {
        name: name.to_owned(),
        message: format!("{}: {message}", path.display()),
    })
}

fn read_document(path: &Path) -> Result<Document, String> {
    crate::files::read_document(path).map_err(|failure| failure.to_string())
}
