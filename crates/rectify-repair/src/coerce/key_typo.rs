//! Keys misspelled by a letter or two (`taget` for `target`): renamed, unsafely, to the one
//! property the object left out that the key is close to.

use serde_json::{Map, Value};

use super::enums::fold;

/// The property `key` misspells, if exactly one is close enough: a property of `props` that
/// no key of `written` names, and that the schema needs (it is `required`, or the schema
/// forbids other keys, so the key as written cannot stand). Close enough is one edit
/// (insertion, deletion, substitution or swap of neighbours) after folding case and
/// separators, or two for names of eight letters or more; names of fewer than three letters
/// are never matched.
pub(super) fn misspelled<'p>(
    key: &str,
    props: &'p Map<String, Value>,
    written: &[String],
    schema: &Value,
) -> Option<&'p String> {
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let required = |p: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|k| k.as_str() == Some(p)))
    };
    let folded = fold(key);
    let mut best: Option<(usize, &String)> = None;
    let mut tie = false;
    let open = props
        .keys()
        .filter(|p| closed || required(p))
        .filter(|p| !written.iter().any(|w| w == *p || fold(w) == fold(p)));
    for p in open {
        let target = fold(p);
        let shorter = folded.chars().count().min(target.chars().count());
        let allowed = if shorter >= 8 { 2 } else { 1 };
        let d = strsim::damerau_levenshtein(&folded, &target);
        if shorter < 3 || d == 0 || d > allowed {
            continue;
        }
        match best {
            Some((b, _)) if b < d => {}
            Some((b, _)) if b == d => tie = true,
            _ => {
                best = Some((d, p));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::misspelled;
    use serde_json::{Value, json};

    fn props(schema: &Value) -> &serde_json::Map<String, Value> {
        schema["properties"].as_object().unwrap()
    }

    #[test]
    fn one_close_required_property_left_out_is_the_match() {
        let schema = json!({"properties": {"target": {}, "priority": {}}, "required": ["target", "priority"]});
        let written = vec!["taget".to_owned(), "priority".to_owned()];
        assert_eq!(
            misspelled("taget", props(&schema), &written, &schema).map(String::as_str),
            Some("target")
        );
        // Written already, or optional in an open schema: no match.
        let both = vec!["taget".to_owned(), "target".to_owned()];
        assert_eq!(misspelled("taget", props(&schema), &both, &schema), None);
        let open = json!({"properties": {"target": {}}});
        assert_eq!(misspelled("taget", props(&open), &written, &open), None);
    }

    #[test]
    fn far_short_or_tied_names_do_not_match() {
        let schema = json!({"properties": {"cat": {}, "car": {}, "id": {}, "description": {}}, "additionalProperties": false});
        let written: Vec<String> = Vec::new();
        assert_eq!(misspelled("cap", props(&schema), &written, &schema), None);
        assert_eq!(misspelled("ix", props(&schema), &written, &schema), None);
        assert_eq!(
            misspelled("descrpition", props(&schema), &written, &schema).map(String::as_str),
            Some("description")
        );
        assert_eq!(
            misspelled("summary", props(&schema), &written, &schema),
            None
        );
    }
}
