//! Numbers of the YAML 1.2 core schema, as JSON numbers that keep their text.
//!
//! Text that is already a valid JSON number is kept exactly (`1.50` stays `1.50`, big
//! integers are not rounded). Other core-schema numbers are rewritten to the equivalent JSON
//! text without going through a float: `+1` → `1`, `007` → `7`, `.5` → `0.5`, `1.` → `1.0`,
//! `0x1F` → `31`, `0o17` → `15`.

use serde_json::Number;

/// What a plain scalar is, if it is a number.
#[derive(Debug, PartialEq)]
pub(crate) enum Numeric {
    /// A finite number.
    Finite(Number),
    /// `.inf`, `-.inf` or `.nan`: JSON has no such numbers.
    NonFinite,
    /// A hexadecimal or octal integer too large for 128 bits.
    OutOfRange,
}

/// Reads `text` as a core-schema integer or float; `None` if it is neither.
pub(crate) fn numeric(text: &str) -> Option<Numeric> {
    if is_non_finite(text) {
        return Some(Numeric::NonFinite);
    }
    if let Some(result) = radix_int(text) {
        return Some(result);
    }
    let normalized = decimal(text)?;
    if let Ok(number) = serde_json::from_str::<Number>(text) {
        return Some(Numeric::Finite(number));
    }
    serde_json::from_str::<Number>(&normalized)
        .ok()
        .map(Numeric::Finite)
}

fn is_non_finite(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN")
}

/// `0o[0-7]+` and `0x[0-9a-fA-F]+`.
fn radix_int(text: &str) -> Option<Numeric> {
    let (digits, radix) = if let Some(d) = text.strip_prefix("0o") {
        (d, 8)
    } else {
        (text.strip_prefix("0x")?, 16)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    match u128::from_str_radix(digits, radix) {
        Ok(n) => serde_json::from_str(&n.to_string())
            .ok()
            .map(Numeric::Finite),
        Err(_) => Some(Numeric::OutOfRange),
    }
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` as JSON number text.
fn decimal(text: &str) -> Option<String> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (int, fraction) = match mantissa.split_once('.') {
        Some((int, fraction)) => (int, Some(fraction)),
        None => (mantissa, None),
    };
    let valid_mantissa = if int.is_empty() {
        fraction.is_some_and(is_digits)
    } else {
        is_digits(int) && fraction.is_none_or(|f| f.is_empty() || is_digits(f))
    };
    let exponent_digits = exponent.map(|e| e.strip_prefix(['-', '+']).unwrap_or(e));
    if !valid_mantissa || exponent_digits.is_some_and(|e| !is_digits(e)) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 2);
    if negative {
        out.push('-');
    }
    let trimmed = int.trim_start_matches('0');
    out.push_str(if trimmed.is_empty() { "0" } else { trimmed });
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(if fraction.is_empty() { "0" } else { fraction });
    }
    if let Some(exponent) = exponent {
        out.push('e');
        out.push_str(exponent);
    }
    Some(out)
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        match numeric(s) {
            Some(Numeric::Finite(n)) => n.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn json_text_is_kept_exactly() {
        for s in [
            "0",
            "-0",
            "1.50",
            "-2.5e-3",
            "123456789012345678901234567890",
        ] {
            assert_eq!(text(s), s);
        }
        // As in the JSON reader, serde_json writes the exponent as `e` with a sign.
        assert_eq!(text("1e5"), "1e+5");
        assert_eq!(text("2.5E-3"), "2.5e-3");
    }

    #[test]
    fn yaml_only_forms_are_rewritten() {
        assert_eq!(text("+1"), "1");
        assert_eq!(text("007"), "7");
        assert_eq!(text("-007"), "-7");
        assert_eq!(text(".5"), "0.5");
        assert_eq!(text("-.5"), "-0.5");
        assert_eq!(text("1."), "1.0");
        assert_eq!(text("+1.e+3"), "1.0e+3");
        assert_eq!(text("0x1F"), "31");
        assert_eq!(text("0o17"), "15");
        assert_eq!(text(&format!("0x{}", "f".repeat(40))), "Some(OutOfRange)");
    }

    #[test]
    fn non_numbers_and_non_finite() {
        for s in [
            "", ".", "-", "1.2.3", "1e", "e5", "0x", "0o8", "1_000", "12a", ". 5",
        ] {
            assert_eq!(numeric(s), None, "{s:?}");
        }
        for s in [".inf", "-.Inf", "+.INF", ".nan", ".NaN"] {
            assert_eq!(numeric(s), Some(Numeric::NonFinite), "{s:?}");
        }
        assert_eq!(numeric("-.nan"), None);
    }
}
