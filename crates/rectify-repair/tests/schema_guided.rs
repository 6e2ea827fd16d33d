//! Schema-guided repair on generated answers (issue 12, goal 2): a random
//! object schema and a value that fits it, written the way a model gets it wrong but
//! recoverably — a number or boolean as a string, an enum in another spelling, one value
//! where a list is wanted, a key in another case style, an object sent as a JSON string,
//! prose or a fence around the answer, loose syntax. Repair with the schema must give back
//! exactly the value. The rate per kind of mistake is printed
//! (`cargo test -p rectify-repair --test schema_guided -- --nocapture`; `SCHEMA_GUIDED_SHOW=1`
//! prints misses). When it was written, 11 of 13 kinds came back every time; a number with a
//! unit in a string (`"587 EUR"`) and an answer wrapped in one more object
//! (`{"result": {...}}`) never did, and were then fixed (`coerce.text_as_number` on string
//! values, `coerce.unwrap_object`). It is a regression test on mistakes written by the same
//! people as the code, not a measure on data nobody tuned for.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use rectify_repair::{RepairOptions, repair};
use serde_json::{Map, Value, json};

/// A property's kind, with what its value is drawn from.
#[derive(Clone, Debug)]
enum Kind {
    Str(String),
    Int(i64),
    Num(f64),
    Bool(bool),
    /// Allowed values and the chosen one.
    Enum(Vec<&'static str>, usize),
    Tags(Vec<String>),
}

const ENUMS: &[&[&str]] = &[
    &["todo", "in_progress", "done"],
    &["LOW", "MEDIUM", "HIGH"],
    &["approve", "reject", "needs_changes"],
    &["north", "south", "east", "west"],
];

const NAMES: &[&str] = &[
    "title",
    "due_date",
    "owner_name",
    "priority_level",
    "is_blocking",
    "estimate_hours",
    "retry_count",
    "status",
    "tags",
    "cost_eur",
    "summary_text",
    "page_count",
];

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        "[A-Z][a-z]{2,8}( [a-z]{2,8}){0,3}".prop_map(Kind::Str),
        (-5000i64..5000).prop_map(Kind::Int),
        (-500.0f64..500.0).prop_map(|x| Kind::Num((x * 100.0).round() / 100.0)),
        any::<bool>().prop_map(Kind::Bool),
        (0..ENUMS.len(), 0usize..4).prop_map(|(e, i)| {
            let values = ENUMS[e].to_vec();
            let i = i % values.len();
            Kind::Enum(values, i)
        }),
        prop::collection::vec("[a-z]{3,8}", 1..4).prop_map(Kind::Tags),
    ]
}

/// One mistake a model makes, applied to one property (or to the whole answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mistake {
    NumberAsString,
    BooleanAsWord,
    EnumSpelling,
    OneForList,
    KeyCase,
    ObjectAsString,
    Prose,
    LooseSyntax,
    UnitInNumber,
    KeySpaces,
    Wrapped,
    ExtraProperty,
    Truncated,
}

const MISTAKES: [Mistake; 13] = [
    Mistake::UnitInNumber,
    Mistake::KeySpaces,
    Mistake::Wrapped,
    Mistake::ExtraProperty,
    Mistake::Truncated,
    Mistake::NumberAsString,
    Mistake::BooleanAsWord,
    Mistake::EnumSpelling,
    Mistake::OneForList,
    Mistake::KeyCase,
    Mistake::ObjectAsString,
    Mistake::Prose,
    Mistake::LooseSyntax,
];

fn schema_of(kind: &Kind) -> Value {
    match kind {
        Kind::Str(_) => json!({"type": "string"}),
        Kind::Int(_) => json!({"type": "integer"}),
        Kind::Num(_) => json!({"type": "number"}),
        Kind::Bool(_) => json!({"type": "boolean"}),
        Kind::Enum(values, _) => json!({"type": "string", "enum": values}),
        Kind::Tags(_) => json!({"type": "array", "items": {"type": "string"}}),
    }
}

fn value_of(kind: &Kind) -> Value {
    match kind {
        Kind::Str(s) => json!(s),
        Kind::Int(n) => json!(n),
        Kind::Num(x) => json!(x),
        Kind::Bool(b) => json!(b),
        Kind::Enum(values, i) => json!(values[*i]),
        Kind::Tags(t) => json!(t),
    }
}

/// `snake_case` → `camelCase`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Another spelling of an enum value: case changed, `_` as a space.
fn respell(value: &str) -> String {
    let spaced = value.replace('_', " ");
    if value.chars().any(char::is_lowercase) {
        let mut c = spaced.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    } else {
        spaced.to_lowercase()
    }
}

