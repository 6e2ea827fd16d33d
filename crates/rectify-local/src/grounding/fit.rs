//! Which of the request's values fit a field, judged by the field's name and the schema's
//! other fields.
//!
//! Measured on Gemma 3 270M (issue 16): with every span and number of the request offered to
//! every field, most wrong answers were right values in the wrong field — the mileage as the
//! price, a number as the day, the flight number as the origin. Each rule here narrows a
//! field's choices only when something is left ([`prefer`]), so a field never loses all of
//! them:
//!
//! - a number written next to one of the field's words (`45 minutes` for `duration_minutes`,
//!   `serves 4` for `servings`, a currency for a money field) is the field's; numbers next to
//!   another field's words are not; nor are numbers inside codes (`X2`) and times, dates or
//!   scores (`07:45`, `3-1`) while others are left;
//! - a date field takes dates (`June 12`, `Thursday`), a time field times (`07:45`), other
//!   fields neither when the schema has such a field;
//! - a string written right after one of the field's words is preferred (`account 55102`,
//!   `gate B12`), and spans that start with a small word (`in Oslo`) are not;
//! - people, organisations and places are written with capitals (or are a capitalised name
//!   and a venue noun: `Canadian consulate`);
//! - an enum choice the request names, or a number another field takes, is not offered to free
//!   strings (`urgent` belongs to `priority`);
//! - a word only this field has, written in the few words after a number (`48213 kWh on the
//!   day rate` for `day_kwh` beside `night_kwh`), picks that number first; a number inside a
//!   range or score is not the one the word next to it names;
//! - a span that starts with a quantity (`2`, `24 months, so`, `39 EUR`) is not a free
//!   string's value unless the field is an identifier (`flat 14`), a measure or money
//!   (`amount`: `200 g`), a date or a time;
//! - spans that cross a sentence or a closing quote or bracket, open a bracket they do not
//!   close (`Li Wei (Platform`), start with a greeting, a pronoun or a contraction (`We'll
//!   meet`, `her nephew, Martin Trewin`) or end with a function word go last, and so do spans
//!   that start with a lowercase article (`the oak dining table`: the span without it is
//!   offered too); a span written after another field's label is that field's (`Booked by
//!   Claire Dubois` is not the winery), and a capitalised word inside a title is not a label
//!   (`Market Manager` does not make `Manager` the market);
//! - a unit the field's name holds is a word next to its number (`25%` for
//!   `discount_percent`, `54-year-old` for `age`, `31.5 square metres` for `area_m2`), and a
//!   number in the field's unit is not taken from it by another field's word before it (`4
//!   pallets (2,150 kg`); where every number the field's words name is another field's too,
//!   a word only this field has decides (`reduced to 35` for `reduced_penalty`); money is
//!   written with its currency;
//! - a name right before a bracketed word of the field is its value (`Ashby Town CC
//!   (home)`), and a date or time a few words after a word only its field has is that
//!   field's (`originally scheduled for Saturday 7 June`);
//! - a person is not an organisation (`Marchmont Lettings` is no tenant) and an
//!   organisation's field prefers names with a legal form or a firm's noun (`Keystone
//!   Mortgages`); a month, a day or a currency code names no one, nor, for a person, a short
//!   word in capitals (`ID`), and a label's value is not such a word (`student ID 2291847`
//!   does not make `ID` the student); a small word alone (`the`, `-`, `me`) goes last;
//! - a field named for an identifier by its last word (`order_number`, `incident_id`,
//!   `vehicle_registration`) takes codes: a digit, no lowercase word, not a date, a time or
//!   money (`KP19 XRT`, not `VW Golf` or `14:07`), the whole code (not `5TG` of `S10 5TG`)
//!   and not a number of four digits or fewer beside one;
//! - `X_by` names a deadline when `X` is no participle (`accept_by`, `setup_by`: a date or
//!   a time), an agent when it is one (`signed_by`, `dropped_off_by`, `paid_by`);
//! - a `date` has its day number (`6 June`, not `June`), a `day` names a weekday, a `month`
//!   a month; a possessive (`September's`) is no value;
//! - a name that ends with the field's own noun is its value (`Chelmsford County Court` for
//!   `court`, `Elm Street shelter` for `shelter`; not `Market Manager`, `Both households`,
//!   nor `District Judge` of `District Judge Amanda Reeve`).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::shape;
use super::spans::Mention;
use super::words::{self, field_words, labels, names};

/// `items` narrowed to those that `keep` accepts, unless none is.
pub fn prefer<T>(items: Vec<T>, keep: impl Fn(&T) -> bool) -> Vec<T> {
    if items.iter().any(&keep) {
        items.into_iter().filter(|i| keep(i)).collect()
    } else {
        items
    }
}

/// A field of the schema: its name's words and whether it holds numbers.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    words: Vec<String>,
    numeric: bool,
}

/// What the whole schema says about its fields, for judging one of them.
#[derive(Debug, Clone, Default)]
pub struct Context {
    fields: Vec<Field>,
    /// Enum choices the request names (lowercased): values of their own fields.
    reserved: BTreeSet<String>,
    dates: bool,
    times: bool,
}

impl Context {
    /// The fields of `schema` (every property, at any depth) and the enum choices `text` names.
    pub fn of(schema: &Value, text: &str) -> Self {
        let mut context = Self::default();
        collect(schema, None, &mut context);
        let lower = text.to_lowercase();
        context
            .reserved
            .retain(|choice| super::spans::spans(&lower).contains(choice));
        context.dates = context
            .fields
            .iter()
            .any(|f| words::is_date(&f.words) || words::is_deadline(&f.name));
        context.times = context.fields.iter().any(|f| words::is_time(&f.words));
        context
    }

