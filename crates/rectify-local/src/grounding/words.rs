//! What a field's name says about the values that fit it: its words (`duration_minutes` →
//! `duration`, `minutes`), and whether it holds money, a date, a time, a person or a place.

/// Words of a field name that say nothing about its value.
const STOP: &[&str] = &[
    "a", "an", "and", "at", "by", "for", "from", "has", "in", "is", "of", "on", "or", "per", "the",
    "to", "with",
];

/// Field words that mean an amount of money.
const MONEY: &[&str] = &[
    "amount", "balance", "budget", "charge", "cost", "deposit", "fare", "fee", "income", "paid",
    "pay", "payment", "price", "refund", "rent", "revenue", "salary", "tip", "total", "wage",
];

/// Words and signs next to a number that make it an amount of money.
const CURRENCY: &[&str] = &[
    "$", "€", "£", "¥", "aud", "cad", "chf", "dollar", "dollars", "eur", "euro", "euros", "gbp",
    "jpy", "pound", "pounds", "usd", "yen",
];

/// Field words that mean a date or a day.
const DATE: &[&str] = &[
    "birthday", "date", "day", "deadline", "dob", "due", "end", "expires", "expiry", "start",
    "until", "weekday", "when",
];

/// Field words that mean an identifier or a code, whose value may be a bare number
/// (`account 55102`, `flat 14`, `postal_code 75002`).
const IDENTIFIER: &[&str] = &[
    "account",
    "apartment",
    "bib",
    "booking",
    "code",
    "field",
    "flat",
    "floor",
    "gate",
    "id",
    "iban",
    "invoice",
    "licence",
    "license",
    "membership",
    "no",
    "num",
    "number",
    "order",
    "passport",
    "phone",
    "pin",
    "plate",
    "platform",
    "policy",
    "postal",
    "postcode",
    "ref",
    "reference",
    "registration",
    "room",
    "seat",
    "serial",
    "ticket",
    "tracking",
    "train",
    "flight",
    "unit",
    "version",
    "year",
    "zip",
];

/// Field words that mean a measured quantity, whose value may be written as one (`200 g`,
/// `2 tablets`, `45 minutes`).
const MEASURE: &[&str] = &[
    "amount",
    "area",
    "capacity",
    "count",
    "depth",
    "distance",
    "dosage",
    "dose",
    "duration",
    "height",
    "length",
    "mileage",
    "quantity",
    "qty",
    "size",
    "speed",
    "temperature",
    "volume",
    "weight",
    "width",
];

/// Field words that mean a time of day.
const TIME: &[&str] = &["arrival", "arrives", "departs", "departure", "hour", "time"];

/// Field words that mean a person, an organisation or a named venue (written with capitals).
const PERSON: &[&str] = &[
    "agency",
    "agent",
    "airline",
    "applicant",
    "artist",
    "attendee",
    "attendees",
    "author",
    "band",
    "beneficiary",
    "borrower",
    "brand",
    "buyer",
    "candidate",
    "captain",
    "charity",
    "claimant",
    "client",
    "clinic",
    "club",
    "company",
    "complainant",
    "consignee",
    "contact",
    "courier",
    "customer",
    "dentist",
    "doctor",
    "donee",
    "donor",
    "driver",
    "employee",
    "employer",
    "examiner",
    "gallery",
    "guest",
    "hospital",
    "host",
    "hotel",
    "inspector",
    "installer",
    "institution",
    "instructor",
    "insurer",
    "landlord",
    "lawyer",
    "lender",
    "manager",
    "mechanic",
    "member",
    "museum",
    "nurse",
    "office",
    "operator",
    "organisation",
    "organiser",
    "organization",
    "organizer",
    "owner",
    "parent",
    "passenger",
    "patient",
    "payee",
    "payer",
    "performer",
    "person",
    "photographer",
    "pilot",
    "player",
    "provider",
    "publisher",
    "recipient",
    "reporter",
    "respondent",
    "restaurant",
    "school",
    "scorer",
    "seller",
    "sender",
    "shipper",
    "sitter",
    "speaker",
    "sponsor",
    "student",
    "supplier",
    "tailor",
    "taxpayer",
    "teacher",
    "team",
    "tenant",
    "theater",
    "theatre",
    "therapist",
    "trainer",
    "tutor",
    "university",
    "vendor",
    "venue",
    "visitor",
    "volunteer",
    "winery",
    "winner",
    "witness",
];