/// The case: the schema, the value, and the answer text with `mistake` in it; `None` when the
/// mistake has nothing to apply to in this object.
fn case(props: &[(usize, Kind)], mistake: Mistake, pick: usize) -> Option<(Value, Value, String)> {
    let mut schema_props = Map::new();
    let mut value = Map::new();
    for (name, kind) in props {
        schema_props.insert(NAMES[*name].to_owned(), schema_of(kind));
        value.insert(NAMES[*name].to_owned(), value_of(kind));
    }
    let required: Vec<&String> = schema_props.keys().collect();
    let schema = json!({
        "type": "object",
        "properties": schema_props,
        "required": required,
        "additionalProperties": false,
    });
    let expected = Value::Object(value.clone());
    let fits = |k: &Kind| match mistake {
        Mistake::NumberAsString => matches!(k, Kind::Int(_) | Kind::Num(_)),
        Mistake::BooleanAsWord => matches!(k, Kind::Bool(_)),
        Mistake::EnumSpelling => matches!(k, Kind::Enum(..)),
        Mistake::OneForList => matches!(k, Kind::Tags(t) if t.len() == 1),
        Mistake::KeyCase | Mistake::KeySpaces => props.iter().any(|(n, _)| NAMES[*n].contains('_')),
        Mistake::UnitInNumber => {
            matches!(k, Kind::Int(n) if *n > 0) || matches!(k, Kind::Num(x) if *x > 0.0)
        }
        _ => true,
    };
    let candidates: Vec<&(usize, Kind)> = props.iter().filter(|(_, k)| fits(k)).collect();
    let (name, kind) = *candidates.get(pick % candidates.len().max(1))?;
    let key = NAMES[*name];
    let mut written = value.clone();
    let text = match mistake {
        Mistake::NumberAsString => {
            written.insert(key.to_owned(), json!(value_of(kind).to_string()));
            Value::Object(written).to_string()
        }
        Mistake::BooleanAsWord => {
            let Kind::Bool(b) = kind else { return None };
            written.insert(key.to_owned(), json!(if *b { "yes" } else { "no" }));
            Value::Object(written).to_string()
        }
        Mistake::EnumSpelling => {
            let Kind::Enum(values, i) = kind else {
                return None;
            };
            written.insert(key.to_owned(), json!(respell(values[*i])));
            Value::Object(written).to_string()
        }
        Mistake::OneForList => {
            let Kind::Tags(t) = kind else { return None };
            written.insert(key.to_owned(), json!(t[0]));
            Value::Object(written).to_string()
        }
        Mistake::KeyCase => {
            let renamed: Map<String, Value> =
                value.iter().map(|(k, v)| (camel(k), v.clone())).collect();
            Value::Object(renamed).to_string()
        }
        Mistake::ObjectAsString => json!(expected.to_string()).to_string(),
        Mistake::UnitInNumber => {
            let unit = if key.ends_with("eur") {
                "EUR"
            } else if key.contains("hours") {
                "h"
            } else {
                "units"
            };
            written.insert(key.to_owned(), json!(format!("{} {unit}", value_of(kind))));
            Value::Object(written).to_string()
        }
        Mistake::KeySpaces => {
            let renamed: Map<String, Value> =
                value.iter().map(|(k, v)| (respell(k), v.clone())).collect();
            Value::Object(renamed).to_string()
        }
        Mistake::Wrapped => json!({"result": expected}).to_string(),
        Mistake::ExtraProperty => {
            written.insert("note".to_owned(), json!("generated by the model"));
            Value::Object(written).to_string()
        }
        Mistake::Truncated => {
            let full = serde_json::to_string_pretty(&expected).unwrap();
            full.trim_end().trim_end_matches('}').to_owned()
        }
        Mistake::Prose => format!(
            "Here is the record you asked for:\n\n```json\n{}\n```\n\nLet me know if anything is missing.",
            serde_json::to_string_pretty(&expected).unwrap()
        ),
        Mistake::LooseSyntax => {
            let body: Vec<String> = value
                .iter()
                .map(|(k, v)| format!("{k}: {}", v.to_string().replace('"', "'")))
                .collect();
            format!("{{{},}}", body.join(", "))
        }
    };
    Some((schema, expected, text))
}

fn object() -> impl Strategy<Value = Vec<(usize, Kind)>> {
    prop::collection::btree_map(0..NAMES.len(), kind(), 2..6).prop_map(|m| m.into_iter().collect())
}

/// Equal as JSON values, numbers compared by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Cases per kind of mistake; every case must come back.
const CASES: usize = 300;

#[test]
fn schema_guided_repair_gives_back_the_value() {
    let mut runner = TestRunner::new(Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(12),
        ..Config::default()
    });
    let strategy = (object(), any::<usize>());
    let options = RepairOptions::default().with_unsafe(true);
    let (mut total, mut right) = (0, 0);
    let mut misses = Vec::new();
    for mistake in MISTAKES {
        let (mut n, mut ok) = (0, 0);
        while n < CASES {
            let (props, pick) = strategy.new_tree(&mut runner).unwrap().current();
            let Some((schema, expected, text)) = case(&props, mistake, pick) else {
                continue;
            };
            n += 1;
            let out = repair(&text, &options.clone().with_schema(schema));
            if out.value.as_ref().is_some_and(|v| same(v, &expected)) {
                ok += 1;
            } else if misses.len() < 12 && std::env::var_os("SCHEMA_GUIDED_SHOW").is_some() {
                misses.push(format!("{mistake:?}: {text}\n  -> {:?}", out.value));
            }
        }
        println!("{mistake:?}: {ok}/{n}");
        total += n;
        right += ok;
    }
    println!(
        "schema-guided: {right}/{total} ({:.1}%)",
        100.0 * right as f64 / total as f64
    );
    for m in &misses {
        println!("{m}");
    }
    assert_eq!(right, total, "some answers did not come back");
}

/// A one-member wrapper the schema allows is a valid answer and stays as it is.
#[test]
fn a_wrapper_the_schema_allows_is_kept() {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let text = r#"{"meta": {"name": "x"}}"#;
    let out = repair(
        text,
        &RepairOptions::default()
            .with_unsafe(true)
            .with_schema(schema),
    );
    assert_eq!(out.value, Some(json!({"meta": {"name": "x"}})));
    assert!(out.repairs.is_empty(), "{:?}", out.repairs);
}