    fn others<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
        self.fields.iter().filter(move |f| f.name != name)
    }

    /// Whether `mention` sits next to one of `field`'s words (or is money for a money field).
    fn tags(words: &[String], mention: &Mention) -> bool {
        Self::tags_after(words, mention) || Self::tags_before(words, mention)
    }

    /// Whether the word after `mention` is one of the field's words or units (`2,150 kg`,
    /// `25%`), or a currency for a money field: what the number counts.
    fn tags_after(words: &[String], mention: &Mention) -> bool {
        labels(words, &mention.after)
            || (words::is_money(words) && words::is_currency(&mention.after))
    }

    /// Whether the word before `mention` is one of the field's words (`Penalty: 70`), or a
    /// currency for a money field (`$45`).
    fn tags_before(words: &[String], mention: &Mention) -> bool {
        labels(words, &mention.before)
            || (words::is_money(words) && words::is_currency(&mention.before))
    }

    /// Whether another numeric field than `name` claims `mention` as strongly as `own` does:
    /// a number whose unit is the field's (`4 pallets (2,150 kg`) is not taken from it by
    /// another field's word written before it.
    fn claimed(&self, name: &str, own: &[String], mention: &Mention) -> bool {
        let by_unit = labels(own, &mention.after) && !Self::tags_before(own, mention);
        self.others(name).any(|f| {
            f.numeric
                && if by_unit {
                    Self::tags_after(&f.words, mention)
                } else {
                    Self::tags(&f.words, mention)
                }
        })
    }

    /// The mentions that fit the field `name`, best first (see the module docs).
    pub fn numbers<'m>(&self, name: &str, fitting: Vec<&'m Mention>) -> Vec<&'m Mention> {
        let own = field_words(name);
        let distinct = self.distinct(name, &own);
        // `58th in the women's category` for `category_place`: a word only this field has,
        // written just after a number, outranks a shared word next to another.
        let fitting = prefer(fitting, |m| !m.compound && near(&distinct, &m.near_after));
        let near_distinct =
            |m: &&Mention| near(&distinct, &m.near_after) || near(&distinct, &m.near_before);
        // A number inside a range, time or score (`35-39`) is not the one a word next to it
        // names.
        let mine: Vec<&Mention> = fitting
            .iter()
            .copied()
            .filter(|m| Self::tags(&own, m) && !m.compound)
            .collect();
        if !mine.is_empty() {
            // `Penalty: 70 GBP, reduced to 35 GBP` for `reduced_penalty` beside `penalty`:
            // where every number the field's words name is another field's too, a word only
            // this field has decides.
            if mine.iter().all(|m| self.claimed(name, &own, m)) {
                let marked: Vec<&Mention> = fitting.iter().copied().filter(near_distinct).collect();
                if !marked.is_empty() {
                    return marked;
                }
            }
            let mine = prefer(mine, |m| !self.claimed(name, &own, m));
            // `Events: 100 m backstroke … 7.50 GBP per event` for `fee_per_event`: money is
            // written with its currency.
            let mine = if words::is_money(&own) {
                prefer(mine, |m| {
                    words::is_currency(&m.before) || words::is_currency(&m.after)
                })
            } else {
                mine
            };
            return prefer(mine, |m| near(&distinct, &m.near_after));
        }
        let fitting = prefer(fitting, |m| near(&distinct, &m.near_after));
        let fitting = prefer(fitting, near_distinct);
        let rest = prefer(fitting, |m| {
            !self.others(name).any(|f| Self::tags(&f.words, m))
        });
        prefer(rest, |m| !m.glued && !m.compound)
    }

    /// The words of the field `name` (`own`) that no other field has: `day` of `day_kwh`
    /// beside `night_kwh`.
    fn distinct(&self, name: &str, own: &[String]) -> Vec<String> {
        own.iter()
            .filter(|w| !self.others(name).any(|f| names(&f.words, w)))
            .cloned()
            .collect()
    }

    /// The spans that fit the field `name` (see the module docs); `text` is the request's
    /// quoted text and `mentions` its numbers.
    pub fn strings(
        &self,
        name: &str,
        spans: Vec<String>,
        text: &str,
        mentions: &[Mention],
    ) -> Vec<String> {
        let own = field_words(name);
        let taken: Vec<f64> = mentions
            .iter()
            .filter(|m| {
                self.others(name)
                    .any(|f| f.numeric && Self::tags(&f.words, m))
            })
            .map(|m| m.written.value())
            .collect();
        let spans = prefer(spans, |s| !crosses_sentence(s) && !unbalanced(s));
        let spans = prefer(spans, |s| {
            !starts_with_small_word(s) && !ends_with_small_word(s) && !is_small_word(s)
        });
        // `September's`, `Kirkham Vale's`: the possessive qualifies what follows it.
        let spans = prefer(spans, |s| !s.ends_with("'s") && !s.ends_with("’s"));
        // `the oak dining table`: the same span without its article is offered too.
        let spans = prefer(spans, |s| !starts_with_article(s));
        let spans = prefer(spans, |s| {
            !self
                .reserved
                .contains(&s.trim_end_matches('.').to_lowercase())
                && !as_number(s).is_some_and(|x| taken.iter().any(|t| (t - x).abs() < 1e-9))
        });
        // A deadline (`accept_by`) is a date or a time; a `month` is `October`, not `Hannah`.
        let spans = if words::is_deadline(name) {
            prefer(spans, |s| shape::is_date(s) || shape::is_time(s))
        } else if own.iter().any(|w| w == "month") {
            prefer(spans, |s| shape::names_month(s))
        } else if words::is_date(&own) {
            let spans = prefer(spans, |s| shape::is_date(s));
            // A `date` is `6 June` rather than `June`; a `day`, `Friday` rather than
            // `September`.
            if own.iter().any(|w| w == "date") {
                prefer(spans, |s| s.chars().any(|c| c.is_ascii_digit()))
            } else if own.iter().any(|w| w == "day" || w == "weekday") {
                prefer(spans, |s| shape::names_weekday(s))
            } else {
                spans
            }
        } else if words::is_time(&own) {
            prefer(spans, |s| shape::is_time(s))
        } else {
            let spans = prefer(spans, |s| !(self.dates && shape::is_date(s)));
            prefer(spans, |s| !(self.times && shape::is_time(s)))
        };
        let person = words::is_person(&own) || words::is_agent(name);
        // `student ID 2291847` does not make `ID` the student.
        let after: Vec<&str> = following(text, &own)
            .into_iter()
            .filter(|a| {
                let word = a.split_whitespace().next().unwrap_or("");
                !shape::names_no_one(word, person)
            })
            .collect();
        let tagged = tagged_names(text, &own);
        let spans = prefer(spans, |s| {
            after.iter().any(|a| a.starts_with(s.as_str())) || tagged.contains(&s.as_str())
        });
        // `originally scheduled for Saturday 7 June` for `original_date` beside `new_date`: a
        // word only this date or time field has, a few words before the value in the same
        // clause. (For other fields the word is too often part of a name: `Harbour Hotel`.)
        let spans = if words::is_date(&own) || words::is_time(&own) {
            let soon = soon_after(text, &self.distinct(name, &own));
            prefer(spans, |s| soon.iter().any(|a| a.starts_with(s.as_str())))
        } else {
            spans
        };
        // `24 months` is a count, not the problem of a warranty claim (nor is `24 months, so
        // the repair is covered`); a bare number is only an identifier's (`flat 14`).
        let kept = [
            words::is_identifier,
            words::is_measure,
            words::is_date,
            words::is_time,
        ];
        let spans = if kept.iter().any(|kind| kind(&own)) {
            spans
        } else {
            prefer(spans, |s| !shape::starts_with_quantity(s))
        };
        // An identifier is written like one: `KX19 TRW`, not `VW Golf` or `Vehicle KX19`,
        // for `vehicle_registration`; `INC-2291`, not `14:07`, for `incident_id`.
        let spans = if words::is_code(&own) {
            let spans = prefer(spans, |s| shape::is_code(s));
            // `UK-448120` or `KP19 XRT` rather than the `23` of an address, and not `5TG` of
            // `S10 5TG` (though `07-0193` of `ID 07-0193` for `participant_id`: a code that
            // starts with the field's own word is its label and the code).
            let spans = prefer(spans, |s| !is_short_number(s));
            let labelled = |c: &String| {
                c.split_whitespace()
                    .next()
                    .is_some_and(|w| names(&own, &w.to_lowercase()))
            };
            let codes: Vec<String> = spans.iter().filter(|c| !labelled(c)).cloned().collect();
            let spans = prefer(spans, |s| !codes.iter().any(|c| part_of_code(c, s)));
            // `07-0193` rather than `ID 07-0193`.
            prefer(spans, |s| !labelled(s))
        } else {
            spans
        };
        // A span written right after another field's word is that field's.
        let theirs: Vec<&str> = self
            .others(name)
            .filter(|f| !f.numeric)
            .flat_map(|f| following(text, &f.words))
            .collect();
        let tagged_theirs: Vec<&str> = self
            .others(name)
            .filter(|f| !f.numeric)
            .flat_map(|f| tagged_names(text, &f.words))
            .collect();
        let spans = prefer(spans, |s| {
            !theirs.iter().any(|a| a.starts_with(s.as_str()))
                && !tagged_theirs.contains(&s.as_str())
        });
        // `Marchmont Lettings` is not a tenant, and `Keystone Mortgages`, not `Simon Walsh`, is
        // the broker firm.
        let spans = if words::is_person(&own) {
            prefer(spans, |s| !shape::is_organisation(s))
        } else if words::is_organisation(&own) {
            prefer(spans, |s| shape::is_organisation(s))
        } else {
            spans
        };
        // `Chelmsford County Court` for `court`, `Elm Street shelter` for `shelter`: a name
        // that ends with the field's own noun.
        let spans = match own.last() {
            // (`District Judge` of `District Judge Amanda Reeve` is part of a longer name.)
            Some(noun) if !person => {
                prefer(spans, |s| names_itself(s, noun) && !partial_name(text, s))
            }
            _ => spans,
        };
        if person || words::is_proper(&own) || words::is_organisation(&own) {
            let spans = prefer(spans, |s| !s.contains(", "));
            // `Canadian consulate` is a name too, though its noun is written in lowercase.
            let spans = prefer(spans, |s| shape::is_proper(s) || shape::is_named_venue(s));
            // `November`, `EUR` and, for a person, `ID` are capitalised but name no one.
            let spans = prefer(spans, |s| !shape::names_no_one(s, person));
            // `Mr. Tomasz` of `Mr. Tomasz Zielinski`, `Pascoe` of `Joanne Pascoe`: part of a
            // longer name.
            prefer(spans, |s| !partial_name(text, s))
        } else {
            spans
        }
    }
}

