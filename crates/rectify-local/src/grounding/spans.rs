//! The values a request offers: spans of its words and the numbers written in it.

use std::collections::BTreeSet;

/// Longest span offered, in words. Values in extraction answers are names, places, titles and
/// short phrases; longer spans only make the grammar bigger.
pub const MAX_SPAN_WORDS: usize = 8;

/// Characters trimmed from the start of a span (opening quotes and brackets).
const LEAD: &[char] = &['"', '\'', '(', '[', '{', '‘', '“', '<'];
/// Characters trimmed from the end of a span (closing punctuation).
const TRAIL: &[char] = &[
    '"', '\'', ')', ']', '}', '’', '”', '>', ',', '.', ';', ':', '!', '?',
];

/// Every run of 1 to [`MAX_SPAN_WORDS`] whitespace-separated words of `text`, with opening
/// quotes and brackets trimmed from its start and closing punctuation from its end (a span that
/// ends with a period is offered with it too: `Dr.`, `Corp.`), and with a possessive `'s`
/// removed. Sorted, without duplicates or empty strings.
pub fn spans(text: &str) -> BTreeSet<String> {
    let words: Vec<(usize, usize)> = word_ranges(text);
    let mut out = BTreeSet::new();
    for (i, &(start, _)) in words.iter().enumerate() {
        for &(_, end) in words.iter().skip(i).take(MAX_SPAN_WORDS) {
            add_variants(&mut out, &text[start..end]);
        }
    }
    out
}

fn word_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                words.push((s, at));
                start = None;
            }
            (false, None) => start = Some(at),
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s, text.len()));
    }
    words
}

fn add_variants(out: &mut BTreeSet<String>, span: &str) {
    let lead = span.trim_start_matches(|c: char| LEAD.contains(&c) || c.is_whitespace());
    let trimmed = lead.trim_end_matches(|c: char| TRAIL.contains(&c) || c.is_whitespace());
    if !trimmed.is_empty() {
        out.insert(trimmed.to_owned());
        for suffix in ["'s", "’s"] {
            // `a 's` leaves `a `: the stem is trimmed like the span.
            if let Some(stem) = trimmed
                .strip_suffix(suffix)
                .map(|s| s.trim_end_matches(|c: char| TRAIL.contains(&c) || c.is_whitespace()))
                .filter(|s| !s.is_empty())
            {
                out.insert(stem.to_owned());
            }
        }
    }
    let with_period =
        lead.trim_end_matches(|c: char| (TRAIL.contains(&c) || c.is_whitespace()) && c != '.');
    if with_period.ends_with('.')
        && with_period.trim_end_matches('.') == trimmed
        && !trimmed.is_empty()
    {
        out.insert(with_period.to_owned());
    }
}

/// A number written in a request, as the JSON literal to offer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Written {
    /// The literal: thousands separators and leading zeros removed, fraction digits as written
    /// (`1,480.00` → `1480.00`, `07` → `7`, `-4`).
    pub literal: String,
    /// Whether it has a non-zero fraction.
    pub fractional: bool,
}

impl Written {
    /// The value.
    pub fn value(&self) -> f64 {
        self.literal.parse().unwrap_or(f64::NAN)
    }

    /// The literal for an integer field: the integer part when the fraction is all zeros.
    pub fn integer_literal(&self) -> Option<String> {
        if self.fractional {
            return None;
        }
        Some(
            self.literal
                .split('.')
                .next()
                .unwrap_or(&self.literal)
                .to_owned(),
        )
    }
}

/// The small numbers written as words, with their values.
const NUMBER_WORDS: &[(&str, u32)] = &[
    ("zero", 0),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("hundred", 100),
    ("once", 1),
    ("twice", 2),
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
];

/// A number written in a request, with the words around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The number.
    pub written: Written,
    /// The word before it (lowercased letters; a currency sign glued to it counts as a word:
    /// `$45`), empty when punctuation other than a space, `-`, `(` or `:` comes first.
    pub before: String,
    /// The word after it, in the same way (`85 grams`, `3-year-old`; a `%` counts as one).
    pub after: String,
    /// Written right after a letter: part of a name or code (`X2`, `B12`).
    pub glued: bool,
    /// Part of a time, date, score or version (`07:45`, `2025-04-30`, `3-1`, `3.2.1`).
    pub compound: bool,
    /// The words before it in its clause (up to [`NEAR_BEFORE`], lowercased).
    pub near_before: Vec<String>,
    /// The words after it in its clause (up to [`NEAR_AFTER`], lowercased): `48213 kWh on the
    /// day rate` has `day`.
    pub near_after: Vec<String>,
}

/// How many words before a number count as near it.
pub const NEAR_BEFORE: usize = 3;
/// How many words after a number count as near it.
pub const NEAR_AFTER: usize = 4;