/// Field words that mean an organisation, never a person.
const ORGANISATION: &[&str] = &[
    "agency",
    "airline",
    "bank",
    "charity",
    "company",
    "contractor",
    "council",
    "employer",
    "firm",
    "haulier",
    "insurer",
    "institution",
    "manufacturer",
    "organisation",
    "organization",
    "supplier",
];

/// Field words that mean a person, never an organisation.
const PEOPLE: &[&str] = &[
    "adviser",
    "advisor",
    "applicant",
    "attendee",
    "attorney",
    "attorneys",
    "borrower",
    "child",
    "coach",
    "doctor",
    "driver",
    "employee",
    "gp",
    "guest",
    "guide",
    "investigator",
    "manager",
    "nurse",
    "parent",
    "passenger",
    "patient",
    "pupil",
    "referee",
    "sitter",
    "speaker",
    "specialist",
    "student",
    "supervisor",
    "swimmer",
    "teacher",
    "tenant",
    "tenants",
    "trainer",
    "tutor",
    "visitor",
    "volunteer",
    "witness",
];

/// Field words that mean a place (written with capitals).
const PLACE: &[&str] = &[
    "airport",
    "city",
    "country",
    "destination",
    "hometown",
    "location",
    "origin",
    "place",
    "region",
    "state",
    "station",
    "stop",
    "town",
];

/// The lowercased words of a field name, split at `_`, `-`, spaces and camelCase humps,
/// without words that say nothing about the value (`from`, `per`, …).
pub fn field_words(name: &str) -> Vec<String> {
    let mut words = field_words_with_stop(name);
    words.retain(|w| !STOP.contains(&w.as_str()));
    words
}