/// Whether `span` is a name of two words or more that ends with `noun` (the last word of a
/// field's name): the words before it are capitalised and not a determiner (`Both
/// households`), the noun may be written in lowercase (`Elm Street shelter`). A noun first
/// is a title more often than a name (`Market Manager`).
fn names_itself(span: &str, noun: &str) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    let Some((last, rest)) = words.split_last() else {
        return false;
    };
    let last = last
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    !rest.is_empty()
        && is_label(&[noun.to_owned()], &last)
        && !DETERMINERS.contains(&first_word(span).as_str())
        && !span.contains(',')
        && shape::is_proper(&rest.join(" "))
}

/// Words that open a noun phrase without naming anything (`Both households`).
const DETERMINERS: &[&str] = &[
    "all", "another", "any", "both", "each", "either", "every", "her", "his", "its", "my",
    "neither", "no", "other", "our", "some", "that", "their", "these", "this", "those", "which",
    "whose", "your",
];

/// Whether `span` is a number of four digits or fewer and nothing else (`23`, `4402.`): too
/// short for an identifier when a code is written beside it (`ZP-6610`, `7702914563`).
fn is_short_number(span: &str) -> bool {
    let span = span.trim_end_matches(['.', ',', ';', ':']);
    (1..=4).contains(&span.len()) && span.chars().all(|c| c.is_ascii_digit())
}

