//! Enum matching: a string that differs from exactly one allowed value only in case,
//! spacing, separators or accents becomes that value. Two equally good matches are an
//! ambiguity, reported and left alone. A string that names one allowed value (`ONE: the
//! first option`) becomes it, as the whole text does at the root.

use rectify_core::{Diagnostic, Location};
use serde_json::Value;

use super::Coercer;
use crate::rules::RepairRule;

impl Coercer<'_> {
    /// Matches `v` against `allowed`; `None` when nothing (or more than one value) matches.
    pub(super) fn enum_match(
        &mut self,
        v: &Value,
        allowed: &[Value],
        pointer: &str,
    ) -> Option<Value> {
        if allowed.contains(v) {
            return None;
        }
        let Value::String(s) = v else {
            // `2` for the enum `["1", "2"]`: the value written as a string.
            if !(v.is_number() || v.is_boolean()) {
                return None;
            }
            let written = Value::String(v.to_string());
            let out = allowed.iter().find(|a| **a == written)?.clone();
            self.record(RepairRule::EnumMatch, pointer, v, &out);
            return Some(out);
        };
        let key = fold(s);
        let hits: Vec<&Value> = allowed
            .iter()
            .filter(|a| a.as_str().is_some_and(|a| fold(a) == key))
            .collect();
        match hits.as_slice() {
            [one] => {
                let out = (*one).clone();
                self.record(RepairRule::EnumMatch, pointer, v, &out);
                Some(out)
            }
            // `"ONE: the first option"`, `"The answer is TWO"`: the value the text names.
            [] => {
                let (out, rule) = super::text::enum_value(s.trim(), allowed)?;
                self.record(rule, pointer, v, &out);
                Some(out)
            }
            many => {
                let names: Vec<String> = many.iter().map(ToString::to_string).collect();
                let d = Diagnostic::error(
                    "repair.ambiguous",
                    Location::from_pointer(pointer),
                    format!(
                        "{v} matches several allowed values equally well: {}",
                        names.join(", ")
                    ),
                )
                .expected(names.join(" or "))
                .received(v.to_string())
                .source("repair");
                self.diagnostics.push(d);
                None
            }
        }
    }
}

/// Lowercase, accents removed, and spaces, `-` and `_` dropped.
pub(crate) fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '_'))
        .map(strip_accent)
        .flat_map(char::to_lowercase)
        .collect()
}

fn strip_accent(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā' | 'Ă' | 'Ą' => 'A',
        'ç' | 'ć' | 'č' => 'c',
        'Ç' | 'Ć' | 'Č' => 'C',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => 'e',
        'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ę' | 'Ě' => 'E',
        'ì' | 'í' | 'î' | 'ï' | 'ī' => 'i',
        'Ì' | 'Í' | 'Î' | 'Ï' | 'Ī' => 'I',
        'ñ' | 'ń' | 'ň' => 'n',
        'Ñ' | 'Ń' | 'Ň' => 'N',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' => 'o',
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' | 'Ō' => 'O',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' => 'u',
        'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ū' | 'Ů' => 'U',
        'ý' | 'ÿ' => 'y',
        'Ý' => 'Y',
        'ș' | 'ş' | 'š' | 'ś' => 's',
        'Ș' | 'Ş' | 'Š' | 'Ś' => 'S',
        'ț' | 'ţ' | 'ť' => 't',
        'Ț' | 'Ţ' | 'Ť' => 'T',
        'ž' | 'ź' | 'ż' => 'z',
        'Ž' | 'Ź' | 'Ż' => 'Z',
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn folding_ignores_case_spacing_separators_and_accents() {
        assert_eq!(fold("In Progress"), fold("in_progress"));
        assert_eq!(fold("Café"), fold("cafe"));
        assert_ne!(fold("done"), fold("todo"));
    }
}
