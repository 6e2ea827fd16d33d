//! Scalar coercions: numeric strings to numbers, fractions rounded to the integer the schema
//! wants, boolean words to booleans, numbers and nested objects or lists to strings.

use serde_json::{Number, Value};

use super::Coercer;
use crate::rules::RepairRule;

impl Coercer<'_> {
    /// Converts the scalar `v` to one of `types`, recording the rule; `None` when no
    /// conversion applies.
    pub(super) fn scalar(&mut self, v: &Value, types: &[&str], pointer: &str) -> Option<Value> {
        let wants = |t: &str| types.contains(&t);
        let (out, rule) = match v {
            // `"N/A"`, `""`, `"none"` where a number (or another type) or null is wanted.
            Value::String(s) if wants("null") && null_word(s) => {
                (Value::Null, RepairRule::StringToNull)
            }
            Value::String(s) if wants("integer") || wants("number") => {
                let integer = wants("integer") && !wants("number");
                // `"36"`, and `"**36**"` or `"12.5."`: emphasis and a closing stop are no
                // part of the number; `"$1,250.00"`: nor are the currency and thousands
                // signs, where the format has one reading.
                let plain = number_from(s.trim(), integer)
                    .or_else(|| number_from(super::text::bare(s.trim()), integer))
                    .or_else(|| number_from(&super::text::formatted_number(s)?, integer));
                match plain {
                    Some(n) => (n, RepairRule::NumberFromString),
                    // `"587 EUR"`, `"1,250"`, `"1/2"`: the only number in the text,
                    // unsafely; `"2.5"` for an integer, rounded.
                    None => match super::text::number(s, integer) {
                        Some(n) => (n, RepairRule::TextAsNumber),
                        None => (
                            rounded(&number_from(s.trim(), false)?)?,
                            RepairRule::RoundToInteger,
                        ),
                    },
                }
            }
            Value::Number(n) if wants("integer") && !wants("number") && !wants("string") => (
                rounded(&Value::Number(n.clone()))?,
                RepairRule::RoundToInteger,
            ),
            // `"True."`, `"**yes**"`; `"The answer is true"` unsafely.
            Value::String(s) if wants("boolean") => boolean_from(super::text::bare(s.trim()))
                .or_else(|| super::text::boolean_named(s))?,
            Value::Number(n) if wants("boolean") => match n.as_f64() {
                Some(f) if (f - 1.0).abs() < f64::EPSILON => {
                    (Value::Bool(true), RepairRule::BooleanFromWord)
                }
                Some(f) if f.abs() < f64::EPSILON => {
                    (Value::Bool(false), RepairRule::BooleanFromWord)
                }
                _ => return None,
            },
            Value::Number(n) if wants("string") => {
                (Value::String(n.to_string()), RepairRule::StringFromScalar)
            }
            Value::Bool(b) if wants("string") => {
                (Value::String(b.to_string()), RepairRule::StringFromScalar)
            }
            // A nested object or list where a string is wanted: its JSON text. Without
            // permission for unsafe repairs the mismatch stands: its feedback (`expected
            // string, got array`) says more than a refusal of this repair would.
            Value::Object(_) | Value::Array(_)
                if wants("string") && !pointer.is_empty() && self.allow_unsafe =>
            {
                (Value::String(v.to_string()), RepairRule::JsonAsString)
            }
            _ => return None,
        };
        self.record(rule, pointer, v, &out);
        Some(out)
    }
}

/// `"42"` → `42`; with `integer_only`, `"4.0"` → `4` but `"4.5"` is refused.
pub(super) fn number_from(s: &str, integer_only: bool) -> Option<Value> {
    let n: Number = serde_json::from_str(s).ok()?;
    if !integer_only || n.is_i64() || n.is_u64() {
        return Some(Value::Number(n));
    }
    let f = n.as_f64()?;
    if f.fract() != 0.0 || f.abs() > 9.0e15 {
        return None;
    }
    serde_json::from_str(&format!("{f:.0}"))
        .ok()
        .map(Value::Number)
}

/// True for the words models write for "no value": empty, `N/A`, `none`, `null`, `unknown`.
fn null_word(s: &str) -> bool {
    let lower = s.trim().trim_end_matches('.').to_lowercase();
    matches!(
        lower.as_str(),
        "" | "n/a"
            | "na"
            | "none"
            | "null"
            | "nil"
            | "-"
            | "unknown"
            | "not available"
            | "not applicable"
    )
}

/// The integer nearest the number `v` (halves away from zero); `None` past 2^53.
fn rounded(v: &Value) -> Option<Value> {
    let f = v.as_f64()?.round();
    #[allow(clippy::cast_possible_truncation)]
    (f.abs() <= 9.0e15).then(|| Value::from(f as i64))
}

pub(super) fn boolean_from(s: &str) -> Option<(Value, RepairRule)> {
    let lower = s.trim().to_ascii_lowercase();
    match lower.as_str() {
        "true" => Some((Value::Bool(true), RepairRule::BooleanFromString)),
        "false" => Some((Value::Bool(false), RepairRule::BooleanFromString)),
        "yes" | "y" | "on" | "1" => Some((Value::Bool(true), RepairRule::BooleanFromWord)),
        "no" | "n" | "off" | "0" => Some((Value::Bool(false), RepairRule::BooleanFromWord)),
        _ => None,
    }
}