/// Whether `part` is the last or first whole words of the longer code `code` (`5TG` of
/// `S10 5TG`; not `S10 5TG` of `S10 5TG,`).
fn part_of_code(code: &str, part: &str) -> bool {
    let marks: &[char] = &['.', ',', ';', ':', '!', '?'];
    let (code, part) = (code.trim_end_matches(marks), part.trim_end_matches(marks));
    code.len() > part.len()
        && !part.is_empty()
        && (code.starts_with(&format!("{part} ")) || code.ends_with(&format!(" {part}")))
}

/// Whether one of `words` is among `context` (words near a number).
fn near(words: &[String], context: &[String]) -> bool {
    context.iter().any(|c| names(words, c))
}

/// A span read as a number (`1,250.00` → 1250).
fn as_number(span: &str) -> Option<f64> {
    span.replace(',', "").parse().ok()
}

/// The text after each word of `text` that labels a value of a field with `words`: the word
/// is one of them (or its plural) and ends without punctuation (or with a colon), and the
/// next word starts with a capital or a digit (`account 55102`, `Customer Eva Novak`, not
/// `Harbour Hotel in Oslo` or `shelter, vaccinated`).
fn following<'t>(text: &'t str, words: &[String]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        let word_len = rest[start..]
            .find(char::is_whitespace)
            .unwrap_or(rest.len() - start);
        let word = rest[start..start + word_len].trim_start_matches(['"', '\'', '(']);
        let opens = opens_sentence(&text[..text.len() - rest.len() + start]);
        rest = &rest[start + word_len..];
        // `Market Manager`, `Referee Appointments Officer`: a capitalised word inside a
        // title or name (another capitalised word follows) is not a label, unless it starts
        // a sentence or has a colon (`tax ID 47 036` is a label).
        let inside_name = word.starts_with(char::is_uppercase)
            && !opens
            && !word.ends_with(':')
            && rest.trim_start().starts_with(char::is_uppercase);
        let label = word.strip_suffix(':').unwrap_or(word).to_lowercase();
        let named = !inside_name && is_label(words, &label);
        let mut next = rest.trim_start();
        // `Booked by Claire Dubois`, `the winner is Porto`: a linking word between the label
        // and the value is skipped (not a preposition: `Harbour Hotel in Oslo`).
        while let Some((word, more)) = next.split_once(char::is_whitespace)
            && LINKING.contains(&word.to_lowercase().as_str())
        {
            next = more.trim_start();
        }
        let next = next.trim_start_matches(['"', '\'', '(', '[', '“', '‘']);
        if named && next.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()) {
            out.push(next);
        }
    }
    out
}

/// How many words after a field's word its value may start ([`soon_after`]).
const SOON: usize = 4;

/// The text from each of the [`SOON`] words after a word of `words` (the same word,
/// [`words::same_word`]: `originally` for `original`), within its clause.
fn soon_after<'t>(text: &'t str, words: &[String]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let starts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| {
            c.is_alphanumeric()
                && text[..i]
                    .chars()
                    .next_back()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(i, _)| i)
        .collect();
    for (k, &at) in starts.iter().enumerate() {
        let word: String = text[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        if !names(words, &word) {
            continue;
        }
        for &next in starts.iter().skip(k + 1).take(SOON) {
            if text[at..next].contains(['.', ';', '!', '?', '(', ')', '\n']) {
                break;
            }
            out.push(&text[next..]);
        }
    }
    out
}

/// The names written right before a bracketed word of the field (`Ashby Town CC (home)` for
/// `home_team`): the run of capitalised words (and `&`) that ends at the bracket.
fn tagged_names<'t>(text: &'t str, words: &[String]) -> Vec<&'t str> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices('(') {
        let inside = &text[at + 1..];
        let Some(close) = inside.find(')') else {
            continue;
        };
        let label = inside[..close].trim().to_lowercase();
        if !is_label(words, &label) {
            continue;
        }
        let head = text[..at].trim_end();
        let mut start = head.len();
        for word in head.rsplit(' ') {
            let capitalised = word.starts_with(char::is_uppercase) || word == "&";
            if !capitalised || word.ends_with([',', '.', ';', ':']) && start < head.len() {
                break;
            }
            start -= word.len();
            start = start.saturating_sub(1);
        }
        let name = head[start..].trim_start();
        if !name.is_empty() && name.starts_with(char::is_uppercase) {
            out.push(name);
        }
    }
    out
}

