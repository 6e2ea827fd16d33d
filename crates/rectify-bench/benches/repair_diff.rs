//! The differential run against jsonrepair-rs (issue 12, item 11): generated valid JSON
//! documents broken by one random edit of the kinds models make, repaired by both tools;
//! the values are compared. `repair_peers -- diff N [SEED]` prints the agreement rate, per
//! kind of edit, with the first disagreements of each kind.

use std::collections::BTreeMap;

use rectify_repair::{RepairOptions, repair};
use serde_json::{Map, Value};

/// A small deterministic generator (xorshift64*): the run is the same for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "id",
    "name",
    "title",
    "status",
    "tags",
    "count",
    "price",
    "done",
    "note",
    "owner",
    "items",
    "Ada",
    "hello world",
    "in progress",
    "x",
    "São Paulo",
    "a, b",
    "it's",
    "50%",
    "path/to",
];

fn value(rng: &mut Rng, depth: usize) -> Value {
    // Documents are containers; scalars are their leaves.
    let pick = match depth {
        0 => 5 + rng.below(3),
        1..=2 => rng.below(8),
        _ => rng.below(5),
    };
    match pick {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => Value::from(i64::try_from(rng.below(100_000)).unwrap_or(0) - 500),
        3 => Value::from((rng.below(10_000) as f64) / 8.0),
        4 => Value::String(WORDS[rng.below(WORDS.len())].to_owned()),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..=rng.below(4) {
                map.insert(WORDS[rng.below(11)].to_owned(), value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// The kinds of edit, by name.
const EDITS: &[&str] = &[
    "delete a quote",
    "delete a colon",
    "delete a comma",
    "delete a bracket",
    "cut the end",
    "insert a comment",
    "single quotes",
    "trailing comma",
    "python literal",
    "unquote a key",
];

/// `text` with the edit `kind` applied at a random place; `None` when it does not apply.
fn edit(rng: &mut Rng, text: &str, kind: usize) -> Option<String> {
    let at = |rng: &mut Rng, class: &dyn Fn(char) -> bool| {
        let places: Vec<usize> = text
            .char_indices()
            .filter(|(_, c)| class(*c))
            .map(|(i, _)| i)
            .collect();
        (!places.is_empty()).then(|| places[rng.below(places.len())])
    };
    let delete = |i: usize| format!("{}{}", &text[..i], &text[i + 1..]);
    match kind {
        0 => at(rng, &|c| c == '"').map(delete),
        1 => at(rng, &|c| c == ':').map(delete),
        2 => at(rng, &|c| c == ',').map(delete),
        3 => at(rng, &|c| matches!(c, '{' | '}' | '[' | ']')).map(delete),
        4 => {
            let cut = text.len() * (50 + rng.below(50)) / 100;
            let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i))?;
            Some(text[..cut].to_owned())
        }
        5 => {
            at(rng, &|c| c == ',').map(|i| format!("{} /* note */{}", &text[..=i], &text[i + 1..]))
        }
        6 => Some(text.replace('"', "'")),
        7 => at(rng, &|c| matches!(c, '}' | ']')).map(|i| format!("{},{}", &text[..i], &text[i..])),
        8 => (text.contains("true") || text.contains("null"))
            .then(|| text.replace("true", "True").replace("null", "None")),
        _ => {
            let i = text.find("\":")?;
            let open = text[..i].rfind('"')?;
            Some(format!(
                "{}{}{}",
                &text[..open],
                &text[open + 1..i],
                &text[i + 1..]
            ))
        }
    }
}

/// Disagreements shown per kind of edit.
const SHOWN: usize = 6;

/// Runs `n` cases from `seed` and prints the agreement, per kind of edit.
pub fn run(n: usize, seed: u64) {
    let mut rng = Rng(seed.max(1));
    let options = RepairOptions::default().with_unsafe(true);
    let mut per_kind: BTreeMap<&str, (usize, usize, Vec<String>)> = BTreeMap::new();
    // Cases where each tool gives back the document as it was before the edit.
    let (mut ours_original, mut theirs_original) = (0, 0);
    let mut done = 0;
    while done < n {
        let doc = value(&mut rng, 0);
        let valid = if rng.below(2) == 0 {
            doc.to_string()
        } else {
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        };
        let kind = rng.below(EDITS.len());
        let Some(text) = edit(&mut rng, &valid, kind) else {
            continue;
        };
        done += 1;
        let ours = repair(&text, &options).value;
        let theirs = jsonrepair_rs::jsonrepair(&text)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        let original = serde_json::from_str::<Value>(&valid).ok();
        ours_original += usize::from(ours == original);
        theirs_original += usize::from(theirs == original);
        let entry = per_kind.entry(EDITS[kind]).or_default();
        entry.0 += 1;
        if ours == theirs {
            entry.1 += 1;
        } else if entry.2.len() < SHOWN {
            let show = |v: &Option<Value>| v.as_ref().map_or("-".to_owned(), Value::to_string);
            entry.2.push(format!(
                "{text:?}\n      rectify {}\n      jsonrepair-rs {}",
                show(&ours),
                show(&theirs)
            ));
        }
    }
    let (all, agree) = per_kind
        .values()
        .fold((0, 0), |(a, b), e| (a + e.0, b + e.1));
    for (kind, (total, same, examples)) in &per_kind {
        println!(
            "{kind:18} {same:6} / {total:6} agree ({:.1}%)",
            100.0 * *same as f64 / *total as f64
        );
        for e in examples {
            println!("    {e}");
        }
    }
    let pct = |k: usize| 100.0 * k as f64 / all as f64;
    println!("all {agree} / {all} agree ({:.1}%)", pct(agree));
    println!(
        "the document before the edit: rectify {ours_original} ({:.1}%), jsonrepair-rs {theirs_original} ({:.1}%)",
        pct(ours_original),
        pct(theirs_original)
    );
}
