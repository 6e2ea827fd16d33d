//! Non-container targets: when the schema's root is a string, number, integer, boolean,
//! `enum` or `const`, the answer's text itself is a candidate — `$1,250.00` for a number,
//! `The answer is TWO` or `ONE: the first option` for an enum, `Yes` for a boolean, the
//! trimmed text for a string. Each reading is a recorded repair.

use std::sync::LazyLock;

use rectify_core::Repair;
use serde_json::Value;

use super::enums::fold;
use super::scalar::{boolean_from, number_from};
use super::schema::{branches, resolve, types};
use super::text_reading;
use crate::rules::RepairRule;

/// A number as written in prose: a sign, a currency sign, thousands separators.
static NUMBER: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(r"[-+]?[$€£¥]?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?").ok()
});

/// A whole text that is one number with a currency sign before or after it (`$12.50`,
/// `12.50 €`), or with thousands separators and no sign (`1,250,000`, `1,250.00`); which of
/// these have one reading [`formatted_number`] decides. ASCII digits only.
static FORMATTED: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(concat!(
        r"^[-+]?(?:",
        r"[$€£¥]\s?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?",
        r"|(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?\s?[€£¥$]",
        r"|[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?",
        r")$"
    ))
    .ok()
});

/// The JSON number text of `t` when the whole of it (trimmed) is a number in a format with
/// one reading: signs of currency and thousands dropped. Not read (left to [`number`]): a
/// single comma group with no decimal point (`1,250`, `€1,250`, `1,250 $`: maybe a decimal
/// comma) unless a dollar sign comes first (`$1,250`), and a point followed by exactly three
/// digits with no comma before it (`€1.500`, `1.234 €`: maybe a thousands point).
pub(crate) fn formatted_number(t: &str) -> Option<String> {
    let t = t.trim();
    if !FORMATTED.as_ref()?.is_match(t) {
        return None;
    }
    let unsigned = t.trim_start_matches(['-', '+']);
    let commas = t.matches(',').count();
    let decimals = t
        .split_once('.')
        .map(|(_, d)| d.chars().take_while(char::is_ascii_digit).count());
    if commas == 1 && decimals.is_none() && !unsigned.starts_with('$') {
        return None;
    }
    if commas == 0 && decimals == Some(3) {
        return None;
    }
    Some(digits(t))
}

/// The digits, point and minus sign of a number as written (currency and thousands signs
/// dropped).
fn digits(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_ascii_digit() || matches!(c, '.' | '-'))
        .collect()
}

/// A fraction written with a slash (`1/5`, `8 / 10`); its boundaries are checked apart (a
/// date such as `12/05/2024` is no fraction).
static FRACTION: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"[-+]?\d+(?:\.\d+)?\s*/\s*\d+(?:\.\d+)?").ok());

/// A word after a number that scales it (`1.5 million`, `2k`), or that may be a unit as
/// well as a scale (`m`, `b`): then the number is not read.
static SCALE: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(r"^\s?(thousand|million|billion|trillion|k|K|M|bn|B|m|b|mn|tn)\b").ok()
});

/// The value `text` stands for under the scalar `schema` (resolved in `root`), with the
/// repair that reads it; `None` when the schema wants a container or nothing reads.
pub(crate) fn read(root: &Value, schema: &Value, text: &str) -> Option<(Value, Repair)> {
    read_branch(root, schema, text, 0)
}

/// [`read`], through the branches of an `anyOf`/`oneOf` in order (the first that reads).
fn read_branch(root: &Value, schema: &Value, text: &str, depth: usize) -> Option<(Value, Repair)> {
    let schema = resolve(root, schema);
    if let Some(branches) = branches(schema) {
        return branches
            .iter()
            .filter(|_| depth < 8)
            .find_map(|b| read_branch(root, b, text, depth + 1));
    }
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let allowed = match (schema.get("const"), schema.get("enum")) {
        (Some(c), _) => Some(std::slice::from_ref(c)),
        (None, Some(Value::Array(e))) => Some(e.as_slice()),
        _ => None,
    };
    let (value, rule) = match allowed {
        Some(allowed) => enum_value(t, allowed)?,
        None => typed(t, &types(schema))?,
    };
    Some(text_reading(rule, t, value))
}

/// A scalar of one of `types` read from the text.
fn typed(t: &str, types: &[&str]) -> Option<(Value, RepairRule)> {
    let bare = bare(t);
    if types.contains(&"boolean")
        && let Some(hit) = boolean_from(bare).or_else(|| boolean_named(t))
    {
        return Some(hit);
    }
    let numeric = types.contains(&"number") || types.contains(&"integer");
    let integer = !types.contains(&"number");
    if numeric && let Some(n) = formatted_number(t).and_then(|f| number_from(&f, integer)) {
        return Some((n, RepairRule::NumberFromString));
    }
    if numeric && let Some(n) = number(t, integer) {
        return Some((n, RepairRule::TextAsNumber));
    }
    types
        .contains(&"string")
        .then(|| (Value::String(t.to_owned()), RepairRule::TextAsString))
}

/// True when the whole of `t` (trimmed) is one number written with thousands separators
/// (`1,234.5`, `-$12,000`).
pub(crate) fn thousands_separated(t: &str) -> bool {
    let t = t.trim();
    t.contains(',')
        && NUMBER
            .as_ref()
            .and_then(|re| re.find(t))
            .is_some_and(|hit| hit.start() == 0 && hit.end() == t.len())
}

