//! What a span looks like: a date, a time of day, a name written with capitals.

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

const DAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "today",
    "tomorrow",
    "tonight",
    "yesterday",
    "weekend",
];

/// Words a date may hold besides months, days and numbers.
const DATE_GLUE: &[&str] = &["of", "the", "next", "this"];

/// Lowercase words that may stand inside a name written with capitals (`Rue de la Paix`).
const NAME_GLUE: &[&str] = &[
    "&", "and", "da", "de", "del", "der", "di", "du", "la", "le", "of", "the", "van", "von",
];

fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

fn is_day_number(word: &str) -> bool {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && ["", "st", "nd", "rd", "th"].contains(&suffix)
}

/// Whether a word is a date written in digits: `2025-04-30`, `30.04.2025`, `4/30` (not a
/// price like `29.99` or an account like `40-11-22`).
fn is_numeric_date(word: &str) -> bool {
    let digits = |p: &&str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    let parts: Vec<&str> = word.split(['-', '/', '.']).collect();
    match parts.as_slice() {
        [_, _, _] => {
            parts.iter().all(|p| digits(p) && p.len() <= 4) && parts.iter().any(|p| p.len() == 4)
        }
        [a, b] => word.contains('/') && [a, b].iter().all(|p| digits(p) && p.len() <= 2),
        _ => false,
    }
}

/// Whether `span` is a date or a day and nothing else: `June 12`, `Thursday`, `the 3rd of
/// May 2025`, `2025-04-30`.
pub fn is_date(span: &str) -> bool {
    let words: Vec<String> = span.split_whitespace().map(bare).collect();
    // `Wednesdays`: a weekday named as a recurring day.
    let named = |w: &String| {
        MONTHS.contains(&w.as_str())
            || DAYS.contains(&w.as_str())
            || w.strip_suffix('s').is_some_and(|d| DAYS.contains(&d))
    };
    if let [only] = span.split_whitespace().collect::<Vec<_>>().as_slice()
        && is_numeric_date(only.trim_end_matches(['.', ',']))
    {
        return true;
    }
    words.iter().any(named)
        && words
            .iter()
            .all(|w| named(w) || is_day_number(w) || DATE_GLUE.contains(&w.as_str()))
}

/// Whether `span` names a day of the week (`Friday`, `Wednesdays`, `Saturday 6 June`).
pub fn names_weekday(span: &str) -> bool {
    span.split_whitespace().map(bare).any(|w| {
        DAYS[..7].contains(&w.as_str())
            || w.strip_suffix('s').is_some_and(|d| DAYS[..7].contains(&d))
    })
}

/// Whether `span` names a month (`October`, `September 2025`).
pub fn names_month(span: &str) -> bool {
    span.split_whitespace()
        .map(bare)
        .any(|w| MONTHS.contains(&w.as_str()))
}

/// Whether `span` is a time of day and nothing else: `07:45`, `10:30 am`, `7pm`, `noon`.
pub fn is_time(span: &str) -> bool {
    let lower = span.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let clock = |w: &str| {
        let w = w
            .trim_end_matches("am")
            .trim_end_matches("pm")
            .trim_end_matches(['.', ',']);
        let mut parts = w.split(':');
        let two = |p: &str| p.len() == 2 && p.chars().all(|c| c.is_ascii_digit());
        // `07:45` and, for durations and race times, `3:31:05`.
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(h), Some(m), s, None) => {
                (1..=2).contains(&h.len())
                    && h.chars().all(|c| c.is_ascii_digit())
                    && two(m)
                    && s.is_none_or(two)
            }
            _ => false,
        }
    };
    let meridiem =
        |w: &str| (w.ends_with("am") || w.ends_with("pm")) && is_day_number(&w[..w.len() - 2]);
    match words.as_slice() {
        [w] => clock(w) || meridiem(w) || ["noon", "midnight"].contains(w),
        [w, m] => (clock(w) || is_day_number(w)) && ["am", "pm", "a.m.", "p.m."].contains(m),
        _ => false,
    }
}

/// Whether `span` starts with a quantity: a number alone or followed by a lowercase word,
/// another number or a currency (`2`, `1,250.00`, `24 months, so`, `39 EUR`, `412 55 18`),
/// not a number that starts a date, a name or an address (`2 November`, `14 Rue de la
/// Paix`, `2014 Skoda Octavia`).
pub fn starts_with_quantity(span: &str) -> bool {
    let mut words = span.split_whitespace();
    let number = |w: &str| {
        let w = w
            .trim_start_matches(['$', '€', '£'])
            .trim_end_matches([',', '.', ';']);
        w.starts_with(|c: char| c.is_ascii_digit())
            && w.chars()
                .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
    };
    let Some(first) = words.next() else {
        return false;
    };
    let unit = |w: &str| {
        let bare = bare(w);
        w.starts_with(|c: char| c.is_lowercase() || c.is_ascii_digit())
            || super::words::is_currency(&bare)
    };
    number(first) && words.next().is_none_or(unit)
}

