//! Objects: keys that differ from the schema's only in case or `snake_case`/`camelCase`
//! are renamed, forbidden extra properties dropped (unsafe), optional properties whose
//! `null` the schema does not allow dropped, and every property coerced against its own
//! schema (`properties`, `patternProperties`, `additionalProperties`).

use rectify_core::push_pointer;
use serde_json::{Map, Value};

use super::Coercer;
use super::enums::fold;
use super::key_typo::misspelled;
use super::schema::{fits, names_null, resolve, types};
use crate::rules::RepairRule;

/// Where a property stands in its object's schema.
enum Slot<'s> {
    /// Allowed, with its schema if it has one.
    Allowed(Option<&'s Value>),
    /// Forbidden by `additionalProperties: false`.
    Forbidden,
}

impl Coercer<'_> {
    pub(super) fn object(
        &mut self,
        map: Map<String, Value>,
        schema: &Value,
        pointer: &str,
    ) -> Value {
        let props = schema.get("properties").and_then(Value::as_object);
        // The keys as written, for the misspelled ones: only when one is no property.
        let written: Vec<String> = match props {
            Some(props) if map.keys().any(|k| !props.contains_key(k)) => {
                map.keys().cloned().collect()
            }
            _ => Vec::new(),
        };
        let mut out = Map::new();
        for (key, item) in map {
            let key = self.match_key(key, props, &out, schema, pointer, &written);
            let mut child = pointer.to_owned();
            push_pointer(&mut child, &key);
            let Slot::Allowed(sub) = Self::property_schema(schema, &key) else {
                self.record(RepairRule::DropAdditional, &child, &item, &Value::Null);
                continue;
            };
            if self.null_to_drop(&item, sub, schema, &key, &child) {
                self.record(RepairRule::DropNull, &child, &item, &Value::Null);
                continue;
            }
            let item = match sub {
                Some(sub) => self.coerce(item, sub, &child),
                None => item,
            };
            out.insert(key, item);
        }
        if self.allow_unsafe {
            self.fill_required(&mut out, schema, pointer);
        }
        Value::Object(out)
    }

    /// Adds as empty each required property the object left out: `null` where its schema
    /// names `null` among its values (an optional field written as required and nullable, as
    /// strict structured outputs want), else `[]` where it wants an array (a list the model
    /// had nothing for). Unsafe: the model did not say it. A `default` is not used, since
    /// `required` says the value must be written. Tried only with unsafe repairs allowed,
    /// since otherwise the plain "missing property" tells the model more.
    fn fill_required(&mut self, out: &mut Map<String, Value>, schema: &Value, pointer: &str) {
        let Some(required) = schema.get("required").and_then(Value::as_array) else {
            return;
        };
        for key in required.iter().filter_map(Value::as_str) {
            if out.contains_key(key) {
                continue;
            }
            let Slot::Allowed(Some(sub)) = Self::property_schema(schema, key) else {
                continue;
            };
            let sub = resolve(self.root, sub);
            let may_be_empty = sub.get("minItems").and_then(Value::as_f64).unwrap_or(0.0) <= 0.0;
            let empty = if names_null(self.root, sub, 0) {
                Value::Null
            } else if types(sub) == ["array"] && may_be_empty {
                Value::Array(Vec::new())
            } else {
                continue;
            };
            let mut child = pointer.to_owned();
            push_pointer(&mut child, key);
            self.record_text(RepairRule::MissingAsEmpty, &child, String::new(), &empty);
            out.insert(key.to_owned(), empty);
        }
    }

    /// Whether `item` is a `null` the schema does not allow for the optional property `key`
    /// (a model's way of writing "unknown"): dropping the property says the same and fits.
    /// A value missing from the text is left to [`Coercer::coerce`] (a schema default).
    fn null_to_drop(
        &self,
        item: &Value,
        sub: Option<&Value>,
        schema: &Value,
        key: &str,
        pointer: &str,
    ) -> bool {
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|k| k.as_str() == Some(key)));
        item.is_null()
            && !required
            && !self.missing.contains(pointer)
            && sub.is_some_and(|s| !fits(self.root, s, item, 0))
    }

    /// The schema of property `key`, or whether it is forbidden.
    fn property_schema<'s>(schema: &'s Value, key: &str) -> Slot<'s> {
        if let Some(s) = schema.get("properties").and_then(|p| p.get(key)) {
            return Slot::Allowed(Some(s));
        }
        if let Some(patterns) = schema.get("patternProperties").and_then(Value::as_object) {
            let hit = patterns
                .iter()
                .find(|(p, _)| regex::Regex::new(p).is_ok_and(|re| re.is_match(key)));
            if let Some((_, s)) = hit {
                return Slot::Allowed(Some(s));
            }
        }
        match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => Slot::Forbidden,
            Some(s @ Value::Object(_)) => Slot::Allowed(Some(s)),
            _ => Slot::Allowed(None),
        }
    }

    /// Renames `key` to the one schema property it matches after folding, if it is not a
    /// property itself and the target is not taken.
    fn match_key(
        &mut self,
        key: String,
        props: Option<&Map<String, Value>>,
        taken: &Map<String, Value>,
        schema: &Value,
        pointer: &str,
        written: &[String],
    ) -> String {
        let Some(props) = props else { return key };
        let patterned = schema.get("patternProperties").is_some();
        if props.contains_key(&key) || patterned {
            return key;
        }
        let folded = fold(&key);
        let hits: Vec<&String> = props.keys().filter(|p| fold(p) == folded).collect();
        match hits.as_slice() {
            [one] if !taken.contains_key(one.as_str()) => {
                let mut at = pointer.to_owned();
                push_pointer(&mut at, &key);
                let target = (*one).clone();
                self.record(
                    RepairRule::KeyMatch,
                    &at,
                    &Value::String(key),
                    &Value::String(target.clone()),
                );
                target
            }
            [] => self.misspelled_key(key, props, taken, schema, pointer, written),
            _ => key,
        }
    }

    /// Renames `key` to the property it misspells ([`key_typo::misspelled`]), unsafely.
    fn misspelled_key(
        &mut self,
        key: String,
        props: &Map<String, Value>,
        taken: &Map<String, Value>,
        schema: &Value,
        pointer: &str,
        written: &[String],
    ) -> String {
        let Some(target) = misspelled(&key, props, written, schema) else {
            return key;
        };
        if taken.contains_key(target.as_str()) {
            return key;
        }
        let mut at = pointer.to_owned();
        push_pointer(&mut at, &key);
        let target = target.clone();
        self.record(
            RepairRule::KeyTypo,
            &at,
            &Value::String(key),
            &Value::String(target.clone()),
        );
        target
    }
}