/// Whether the lowercased word `label` is one of the field's `words` or its plural.
fn is_label(words: &[String], label: &str) -> bool {
    label.chars().all(char::is_alphanumeric)
        && words
            .iter()
            .any(|w| *w == label || label.strip_suffix('s') == Some(w.as_str()))
}

/// Whether a word written right after `head` starts a sentence (or the text, or a line).
fn opens_sentence(head: &str) -> bool {
    let before = head.trim_end_matches([' ', '\t']);
    before.is_empty() || before.ends_with(['.', '!', '?', ':', '\n'])
}

/// Words that link a field's label to its value (`Booked by`, `winner is`).
const LINKING: &[&str] = &["by", "is", "was", "are", "were"];

/// Small words a value does not start with: a span starting with one is the value with the
/// words around it (`in Oslo`, `for a knee check`).
const LEADING: &[&str] = &[
    "and", "at", "by", "for", "from", "in", "into", "of", "on", "or", "to", "with",
];

/// Words a value does not start with besides [`LEADING`]: greetings, pronouns and
/// sentence openers (`Hi Clara`, `I'm Grace Mensah`, `Please`, `My ICE 578`).
const OPENERS: &[&str] = &[
    "dear", "hello", "hi", "i", "i'm", "it", "it's", "kind", "my", "our", "please", "thanks",
    "thank", "this", "we", "we're", "you", "your", "i'd", "i'll", "i've", "we'd", "we'll", "we've",
    "you'd", "you'll", "you're", "you've", "he", "she", "they", "he's", "she's", "they're",
    "they'll", "her", "his", "their", "its", "that's", "there's", "let's",
];

/// Words a value does not end with: a span ending with one runs into the next phrase
/// (`Keiko Tanaka from`, `Ravi and I will`, `Casa Agency here`).
const TRAILING: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "he",
    "her", "here", "his", "i", "in", "is", "it", "my", "of", "on", "or", "our", "she", "so",
    "that", "the", "their", "they", "this", "to", "was", "we", "were", "who", "will", "with",
    "would", "you", "your", "-",
];

/// Titles written before a name, with or without a period.
const TITLES: &[&str] = &[
    "mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "lord", "lady", "rev", "coach",
];

/// Whether `span` is a title alone (`Dr.`), or every place `text` writes it (as whole words)
/// is inside a longer name: a capitalised word right after it, or right before it (not a
/// title, a greeting or an opener, and not ended by punctuation).
fn partial_name(text: &str, span: &str) -> bool {
    if TITLES.contains(&span.trim_end_matches('.').to_lowercase().as_str()) {
        return true;
    }
    let mut found = false;
    for (at, _) in text.match_indices(span) {
        let head = &text[..at];
        let tail = &text[at + span.len()..];
        let whole = head
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
            && tail.chars().next().is_none_or(|c| !c.is_alphanumeric());
        if !whole {
            continue;
        }
        found = true;
        let right = !span.ends_with(|c: char| c.is_ascii_punctuation())
            && tail
                .strip_prefix(' ')
                .is_some_and(|t| t.starts_with(char::is_uppercase));
        let left = head.strip_suffix(' ').is_some_and(|h| {
            let word = h.rsplit(' ').next().unwrap_or("");
            let lower = word.to_lowercase();
            word.starts_with(char::is_uppercase)
                && !word.ends_with(|c: char| c.is_ascii_punctuation())
                && ![TITLES, OPENERS, LEADING]
                    .iter()
                    .any(|l| l.contains(&lower.as_str()))
        });
        if !right && !left {
            return false;
        }
    }
    found
}

fn first_word(span: &str) -> String {
    span.split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .replace('’', "'")
        .to_lowercase()
}

/// Whether `span` is one small word alone (`the`, `-`, `me`): never a value.
fn is_small_word(span: &str) -> bool {
    let word = span.trim_end_matches(['.', ',', ';', ':']).to_lowercase();
    !word.contains(char::is_whitespace)
        && (word.chars().all(|c| !c.is_alphanumeric())
            || [LEADING, OPENERS, TRAILING]
                .iter()
                .any(|l| l.contains(&word.as_str()))
            || ["not", "no", "me", "us", "them", "him"].contains(&word.as_str()))
}

/// Whether `span` starts with one of the [`LEADING`] or [`OPENERS`] words.
fn starts_with_small_word(span: &str) -> bool {
    let first = first_word(span);
    LEADING.contains(&first.as_str()) || OPENERS.contains(&first.as_str())
}

/// Whether `span` starts with an article in lowercase (`the oak dining table`; not `The
/// Alchemist's Vault`).
fn starts_with_article(span: &str) -> bool {
    span.split_whitespace().nth(1).is_some()
        && matches!(span.split_whitespace().next(), Some("the" | "a" | "an"))
}

/// Whether `span` opens a bracket it does not close, or closes one it did not open
/// (`Li Wei (Platform`, `Lucas (Year 9, tutor group 9K`).
fn unbalanced(span: &str) -> bool {
    let mut depth = 0i32;
    for c in span.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    depth != 0
}

/// Whether `span` (of more than one word) ends with one of the [`TRAILING`] words.
fn ends_with_small_word(span: &str) -> bool {
    let mut words = span.split_whitespace();
    let last = words.next_back().unwrap_or_default().to_lowercase();
    words.next().is_some() && TRAILING.contains(&last.as_str())
}