/// Nouns that end the name of an organisation or a venue (`Canadian consulate`, `Riverside
/// food bank`).
const HEAD_NOUNS: &[&str] = &[
    "academy",
    "agency",
    "airport",
    "bakery",
    "bank",
    "bar",
    "cafe",
    "café",
    "center",
    "centre",
    "church",
    "cinema",
    "clinic",
    "club",
    "college",
    "company",
    "consulate",
    "council",
    "court",
    "department",
    "embassy",
    "factory",
    "foundation",
    "gallery",
    "garage",
    "gym",
    "hall",
    "hospital",
    "hotel",
    "institute",
    "library",
    "market",
    "ministry",
    "museum",
    "office",
    "pharmacy",
    "restaurant",
    "school",
    "shelter",
    "shop",
    "stadium",
    "station",
    "store",
    "studio",
    "surgery",
    "theater",
    "theatre",
    "university",
    "zoo",
];

/// Whether `span` names an organisation or a venue by a name written with a capital and a
/// venue noun (`bank`, `consulate`, `museum`, `office`, …): `Canadian consulate`, `Riverside
/// food bank`; without digits.
pub fn is_named_venue(span: &str) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    match (words.first(), words.last()) {
        (Some(first), Some(last)) if words.len() >= 2 => {
            first.starts_with(char::is_uppercase)
                && HEAD_NOUNS.contains(&bare(last).as_str())
                && !span.chars().any(|c| c.is_ascii_digit())
        }
        _ => false,
    }
}

/// Last words that make a capitalised name an organisation's: legal forms and the nouns
/// firms name themselves by (`Tayside Print Ltd`, `Keystone Mortgages`, `Fjordline Media AS`).
const ORG_FORMS: &[&str] = &[
    "ab",
    "afc",
    "ag",
    "airlines",
    "airways",
    "as",
    "associates",
    "association",
    "authority",
    "bv",
    "cc",
    "co",
    "construction",
    "consulting",
    "corp",
    "corporation",
    "digital",
    "energy",
    "express",
    "fc",
    "fencing",
    "flooring",
    "gmbh",
    "group",
    "haulage",
    "holdings",
    "holidays",
    "inc",
    "insurance",
    "llc",
    "llp",
    "logistics",
    "ltd",
    "limited",
    "media",
    "mortgages",
    "motors",
    "nv",
    "partners",
    "plc",
    "press",
    "print",
    "retail",
    "rfc",
    "sa",
    "services",
    "society",
    "solutions",
    "studios",
    "systems",
    "technologies",
    "trust",
];

/// Whether `span` is written like an organisation's name: capitalised, ending with a legal
/// form or a firm's noun (`Ltd`, `B.V.`, `Mortgages`) or a venue noun (`Westside Clinic`), or
/// two names joined by `&` (`Harrow & Finch Retail`).
pub fn is_organisation(span: &str) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    let Some(last) = words.last() else {
        return false;
    };
    let form = bare(last).replace('.', "");
    let by_form = words.len() >= 2
        && last.starts_with(char::is_uppercase)
        && (ORG_FORMS.contains(&form.as_str()) || HEAD_NOUNS.contains(&form.as_str()));
    if span.contains(',') || words.first() == Some(&"&") || last == &"&" {
        return false;
    }
    let joined = words.contains(&"&");
    let name: Vec<&str> = words.iter().copied().filter(|w| *w != "&").collect();
    (by_form || joined) && is_proper(name.join(" ").trim_end_matches('.'))
}

/// Whether `span` is written like a code or an identifier: a digit in it, every word holds a
/// digit or is in capitals and has no run of four lowercase letters (`KX19 TRW`, `ICE 578`,
/// `UK-448120`, `a3f9c2`; not `48-page`), no list (`3, 18`), and it is not a date, a time or
/// an amount of money (`14:07`, `119.90 EUR`).
pub fn is_code(span: &str) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    let marks: &[char] = &['.', ',', ';', ':', '!', '?', '(', ')', '"', '\''];
    // `48-page` is a description: a code has no run of four lowercase letters.
    let lowercase_run = |w: &str| {
        w.split(|c: char| !c.is_lowercase())
            .any(|run| run.chars().count() >= 4)
    };
    let word_fits = |w: &&str| {
        let w = w.trim_matches(marks);
        !w.is_empty()
            && !lowercase_run(w)
            && (w.chars().any(|c| c.is_ascii_digit())
                || (w.chars().filter(|c| c.is_alphabetic()).count() >= 2
                    && !w.chars().any(char::is_lowercase)))
    };
    let money = words
        .iter()
        .any(|w| super::words::is_currency(&bare(w)) || w.contains(['$', '€', '£', '¥']));
    span.chars().any(|c| c.is_ascii_digit())
        && !words.is_empty()
        && !span.contains(", ")
        && words.iter().all(word_fits)
        && !money
        && !is_date(span)
        && !words.iter().any(|w| is_time(w))
}

