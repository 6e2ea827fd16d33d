//! The schema of a [`RepairOptions`](crate::RepairOptions), compiled once into a
//! `jsonschema::Validator` and shared by the options' clones, so that repairing many texts
//! with the same options (every attempt of a loop) does not compile it again.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

/// A schema and its validator.
type Entry = (Value, Arc<jsonschema::Validator>);

/// The last schema compiled for some options and their clones.
#[derive(Clone, Default)]
pub(crate) struct Compiled(Arc<Mutex<Option<Entry>>>);

impl Compiled {
    /// The validator for `schema`: the kept one when it was compiled from an equal schema
    /// (the options' schema may have been replaced since), otherwise compiled now and kept.
    pub fn validator(&self, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((source, validator)) = kept.as_ref()
            && source == schema
        {
            return Ok(Arc::clone(validator));
        }
        let validator = Arc::new(jsonschema::validator_for(schema).map_err(|e| e.to_string())?);
        *kept = Some((schema.clone(), Arc::clone(&validator)));
        Ok(validator)
    }
}

/// A cache is not part of what the options mean.
impl PartialEq for Compiled {
    fn eq(&self, _: &Compiled) -> bool {
        true
    }
}

impl fmt::Debug for Compiled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Compiled")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_is_compiled_once_and_again_when_it_changes() {
        let compiled = Compiled::default();
        let a = json!({"type": "integer"});
        let first = compiled.validator(&a).unwrap_or_else(|e| panic!("{e}"));
        let again = compiled.validator(&a).unwrap_or_else(|e| panic!("{e}"));
        assert!(Arc::ptr_eq(&first, &again));
        let b = json!({"type": "string"});
        let other = compiled.validator(&b).unwrap_or_else(|e| panic!("{e}"));
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(other.is_valid(&json!("x")) && !other.is_valid(&json!(1)));
        assert!(compiled.validator(&json!({"type": 12})).is_err());
    }
}