/// Every number written in `text`: digit runs (with `,` thousands groups and a `.` fraction, a
/// `-` sign when it follows a space or an opening bracket, not a digit: `3-1` is 3 and 1) and
/// the small numbers written as words (`six`).
pub fn numbers(text: &str) -> BTreeSet<Written> {
    mentions(text).into_iter().map(|m| m.written).collect()
}

/// Every number written in `text` (as [`numbers`] reads them), in order, with its context.
pub fn mentions(text: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_digit() {
            let negative = at > 0
                && bytes[at - 1] == b'-'
                && (at == 1 || matches!(bytes[at - 2], b' ' | b'(' | b'[' | b'\t' | b'\n'));
            let (written, end) = number_at(text, at, negative);
            let start = if negative { at - 1 } else { at };
            out.push(mention(text, written, start, end));
            at = end;
        } else {
            at += 1;
        }
    }
    let mut offset = 0;
    for word in text.split(|c: char| !c.is_alphabetic()) {
        let start = offset;
        offset += word.len()
            + text[offset + word.len()..]
                .chars()
                .next()
                .map_or(0, char::len_utf8);
        let lower = word.to_lowercase();
        if let Some((_, value)) = NUMBER_WORDS.iter().find(|(w, _)| *w == lower) {
            let written = Written {
                literal: value.to_string(),
                fractional: false,
            };
            out.push(mention(text, written, start, start + word.len()));
        }
    }
    out
}

fn mention(text: &str, written: Written, start: usize, end: usize) -> Mention {
    let before_char = text[..start].chars().next_back();
    let after_char = text[end..].chars().next();
    let digit_beyond = |s: &str| s.chars().nth(1).is_some_and(|c| c.is_ascii_digit());
    let joined = |c: Option<char>| matches!(c, Some(':' | '/' | '.' | '-'));
    let compound = (joined(after_char) && digit_beyond(&text[end..]))
        || (joined(before_char)
            && text[..start.saturating_sub(1)]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit()));
    Mention {
        glued: before_char.is_some_and(char::is_alphabetic),
        compound,
        before: word_before(&text[..start]),
        after: word_after(&text[end..]),
        near_before: near_before(&text[..start]),
        near_after: near_after(&text[end..]),
        written,
    }
}

/// Characters that end a clause: words beyond them are not near a number.
const CLAUSE_END: &[char] = &[',', ';', '.', '!', '?', '\n', '(', ')'];

/// The lowercased words of `s`, without a possessive `'s` and an ordinal suffix glued to
/// digits (`58th`).
fn lower_words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| {
            w.trim_end_matches("'s")
                .trim_end_matches("’s")
                .trim_matches(['\'', '’'])
        })
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_lowercase)
}

/// Whether the mark at `i` of `s` ends a clause: followed by a blank or the end (`1.5` and
/// `1,250` do not).
fn ends_clause(s: &str, i: usize) -> bool {
    s[i + 1..].chars().next().is_none_or(char::is_whitespace)
}

/// How far around a number its clause is looked for, in bytes (bounded, so a long request
/// stays linear in its numbers).
const NEAR_BYTES: usize = 160;

fn near_before(head: &str) -> Vec<String> {
    let mut from = head.len().saturating_sub(NEAR_BYTES);
    while !head.is_char_boundary(from) {
        from += 1;
    }
    let head = &head[from..];
    let start = head
        .rmatch_indices(CLAUSE_END)
        .find(|&(i, _)| ends_clause(head, i))
        .map_or(0, |(i, _)| i + 1);
    let words: Vec<String> = lower_words(&head[start..]).collect();
    words[words.len().saturating_sub(NEAR_BEFORE)..].to_vec()
}

fn near_after(rest: &str) -> Vec<String> {
    let mut to = rest.len().min(NEAR_BYTES);
    while !rest.is_char_boundary(to) {
        to -= 1;
    }
    let rest = strip_ordinal(&rest[..to]);
    let end = rest
        .match_indices(CLAUSE_END)
        .find(|&(i, _)| ends_clause(rest, i))
        .map_or(rest.len(), |(i, _)| i);
    lower_words(&rest[..end]).take(NEAR_AFTER).collect()
}

/// Small words between a number and the word that says what it counts (`15 an hour`, `a
/// total of 40`, `about 45 minutes`): skipped when reading that word.
const FILLER: &[&str] = &[
    "a", "about", "an", "around", "each", "every", "just", "of", "only", "per", "the",
];

/// An ordinal suffix glued to digits (`58th`): not the word after the number.
const ORDINAL_SUFFIX: &[&str] = &["st", "nd", "rd", "th"];