/// Whether `span` is one capitalised word that names no one: a month, a day, a currency
/// code (`EUR`), or, for a `person`, any short word in capitals (`ID`, `API`).
pub fn names_no_one(span: &str, person: bool) -> bool {
    let word = span.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    if word.contains(char::is_whitespace) {
        return false;
    }
    let lower = word.to_lowercase();
    let capitals = word.len() <= 3 && word.chars().all(|c| c.is_ascii_uppercase());
    MONTHS.contains(&lower.as_str())
        || DAYS.contains(&lower.as_str())
        || (capitals && (person || super::words::is_currency(&lower)))
}

/// Whether `span` is written like the name of a person, an organisation or a place: no
/// digits, its first and last words start with a capital letter, and the words between too or
/// are small joining words (`de`, `of`, `the`).
pub fn is_proper(span: &str) -> bool {
    if span.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let words: Vec<&str> = span.split_whitespace().collect();
    let capital = |w: &str| {
        w.chars()
            .find(|c| c.is_alphanumeric())
            .is_some_and(char::is_uppercase)
    };
    match (words.first(), words.last()) {
        (Some(first), Some(last)) => {
            capital(first)
                && capital(last)
                && words
                    .iter()
                    .all(|w| capital(w) || *w == "&" || NAME_GLUE.contains(&bare(w).as_str()))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_hold_a_digit_and_no_lowercase_word() {
        for code in [
            "KX19 TRW",
            "ICE 578",
            "UK-448120",
            "#UK-448120",
            "47 036 892 816",
            "3B",
            "a3f9c2",
        ] {
            assert!(is_code(code), "{code}");
        }
        for other in [
            "VW Golf",
            "Vehicle KX19",
            "14:07",
            "14:07 UTC",
            "119.90 EUR",
            "$40",
            "44 rather",
            "3, 18",
            "48-page",
            "12 March",
            "",
        ] {
            assert!(!is_code(other), "{other}");
        }
    }

    #[test]
    fn months_codes_and_acronyms_name_no_one() {
        assert!(names_no_one("November", false));
        assert!(names_no_one("EUR", false));
        assert!(names_no_one("ID", true));
        assert!(!names_no_one("ID", false));
        assert!(!names_no_one("Craig", true));
        assert!(!names_no_one("Ravi Menon", true));
    }

    #[test]
    fn organisations_are_named_by_their_forms() {
        assert!(is_organisation("Tayside Print Ltd"));
        assert!(is_organisation("Polder Bikes B.V."));
        assert!(is_organisation("Fjordline Media AS."));
        assert!(is_organisation("Harrow & Finch Retail"));
        assert!(is_organisation("Westside Clinic"));
        assert!(!is_organisation("Henrik Dahl"));
        assert!(!is_organisation("Ltd"));
        assert!(!is_organisation("known as"));
        assert!(!is_organisation("14 Marchmont Lettings"));
        assert!(!is_organisation("Aaron Reilly, Logistics"));
        assert!(!is_organisation("Bakker &"));
    }

    #[test]
    fn dates_are_recognised_alone() {
        for date in [
            "June 12",
            "Thursday",
            "the 3rd of May 2025",
            "2025-04-30",
            "4/30",
        ] {
            assert!(is_date(date), "{date}");
        }
        for other in [
            "June 12 to June 14",
            "45",
            "INV-2291",
            "3.2.1",
            "29.99",
            "40-11-22",
        ] {
            assert!(!is_date(other), "{other}");
        }
    }

    #[test]
    fn times_are_recognised_alone() {
        for time in ["07:45", "10:30 am", "7pm", "noon"] {
            assert!(is_time(time), "{time}");
        }
        for other in ["07:45 and", "1234", "B12", "3:2:1"] {
            assert!(!is_time(other), "{other}");
        }
    }

    #[test]
    fn venues_are_a_capitalised_name_and_a_venue_noun() {
        assert!(is_named_venue("Riverside food bank") && is_named_venue("Canadian consulate"));
        assert!(!is_named_venue("consulate") && !is_named_venue("the Canadian consulate"));
        assert!(!is_named_venue("Canadian") && !is_named_venue("Hall 4 office"));
    }

    #[test]
    fn names_start_and_end_with_capitals() {
        for name in [
            "Claire Dubois",
            "Rue de la Paix",
            "Harbour Hotel",
            "Dr. Okafor",
        ] {
            assert!(is_proper(name), "{name}");
        }
        for other in [
            "the Harbour Hotel",
            "Ahmed Khan booked",
            "standing desks",
            "LH 1234",
        ] {
            assert!(!is_proper(other), "{other}");
        }
    }
}