/// Whether `span` runs over the end of a sentence, a quotation or a parenthesis (`!`, `?`,
/// `;`, a closing quote or bracket at the end of a word inside it), or a period
/// after a word that is not an abbreviation (`Dr.`, `Mrs.`, `St.`, `no.`: at most three
/// letters).
fn crosses_sentence(span: &str) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    let Some((_, inner)) = words.split_last() else {
        return false;
    };
    inner.iter().any(|w| {
        w.ends_with(['!', '?', ';', '\'', '"', ')', '’', '”'])
            || w.strip_suffix('.').is_some_and(|stem| {
                stem.chars().filter(|c| c.is_alphabetic()).count() > 3
                    || stem.chars().any(|c| c.is_ascii_digit())
                    || stem.ends_with([')', ']', '"', '\'', '’', '”'])
            })
    })
}

fn collect(schema: &Value, name: Option<&str>, context: &mut Context) {
    let Some(obj) = schema.as_object() else {
        if let Value::Array(items) = schema {
            for item in items {
                collect(item, name, context);
            }
        }
        return;
    };
    if let Some(Value::Array(choices)) = obj.get("enum") {
        context.reserved.extend(
            choices
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_lowercase),
        );
    }
    if let Some(name) = name
        && leaf_type(obj).is_some()
    {
        context.fields.push(Field {
            name: name.to_owned(),
            words: field_words(name),
            numeric: matches!(leaf_type(obj), Some("number" | "integer")),
        });
    }
    for (key, sub) in obj {
        match (key.as_str(), sub) {
            ("properties", Value::Object(props)) => {
                for (prop, sub) in props {
                    collect(sub, Some(prop), context);
                }
            }
            ("enum" | "const" | "required" | "examples" | "default", _) => {}
            (_, sub) => collect(sub, name, context),
        }
    }
}

fn leaf_type(obj: &Map<String, Value>) -> Option<&str> {
    obj.get("type")
        .and_then(Value::as_str)
        .filter(|t| ["string", "number", "integer", "boolean"].contains(t))
        .or_else(|| obj.get("enum").map(|_| "string"))
}

#[cfg(test)]
mod tests {
    use super::super::spans::{mentions, spans};
    use super::*;
    use serde_json::json;

    fn schema(fields: &[(&str, &str)]) -> Value {
        let props: Map<String, Value> = fields
            .iter()
            .map(|(name, kind)| ((*name).to_owned(), json!({"type": kind})))
            .collect();
        json!({"type": "object", "properties": props})
    }

    fn strings_for(text: &str, schema: &Value, field: &str) -> Vec<String> {
        let found = mentions(text);
        let all: Vec<String> = spans(text).into_iter().collect();
        Context::of(schema, text).strings(field, all, text, &found)
    }

    fn numbers_for(text: &str, schema: &Value, field: &str) -> Vec<String> {
        let found = mentions(text);
        let context = Context::of(schema, text);
        context
            .numbers(field, found.iter().collect())
            .into_iter()
            .map(|m| m.written.literal.clone())
            .collect()
    }

    #[test]
    fn a_number_next_to_the_field_name_is_the_field_s() {
        let text = "2019 Toyota Corolla, 48000 km, asking 14500 EUR, about 45 minutes";
        let s = schema(&[
            ("mileage_km", "integer"),
            ("price", "integer"),
            ("duration_minutes", "integer"),
            ("year", "integer"),
        ]);
        assert_eq!(numbers_for(text, &s, "mileage_km"), ["48000"]);
        assert_eq!(numbers_for(text, &s, "price"), ["14500"]);
        assert_eq!(numbers_for(text, &s, "duration_minutes"), ["45"]);
        assert_eq!(numbers_for(text, &s, "year"), ["2019"]);
    }

    #[test]
    fn a_word_only_one_field_has_picks_its_number() {
        let text = "48213 kWh on the day rate and 17906 kWh on the night rate";
        let s = schema(&[("day_kwh", "integer"), ("night_kwh", "integer")]);
        assert_eq!(numbers_for(text, &s, "day_kwh"), ["48213"]);
        assert_eq!(numbers_for(text, &s, "night_kwh"), ["17906"]);
        let text = "placing 412th overall and 58th in the women's 35-39 category";
        let s = schema(&[("overall_place", "integer"), ("category_place", "integer")]);
        assert_eq!(numbers_for(text, &s, "category_place"), ["58"]);
        assert_eq!(numbers_for(text, &s, "overall_place"), ["412"]);
        let s = schema(&[("hourly_rate", "number"), ("children", "integer")]);
        assert_eq!(
            numbers_for("our two boys, we pay 15 an hour", &s, "hourly_rate"),
            ["15"]
        );
    }

    #[test]
    fn spans_that_run_past_a_value_go_last() {
        assert!(crosses_sentence("Tom! Ravi"));
        assert!(crosses_sentence("Keiko' as the first"));
        assert!(crosses_sentence("late. The room"));
        assert!(!crosses_sentence("Dr. Anneke Visser"));
        assert!(!crosses_sentence("Mr. and Mrs. Oduya"));
        assert!(ends_with_small_word("Keiko Tanaka from"));
        assert!(!ends_with_small_word("from"));
        assert!(starts_with_small_word("I'm Grace Mensah"));
        assert!(starts_with_small_word("Hi Clara"));
        assert!(!starts_with_small_word("Grace Mensah"));
        assert!(starts_with_small_word("We'll meet"));
        assert!(starts_with_small_word("her nephew, Martin Trewin"));
        assert!(crosses_sentence("Nadia Rahman (SRE). The on-call engineer"));
        assert!(unbalanced("Li Wei (Platform") && unbalanced("SRE) and"));
        assert!(!unbalanced("Nadia Rahman (SRE)") && !unbalanced("Nadia Rahman"));
        assert!(starts_with_article("the oak dining table"));
        assert!(!starts_with_article("The Alchemist's Vault") && !starts_with_article("a"));
    }