/// Currency signs, which count as words next to a number.
const SIGNS: &[char] = &['$', '€', '£', '¥'];

/// `rest` (the text after a number) without an ordinal suffix glued to the number.
fn strip_ordinal(rest: &str) -> &str {
    let ordinal = ORDINAL_SUFFIX.iter().any(|s| {
        rest.get(..2).is_some_and(|r| r.eq_ignore_ascii_case(s))
            && !rest[2..].starts_with(char::is_alphabetic)
    });
    if ordinal { &rest[2..] } else { rest }
}

fn word_after(rest: &str) -> String {
    let mut rest = strip_ordinal(rest);
    loop {
        let trimmed = rest.trim_start_matches([' ', '-', '(', ':']);
        if let Some(sign) = trimmed
            .chars()
            .next()
            .filter(|c| SIGNS.contains(c) || *c == '%')
        {
            return sign.to_string();
        }
        let word: String = trimmed.chars().take_while(|c| c.is_alphabetic()).collect();
        let lower = word.to_lowercase();
        if !FILLER.contains(&lower.as_str()) || word.is_empty() {
            return lower;
        }
        rest = &trimmed[word.len()..];
        if !rest.starts_with(' ') {
            return lower;
        }
    }
}

fn word_before(head: &str) -> String {
    let mut head = head;
    loop {
        if let Some(sign) = head.chars().next_back().filter(|c| SIGNS.contains(c)) {
            return sign.to_string();
        }
        let trimmed = head.trim_end_matches([' ', '-', '(', ':']);
        let reversed: String = trimmed
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic())
            .collect();
        let lower = reversed.chars().rev().collect::<String>().to_lowercase();
        if !FILLER.contains(&lower.as_str()) || lower.is_empty() {
            return lower;
        }
        head = &trimmed[..trimmed.len() - reversed.len()];
        if !head.ends_with(' ') {
            return lower;
        }
    }
}

/// Reads the number starting at the digit at `start`; returns it and the index after it.
fn number_at(text: &str, start: usize, negative: bool) -> (Written, usize) {
    let bytes = text.as_bytes();
    let digits_end = |from: usize| {
        (from..bytes.len())
            .find(|&i| !bytes[i].is_ascii_digit())
            .unwrap_or(bytes.len())
    };
    let mut end = digits_end(start);
    let mut integer: String = text[start..end].to_owned();
    // Thousands groups: `,` followed by exactly three digits.
    while end + 4 <= bytes.len() && bytes[end] == b',' && digits_end(end + 1) == end + 4 {
        integer.push_str(&text[end + 1..end + 4]);
        end += 4;
    }
    let mut fraction = String::new();
    if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
        let fraction_end = digits_end(end + 1);
        text[end + 1..fraction_end].clone_into(&mut fraction);
        end = fraction_end;
    }
    let integer = integer.trim_start_matches('0');
    let integer = if integer.is_empty() { "0" } else { integer };
    let mut literal = String::new();
    let fractional = fraction.bytes().any(|b| b != b'0');
    if negative && (integer != "0" || fractional) {
        literal.push('-');
    }
    literal.push_str(integer);
    if !fraction.is_empty() {
        literal.push('.');
        literal.push_str(&fraction);
    }
    (
        Written {
            literal,
            fractional,
        },
        end,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(text: &str) -> Vec<String> {
        numbers(text).into_iter().map(|w| w.literal).collect()
    }

    #[test]
    fn spans_are_word_runs_without_edge_punctuation() {
        let found = spans("Send it to 'Dr. Okafor', Oslo's port.");
        for expected in [
            "Dr. Okafor",
            "Dr.",
            "Dr",
            "Okafor",
            "Oslo",
            "Oslo's port",
            "port",
        ] {
            assert!(
                found.contains(expected),
                "{expected} missing from {found:?}"
            );
        }
        assert!(!found.contains("Okafor',"));
        assert!(!found.contains(""));
    }

    #[test]
    fn spans_stop_at_the_word_limit() {
        let text = "a b c d e f g h i j";
        let found = spans(text);
        assert!(found.contains("a b c d e f g h"));
        assert!(!found.contains("a b c d e f g h i"));
    }

    #[test]
    fn numbers_keep_their_written_form() {
        assert_eq!(
            literals("1,480.00 USD, low of -4, score 3-1, flight 07:45, six days"),
            ["-4", "1", "1480.00", "3", "45", "6", "7"]
        );
        let total = numbers("owes 1250.00 EUR").into_iter().next().unwrap();
        assert_eq!(total.integer_literal().as_deref(), Some("1250"));
        assert!((total.value() - 1250.0).abs() < f64::EPSILON);
        let price = numbers("46.80").into_iter().next().unwrap();
        assert!(price.fractional && price.integer_literal().is_none());
    }
}
