//! Rule `json.number_format` (and `json.leading_zeros`): numbers written the way people and
//! other languages write them, turned into JSON number text.

use crate::rules::RepairRule;

/// `0xFF` (JavaScript and JSON5): the hexadecimal digits after `0x` as a decimal integer,
/// after `sign`; `None` unless they are 1 to 16 hex digits.
fn hexadecimal(sign: &str, hex: &str) -> Option<String> {
    if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let n = u64::from_str_radix(hex, 16).ok()?;
    Some(if n == 0 {
        "0".to_owned()
    } else {
        format!("{sign}{n}")
    })
}

/// Rewrites a loose number such as `.5`, `1.`, `+1`, `1e`, `1_000`, `0xFF` or `007` as JSON number
/// text, with the rule that applies; `None` when the word is not a number at all.
pub(crate) fn normalize_number(word: &str) -> Option<(String, RepairRule)> {
    if word.len() > 1024 {
        return None;
    }
    let mut rule = RepairRule::NumberFormat;
    let mut s: String = if word.contains('_') {
        underscores_removed(word)?
    } else {
        word.to_owned()
    };
    if let Some(rest) = s.strip_prefix('+') {
        s = rest.to_owned();
    }
    let (sign, body) = match s.strip_prefix('-') {
        Some(rest) => ("-", rest.to_owned()),
        None => ("", s.clone()),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return hexadecimal(sign, hex).map(|n| (n, rule));
    }
    let (mantissa, exponent) = split_exponent(&body);
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    if int.is_empty() && frac.is_none_or(str::is_empty) {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.unwrap_or("").bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut int = if int.is_empty() { "0" } else { int };
    if int.len() > 1 && int.starts_with('0') {
        int = int.trim_start_matches('0');
        if int.is_empty() {
            int = "0";
        }
        rule = RepairRule::LeadingZeros;
    }
    let mut out = format!("{sign}{int}");
    if let Some(f) = frac {
        out.push('.');
        out.push_str(if f.is_empty() { "0" } else { f });
    }
    if let Some(e) = exponent.filter(|e| {
        e.trim_start_matches(['+', '-'])
            .bytes()
            .all(|b| b.is_ascii_digit())
            && !e.trim_start_matches(['+', '-']).is_empty()
    }) {
        out.push('e');
        out.push_str(e);
    } else if exponent.is_some_and(|e| !e.trim_start_matches(['+', '-']).is_empty()) {
        return None;
    }
    (out != word).then_some((out, rule))
}

fn split_exponent(body: &str) -> (&str, Option<&str>) {
    match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    }
}

/// `1_000` → `1000`; underscores must sit between digits.
fn underscores_removed(word: &str) -> Option<String> {
    let b = word.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let ok =
                i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !ok {
                return None;
            }
        }
    }
    Some(word.replace('_', ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Option<String> {
        normalize_number(s).map(|(t, _)| t)
    }

    #[test]
    fn loose_numbers_become_json_numbers() {
        assert_eq!(n(".5").as_deref(), Some("0.5"));
        assert_eq!(n("-.5").as_deref(), Some("-0.5"));
        assert_eq!(n("1.").as_deref(), Some("1.0"));
        assert_eq!(n("+1").as_deref(), Some("1"));
        assert_eq!(n("1e").as_deref(), Some("1"));
        assert_eq!(n("1E+").as_deref(), Some("1"));
        assert_eq!(n("82_461_110").as_deref(), Some("82461110"));
        assert_eq!(n("1_234.5_6").as_deref(), Some("1234.56"));
        assert_eq!(n("0xFF").as_deref(), Some("255"));
        assert_eq!(n("-0x40").as_deref(), Some("-64"));
        assert_eq!(n("0X0").as_deref(), Some("0"));
        assert_eq!(
            n("0xFFFFFFFFFFFFFFFF").as_deref(),
            Some("18446744073709551615")
        );
        assert_eq!(
            normalize_number("007"),
            Some(("7".to_owned(), RepairRule::LeadingZeros))
        );
    }

    #[test]
    fn non_numbers_are_left_alone() {
        for s in [
            "1/3",
            "10-20",
            "1.1.1",
            "1notanumber",
            "-",
            ".",
            "1__0",
            "_1",
            "1e5x",
            "0x",
            "0x1g",
            "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
        ] {
            assert_eq!(n(s), None, "{s}");
        }
    }
}