/// The only number written in `t` (currency sign and thousands separators dropped), or the
/// value of the only fraction written in it when no other number is (`1/5` → 0.2).
pub(super) fn number(t: &str, integer: bool) -> Option<Value> {
    if let Some(value) = fraction(t) {
        return whole_or_fraction(value, integer);
    }
    let re = NUMBER.as_ref()?;
    let mut found = re.find_iter(t);
    let hit = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let digits = digits(hit.as_str());
    let f: f64 = digits.parse().ok()?;
    let f = match scale(t.get(hit.end()..)?) {
        Some(Scale::Factor(factor)) => return whole_or_fraction(f * factor, integer),
        Some(Scale::Ambiguous) => return None,
        None => f,
    };
    if integer || !digits.contains('.') {
        return whole_or_fraction(f, integer);
    }
    Some(Value::from(f))
}

/// A scale word after a number.
enum Scale {
    /// `million` or `M`: the number times this factor.
    Factor(f64),
    /// A letter that may be a unit too (`m`, `b`).
    Ambiguous,
}

/// The scale word at the start of `after`, if any.
fn scale(after: &str) -> Option<Scale> {
    let word = SCALE.as_ref()?.captures(after)?.get(1)?.as_str();
    Some(match word {
        "thousand" | "k" | "K" => Scale::Factor(1e3),
        "million" | "M" | "mn" => Scale::Factor(1e6),
        "billion" | "bn" | "B" => Scale::Factor(1e9),
        "trillion" | "tn" => Scale::Factor(1e12),
        _ => Scale::Ambiguous,
    })
}

/// The value of the only fraction `a/b` in `t` (`b` not zero), when `t` holds no other
/// number and no slash or digit touches it.
fn fraction(t: &str) -> Option<f64> {
    let re = FRACTION.as_ref()?;
    let mut found = re.find_iter(t);
    let hit = found.next()?;
    // A `.` after it ends a sentence (a decimal part would have been read).
    let touches = |c: Option<char>, dot| {
        c.is_some_and(|c| c.is_ascii_digit() || c == '/' || (dot && c == '.'))
    };
    let before = t.get(..hit.start()).and_then(|s| s.chars().next_back());
    let after = t.get(hit.end()..).and_then(|s| s.chars().next());
    let rest = format!("{} {}", t.get(..hit.start())?, t.get(hit.end()..)?);
    if found.next().is_some()
        || touches(before, true)
        || touches(after, false)
        || rest.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    let (a, b) = hit.as_str().split_once('/')?;
    let a: f64 = a.trim().parse().ok()?;
    let b: f64 = b.trim().parse().ok()?;
    (b != 0.0).then(|| a / b)
}

/// `f` as a JSON number: whole values as integers; `integer` refuses a fraction.
fn whole_or_fraction(f: f64, integer: bool) -> Option<Value> {
    if f.fract() == 0.0 && f.abs() <= 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        return Some(Value::from(f as i64));
    }
    (!integer && f.is_finite()).then(|| Value::from(f))
}

/// The enum value the text names: the whole text in another case, a value followed by a
/// separator and a description (`ONE: the first option`), or the only value mentioned.
pub(super) fn enum_value(t: &str, allowed: &[Value]) -> Option<(Value, RepairRule)> {
    let name = |a: &Value| a.as_str().map_or_else(|| a.to_string(), str::to_owned);
    let bare = bare(t);
    if let Some(a) = allowed.iter().find(|a| fold(&name(a)) == fold(bare)) {
        return Some((a.clone(), RepairRule::EnumMatch));
    }
    // A boolean among the values is named as a boolean is (`yes` for `const: true`).
    if let Some((b, rule)) = boolean_from(bare).filter(|(b, _)| allowed.contains(b)) {
        return Some((b, rule));
    }
    let lower = t.to_lowercase();
    let prefixed: Vec<&Value> = allowed
        .iter()
        .filter(|a| {
            let n = name(a).to_lowercase();
            lower.strip_prefix(&n).is_some_and(|rest| {
                rest.trim_start()
                    .starts_with([':', '-', '–', '—', '.', ')', '='])
            })
        })
        .collect();
    if let [one] = prefixed.as_slice() {
        return Some(((*one).clone(), RepairRule::TextAsEnum));
    }
    // `PENDING_REVIEW` is mentioned as `pending review` or `pending-review` too.
    let mentioned: Vec<&Value> = allowed
        .iter()
        .filter(|a| {
            let n = name(a).to_lowercase();
            mentions(&lower, &n)
                || [" ", "-", "_"]
                    .iter()
                    .any(|sep| mentions(&lower, &n.replace(['_', '-', ' '], sep)))
        })
        .collect();
    match mentioned.as_slice() {
        [one] => Some(((*one).clone(), RepairRule::TextAsEnum)),
        _ => None,
    }
}

/// `t` without a final `.` or `!`, quotes and Markdown emphasis (`**True**`, `_ONE_`).
pub(super) fn bare(t: &str) -> &str {
    t.trim_end_matches(['.', '!'])
        .trim_matches(['"', '\'', '`', '*', '_'])
}

/// The boolean a sentence names: `true` or `false` as a whole word, only one of them
/// (`The answer is true.`), recorded as the unsafe `coerce.loose_boolean`.
pub(super) fn boolean_named(t: &str) -> Option<(Value, RepairRule)> {
    let lower = t.to_lowercase();
    match (mentions(&lower, "true"), mentions(&lower, "false")) {
        (true, false) => Some((Value::Bool(true), RepairRule::BooleanFromWord)),
        (false, true) => Some((Value::Bool(false), RepairRule::BooleanFromWord)),
        _ => None,
    }
}

/// True when `word` appears in `text` as a whole word.
fn mentions(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text.get(..i).and_then(|s| s.chars().next_back());
        let after = text.get(i + word.len()..).and_then(|s| s.chars().next());
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}
