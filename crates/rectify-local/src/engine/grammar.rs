//! Compiles a request's JSON Schema into an llguidance matcher.
//!
//! The schema is compiled with compact separators and no free whitespace (a small model left
//! free whitespace can loop on newlines until the token limit), leniently: keywords the grammar
//! engine cannot enforce are ignored with a warning, and the loop still checks them afterwards.
//! A schema that does not compile at all falls back to "any JSON value", with a warning.

use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};
use serde_json::{Value, json};

/// A matcher ready to constrain generation (`None` if even "any JSON" failed to compile), and
/// what the compiler had to say.
pub(crate) struct Constraint {
    pub matcher: Option<Matcher>,
    pub warnings: Vec<String>,
}

/// Builds the matcher for `schema` (or any JSON value when `schema` is `None`).
pub(crate) fn constraint_for(factory: &ParserFactory, schema: Option<&Value>) -> Constraint {
    let schema = schema.cloned().unwrap_or_else(|| json!({}));
    match compile(factory, with_options(schema)) {
        Ok(matcher) => finish(matcher, Vec::new()),
        Err(error) => {
            let warning = format!("schema not enforced by the grammar, any JSON allowed: {error}");
            match compile(factory, with_options(json!({}))) {
                Ok(matcher) => finish(matcher, vec![warning]),
                Err(second) => Constraint {
                    matcher: None,
                    warnings: vec![warning, format!("no grammar at all: {second}")],
                },
            }
        }
    }
}

fn finish(mut matcher: Matcher, mut warnings: Vec<String>) -> Constraint {
    warnings.extend(matcher.grammar_warnings());
    Constraint {
        matcher: Some(matcher),
        warnings,
    }
}

fn compile(factory: &ParserFactory, schema: Value) -> Result<Matcher, String> {
    compile_grammar(factory, TopLevelGrammar::from_json_schema(schema))
}

fn compile_grammar(factory: &ParserFactory, grammar: TopLevelGrammar) -> Result<Matcher, String> {
    let parser = factory.create_parser(grammar).map_err(|e| e.to_string())?;
    let matcher = Matcher::new(Ok(parser));
    match matcher.get_error() {
        Some(error) => Err(error),
        None => Ok(matcher),
    }
}

/// Adds the compile options unless the schema brings its own `x-guidance`.
fn with_options(schema: Value) -> Value {
    let mut schema = match schema {
        Value::Object(obj) => Value::Object(obj),
        Value::Bool(true) => json!({}),
        other => other,
    };
    if let Some(obj) = schema.as_object_mut() {
        obj.entry("x-guidance").or_insert_with(|| {
            json!({
                "whitespace_flexible": false,
                "item_separator": ",",
                "key_separator": ":",
                "lenient": true,
            })
        });
    }
    schema
}