    #[test]
    fn a_capitalised_word_inside_a_title_is_not_a_label() {
        let text = "Kind regards, Tom Harrow, Market Manager, Bridgwater Town Council. \
                    Market: Bridgwater Makers' Market";
        assert_eq!(
            following(text, &["market".to_owned()]),
            ["Bridgwater Makers' Market"]
        );
        assert_eq!(
            following("Customer Eva Novak", &["customer".to_owned()]),
            ["Eva Novak"]
        );
        assert_eq!(
            following("Sabine (tax ID 47 036 892)", &["id".to_owned()]),
            ["47 036 892)"]
        );
    }

    #[test]
    fn a_span_after_another_field_s_label_is_that_field_s() {
        let text = "Tasting at Domaine Roche on Saturday. Booked by Claire Dubois.";
        let s = json!({"type": "object", "properties": {
            "winery": {"type": "string"}, "booked_by": {"type": "string"}}});
        let pick = |field: &str| strings_for(text, &s, field);
        assert!(pick("booked_by").iter().all(|s| s.starts_with("Claire")));
        assert!(!pick("winery").iter().any(|s| s.starts_with("Claire")));
    }

    #[test]
    fn a_name_before_a_bracketed_label_is_that_field_s() {
        let text = "the match between Ashby Town CC (home) and Kirkham Vale CC (away), at 13:00";
        let s = json!({"type": "object", "properties": {
            "home_team": {"type": "string"}, "away_team": {"type": "string"}}});
        assert_eq!(strings_for(text, &s, "home_team"), ["Ashby Town CC"]);
        assert_eq!(strings_for(text, &s, "away_team"), ["Kirkham Vale CC"]);
        assert!(tagged_names("Li Wei (platform, 3)", &["platform".into()]).is_empty());
        assert!(tagged_names("lost (home)", &["home".into()]).is_empty());
    }

    #[test]
    fn a_deadline_takes_a_date_or_time_and_a_code_field_a_code() {
        let text = "Dear Amira Haddad, please accept the offer by 1 August. Your car VW Golf, \
                    registration KP19 XRT, was seen at 14:07 (incident INC-2291).";
        let s = json!({"type": "object", "properties": {
            "student": {"type": "string"}, "accept_by": {"type": "string"},
            "signed_by": {"type": "string"}, "vehicle_registration": {"type": "string"},
            "incident_id": {"type": "string"}}});
        let deadline = strings_for(text, &s, "accept_by");
        assert!(deadline.contains(&"1 August".to_owned()));
        assert!(
            deadline
                .iter()
                .all(|s| shape::is_date(s) || shape::is_time(s))
        );
        assert!(strings_for(text, &s, "signed_by").contains(&"Amira Haddad".to_owned()));
        assert_eq!(strings_for(text, &s, "vehicle_registration"), ["KP19 XRT"]);
        assert!(strings_for(text, &s, "incident_id")[0].starts_with("INC-2291"));
    }

    #[test]
    fn an_identifier_is_a_whole_code_not_a_short_number() {
        let text = "Deliver to 23 Quarry Hill, Sheffield S10 5TG (order #UK-448120), sizes 3, \
                    18; participant ID 07-0193, account 7702914563";
        let s = json!({"type": "object", "properties": {
            "order_number": {"type": "string"}, "participant_id": {"type": "string"},
            "account_reference": {"type": "string"}}});
        let order = strings_for(text, &s, "order_number");
        assert!(
            order
                .iter()
                .all(|s| s.contains("UK-448120") || s.starts_with("S10 5TG"))
        );
        assert!(strings_for(text, &s, "participant_id").contains(&"07-0193".to_owned()));
        assert!(strings_for(text, &s, "account_reference").contains(&"7702914563".to_owned()));
        assert!(part_of_code("S10 5TG", "5TG") && !part_of_code("S10 5TG,", "S10 5TG"));
    }

    #[test]
    fn a_name_that_holds_the_field_s_noun_is_the_field_s() {
        let text = "Harlow Builders Ltd v. Dimitri Papadakis, before District Judge Amanda \
                    Reeve at Chelmsford County Court on 17 February; shelter: the Elm Street \
                    shelter";
        let s = json!({"type": "object", "properties": {
            "court": {"type": "string"}, "judge": {"type": "string"},
            "shelter": {"type": "string"}}});
        assert_eq!(strings_for(text, &s, "court"), ["Chelmsford County Court"]);
        // `District Judge` ends with the noun but is part of a longer name.
        assert!(names_itself("District Judge", "judge") && partial_name(text, "District Judge"));
        assert!(names_itself("Elm Street shelter", "shelter"));
        assert!(!names_itself("shelter", "shelter") && !names_itself("the shelter", "shelter"));
        assert!(!names_itself("Both households", "household"));
        assert!(!names_itself("Market Manager", "market"));
    }