/// The lowercased words of a field's name, small words included.
fn field_words_with_stop(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if (!c.is_alphanumeric() || (c.is_uppercase() && previous_lower)) && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether two lowercased words are the same word: equal, one the plural of the other, or
/// sharing their first four letters (`serves` and `servings`, `dated` and `date`).
pub fn same_word(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b || a.strip_suffix('s') == Some(b) || b.strip_suffix('s') == Some(a) {
        return true;
    }
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    shared >= 4
}

/// Whether any of `words` is `word` ([`same_word`]).
pub fn names(words: &[String], word: &str) -> bool {
    words.iter().any(|w| same_word(w, word))
}

/// Field words that name a unit or what a number measures, with the words (and signs)
/// written next to a number of it that do not share the field word's stem: `25%` for
/// `discount_percent`, `54-year-old` and `aged 54` for `age`, `31.5 square metres` for
/// `area_m2`.
const UNITS: &[(&str, &[&str])] = &[
    ("percent", &["%", "cent"]),
    ("percentage", &["%", "percent", "cent"]),
    ("pct", &["%", "percent", "cent"]),
    ("age", &["aged", "year", "yo"]),
    ("m2", &["square", "sq", "sqm"]),
    ("sqm", &["square", "sq"]),
    ("m3", &["cubic"]),
    (
        "kg",
        &["kilo", "kilos", "kilogram", "kilograms", "kilogrammes"],
    ),
    (
        "km",
        &["kilometre", "kilometres", "kilometer", "kilometers"],
    ),
    (
        "cm",
        &["centimetre", "centimetres", "centimeter", "centimeters"],
    ),
    ("mins", &["min", "minute", "minutes"]),
    ("min", &["mins", "minute", "minutes"]),
    ("hrs", &["h", "hr", "hour", "hours"]),
    ("hours", &["h", "hr", "hrs"]),
];

/// Whether `word`, written next to a number, names a field with `words`: one of them
/// ([`names`]) or a unit one of them stands for (`%` for `percent`, `year` and `aged` for
/// `age`, `square` for `m2`).
pub fn labels(words: &[String], word: &str) -> bool {
    names(words, word)
        || words.iter().any(|w| {
            UNITS
                .iter()
                .any(|(unit, next)| unit == w && next.iter().any(|n| same_word(n, word)))
        })
}

/// Whether `word` (next to a number) is a currency.
pub fn is_currency(word: &str) -> bool {
    CURRENCY.contains(&word)
}

fn any_in(words: &[String], list: &[&str]) -> bool {
    words.iter().any(|w| list.contains(&w.as_str()))
}

/// Whether one of `words`, or its singular (`passengers`, `cities`, `witnesses`), is in
/// `list`. (Only for names: a plural of a date or time word counts, `days`, `hours`.)
fn any_named(words: &[String], list: &[&str]) -> bool {
    any_in(words, list)
        || words
            .iter()
            .any(|w| singular(w).is_some_and(|s| list.contains(&s.as_str())))
}

/// The singular of an English plural (`stops` → `stop`, `cities` → `city`, `witnesses` →
/// `witness`), or `None` for a word that is not one.
fn singular(word: &str) -> Option<String> {
    if let Some(stem) = word.strip_suffix("ies") {
        return Some(format!("{stem}y"));
    }
    if ["sses", "shes", "ches", "xes"]
        .iter()
        .any(|e| word.ends_with(e))
    {
        return word.strip_suffix("es").map(str::to_owned);
    }
    match word.strip_suffix('s') {
        Some(stem) if !stem.ends_with('s') && stem.len() >= 3 => Some(stem.to_owned()),
        _ => None,
    }
}

/// Whether a field with these words holds an amount of money.
pub fn is_money(words: &[String]) -> bool {
    any_in(words, MONEY)
}

/// Whether a field with these words holds a time of day.
pub fn is_time(words: &[String]) -> bool {
    any_in(words, TIME)
}

/// Whether a field with these words holds a date or a day (and not a time).
pub fn is_date(words: &[String]) -> bool {
    any_in(words, DATE) && !is_time(words)
}

/// Whether a field with these words holds an identifier or a code (`account`, `flat`,
/// `postal_code`).
pub fn is_identifier(words: &[String]) -> bool {
    any_in(words, IDENTIFIER)
}

/// Whether a field with these words is named for an identifier or a code by its last word
/// (`order_number`, `vehicle_registration`, `flight`; not `policy_holder` or
/// `membership_type`).
pub fn is_code(words: &[String]) -> bool {
    words.last().is_some_and(|w| CODE.contains(&w.as_str()))
}

/// Identifier words whose values are codes or numbers, never names or descriptions
/// (`platform` may be `Android`, `room` may be `B`, `membership` may be `Gold`).
const CODE: &[&str] = &[
    "account",
    "bib",
    "code",
    "flight",
    "iban",
    "id",
    "invoice",
    "no",
    "num",
    "number",
    "order",
    "passport",
    "pin",
    "plate",
    "postal",
    "postcode",
    "ref",
    "reference",
    "registration",
    "serial",
    "tracking",
    "train",
    "zip",
];

/// Whether a field with these words holds a measured quantity or money (`amount`, `dose`,
/// `size`).
pub fn is_measure(words: &[String]) -> bool {
    any_in(words, MEASURE) || is_money(words)
}

/// Participles that do not end in `-ed` or `-en`, or end in `-eed` (`paid_by`, `run_by`,
/// `agreed_by`).
const PARTICIPLES: &[&str] = &[
    "agreed",
    "bought",
    "brought",
    "built",
    "caught",
    "done",
    "freed",
    "given",
    "guaranteed",
    "held",
    "kept",
    "led",
    "made",
    "met",
    "paid",
    "read",
    "refereed",
    "run",
    "said",
    "seen",
    "sent",
    "set",
    "shot",
    "sold",
    "spent",
    "taught",
    "told",
    "won",
];

/// The words before a final `by` in the field `name` (`signed` of `signed_by`, `dropped
/// off` of `dropped_off_by`), lowercased.
fn before_by(name: &str) -> Option<Vec<String>> {
    let mut words = field_words_with_stop(name);
    match words.pop() {
        Some(by) if by == "by" && !words.is_empty() => Some(words),
        _ => None,
    }
}

/// Whether the field `name` names who did something (`signed_by`, `bookedBy`, `paid_by`): a
/// person or an organisation. A word before `by` is a participle; `accept_by` and
/// `setup_by` name a deadline instead ([`is_deadline`]).
pub fn is_agent(name: &str) -> bool {
    before_by(name).is_some_and(|words| {
        words.iter().any(|verb| {
            let regular = (verb.ends_with("ed") && !verb.ends_with("eed"))
                || (verb.ends_with("en") && verb.len() >= 5);
            (regular || PARTICIPLES.contains(&verb.as_str()))
                && !BASE_FORMS.contains(&verb.as_str())
        })
    })
}

/// Base forms in `-en` (`open_by`: a deadline). Words in `-eed` are base forms too
/// (`need_by`), unless listed in [`PARTICIPLES`] (`agreed_by`).
const BASE_FORMS: &[&str] = &["happen", "listen", "open"];

/// Whether the field `name` names the date or time by which something is due (`accept_by`,
/// `setupBy`, `reply_by`): it ends with `by` after a word that is not a participle.
pub fn is_deadline(name: &str) -> bool {
    before_by(name).is_some() && !is_agent(name)
}

/// Whether a field with these words holds an organisation (`employer`, `broker_firm`).
pub fn is_organisation(words: &[String]) -> bool {
    any_named(words, ORGANISATION)
}

/// Whether a field with these words holds a person (`patient`, `referring_gp`).
pub fn is_person(words: &[String]) -> bool {
    any_named(words, PEOPLE) && !is_organisation(words)
}

/// Whether a field with these words holds a name written with capitals (a person, an
/// organisation, a place).
pub fn is_proper(words: &[String]) -> bool {
    any_named(words, PERSON) || any_named(words, PLACE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_names_an_agent_after_a_participle_and_a_deadline_after_a_verb() {
        for agent in [
            "signed_by",
            "bookedBy",
            "paid_by",
            "written-by",
            "run_by",
            "dropped_off_by",
            "agreed_by",
            "driven_by",
        ] {
            assert!(is_agent(agent) && !is_deadline(agent), "{agent}");
        }
        for deadline in [
            "accept_by",
            "setupBy",
            "reply_by",
            "due_by",
            "need_by",
            "open_by",
        ] {
            assert!(is_deadline(deadline) && !is_agent(deadline), "{deadline}");
        }
        assert!(!is_agent("buyer") && !is_deadline("buyer") && !is_deadline("by"));
    }

    #[test]
    fn plural_field_names_are_read_as_their_singular() {
        assert!(is_proper(&field_words("skipped_stops")) && is_proper(&field_words("cities")));
        assert!(is_person(&field_words("passengers")) && is_person(&field_words("witnesses")));
        assert_eq!(singular("address"), None);
        assert_eq!(singular("bus"), None);
        assert!(!is_time(&field_words("hours")) && !is_date(&field_words("days")));
    }

    #[test]
    fn a_code_field_is_named_by_its_last_word() {
        let code = |name: &str| is_code(&field_words(name));
        assert!(code("order_number") && code("vehicleRegistration") && code("flight"));
        assert!(!code("policy_holder") && !code("membership_type") && !code("birth_year"));
        assert!(!code("platform") && !code("room"));
    }

    #[test]
    fn field_names_split_into_meaningful_words() {
        assert_eq!(field_words("duration_minutes"), ["duration", "minutes"]);
        assert_eq!(field_words("timesPerDay"), ["times", "day"]);
        assert_eq!(field_words("from_account"), ["account"]);
        assert_eq!(field_words("postalCode"), ["postal", "code"]);
        assert_eq!(field_words("osVersion2"), ["os", "version2"]);
    }

    #[test]
    fn words_match_across_plurals_and_stems() {
        assert!(same_word("nights", "night"));
        assert!(same_word("servings", "serves"));
        assert!(same_word("date", "dated"));
        assert!(same_word("km", "km"));
        assert!(!same_word("age", "ago"));
        assert!(!same_word("day", "thursday"));
    }

    #[test]
    fn kinds_are_read_from_the_words() {
        let words = |name: &str| field_words(name);
        assert!(is_money(&words("pricePerDay")));
        assert!(is_date(&words("due_date")));
        assert!(!is_date(&words("start_time")));
        assert!(is_time(&words("start_time")));
        assert!(is_proper(&words("home_team")));
        assert!(is_identifier(&words("postalCode")));
        assert!(is_identifier(&words("complainant_flat")));
        assert!(!is_identifier(&words("damage")));
        assert!(is_measure(&words("amount")) && is_measure(&words("doseSize")));
        assert!(!is_proper(&words("name")));
    }

    #[test]
    fn units_label_their_numbers() {
        let words = |name: &str| field_words(name);
        assert!(labels(&words("discount_percent"), "%"));
        assert!(labels(&words("patient_age"), "year"));
        assert!(labels(&words("area_m2"), "square"));
        assert!(labels(&words("total_weight_kg"), "kg"));
        assert!(!labels(&words("total_weight_kg"), "%"));
        assert!(!labels(&words("term_years"), "aged"));
    }
}