    #[test]
    fn part_of_a_longer_name_is_not_a_name() {
        let text = "Attorneys: her daughters Claire Hobbs and Joanne Pascoe. Dear Owen, see Mr \
                    Tomasz Zielinski and Dr. Fiona MacLeod.";
        assert!(partial_name(text, "Pascoe"));
        assert!(partial_name(text, "Mr Tomasz"));
        assert!(partial_name(text, "Claire"));
        assert!(partial_name(text, "Dr."));
        assert!(!partial_name(text, "Joanne Pascoe"));
        assert!(!partial_name(text, "Owen"));
        assert!(!partial_name(text, "Fiona MacLeod"));
        assert!(!partial_name(text, "Dr. Fiona MacLeod"));
        assert!(!partial_name(text, "Tomasz Zielinski"));
    }

    #[test]
    fn numbers_take_the_field_s_unit_and_distinct_words() {
        let text = "Penalty: 70 GBP, reduced to 35 GBP if paid within 14 days. Discount 25%.";
        let s = schema(&[
            ("penalty", "integer"),
            ("reduced_penalty", "integer"),
            ("discount_percent", "integer"),
        ]);
        assert_eq!(numbers_for(text, &s, "reduced_penalty"), ["35"]);
        assert_eq!(numbers_for(text, &s, "penalty"), ["70"]);
        assert_eq!(numbers_for(text, &s, "discount_percent"), ["25"]);
        let text = "collect 4 pallets (2,150 kg in total), a 54-year-old driver";
        let s = schema(&[
            ("pallets", "integer"),
            ("total_weight_kg", "number"),
            ("age", "integer"),
        ]);
        assert_eq!(numbers_for(text, &s, "total_weight_kg"), ["2150"]);
        assert_eq!(numbers_for(text, &s, "age"), ["54"]);
        let text = "Events: 100 m backstroke; entry fees of 7.50 GBP per event";
        let s = schema(&[("fee_per_event", "number"), ("events", "integer")]);
        assert_eq!(numbers_for(text, &s, "fee_per_event"), ["7.50"]);
    }

    #[test]
    fn codes_times_and_other_fields_numbers_go_last() {
        let text = "The Orbit X2 mouse weighs 85 grams, leaves at 07:45, 2 left";
        let s = schema(&[("weight_grams", "integer"), ("stock", "integer")]);
        assert_eq!(numbers_for(text, &s, "stock"), ["2"]);
        assert_eq!(
            numbers_for("Porto beat Benfica 3-1", &s, "stock"),
            ["3", "1"]
        );
    }

    #[test]
    fn a_date_has_its_day_a_day_its_weekday_and_no_possessive_is_a_name() {
        let text = "September's rent is due on Friday. The class is in June, on Saturday 6 June, \
                    at Kirkham Vale's ground.";
        let s = json!({"type": "object", "properties": {
            "due_day": {"type": "string"}, "class_date": {"type": "string"},
            "month": {"type": "string"}, "venue": {"type": "string"}}});
        let month = strings_for(text, &s, "month");
        assert!(!month.is_empty() && month.iter().all(|s| shape::names_month(s)));
        assert!(
            strings_for(text, &s, "due_day")
                .iter()
                .all(|s| s.contains("day"))
        );
        let date = strings_for(text, &s, "class_date");
        assert!(date.contains(&"6 June".to_owned()) && date.iter().all(|s| s.contains('6')));
        assert!(
            strings_for(text, &s, "venue")
                .iter()
                .all(|s| !s.ends_with("'s"))
        );
        assert!(shape::names_weekday("Wednesdays") && !shape::names_weekday("September"));
    }

    #[test]
    fn strings_follow_the_field_kind() {
        let text = "Budget review with Priya on Thursday in room 4B, priority urgent, 275.40 GBP";
        let s = json!({"type": "object", "properties": {
            "title": {"type": "string"}, "day": {"type": "string"}, "room": {"type": "string"},
            "attendee": {"type": "string"}, "priority": {"enum": ["low", "urgent"]},
            "amount": {"type": "number"}}});
        let pick = |field: &str| strings_for(text, &s, field);
        assert_eq!(pick("day"), ["Thursday"]);
        assert!(pick("room").iter().all(|s| s.starts_with("4B")));
        assert!(pick("attendee").contains(&"Priya".to_owned()));
        assert!(pick("attendee").iter().all(|s| shape::is_proper(s)));
        let title = pick("title");
        assert!(!title.contains(&"urgent".to_owned()) && !title.contains(&"Thursday".to_owned()));
        assert!(!title.contains(&"275.40".to_owned()));
    }

    #[test]
    fn quantities_are_not_free_strings() {
        let text = "Claim for water damage in the kitchen, 2 rooms, 24 months old. Joined on 1 June, \
                    flat 14.";
        let s = json!({"type": "object", "properties": {
            "damage": {"type": "string"}, "flat": {"type": "string"}, "amount": {"type": "string"},
            "start_date": {"type": "string"}}});
        let pick = |field: &str| strings_for(text, &s, field);
        let damage = pick("damage");
        assert!(damage.iter().any(|s| s == "water damage"), "{damage:?}");
        assert!(
            !damage.iter().any(|s| shape::starts_with_quantity(s)),
            "{damage:?}"
        );
        assert!(pick("flat").contains(&"14".to_owned()));
        assert!(pick("amount").contains(&"2 rooms".to_owned()));
        let quantity = shape::starts_with_quantity;
        assert!(quantity("39 EUR") && quantity("1,250.00") && quantity("33 cm, to Hofweg 4"));
        assert!(!quantity("2 November, estimated at 4,200"));
        assert!(pick("start_date").contains(&"1 June".to_owned()));
        assert!(!quantity("14 Rue de la Paix") && !quantity("2014 Skoda Octavia"));
        assert!(!quantity("4B") && !quantity("ICE 578"));
    }
}
