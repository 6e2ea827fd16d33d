//! One judge for every answer and every output (docs/architecture.md, "What is decided
//! where"): read the text with its format, repair it deterministically when reading or
//! checking fails (schema-guided, recorded repair by repair), check it with its schemas,
//! rules, references and function checks, and say what the way the model stopped means
//! (cut off at the token limit or refused: an error even when repair could close the text).
//!
//! `rectify check`, the retry loop behind `rectify ask` and every workflow step judge through
//! a [`Validator`], compiled once and reused, like the jsonschema crate's `validator_for`;
//! [`validate`] is the one-shot form, like its `is_valid`.
//!
//! ```
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "required": ["n"],
//!                     "properties": {"n": {"type": "integer"}}});
//! let judged = rectify_judge::validate("Sure: ```json\n{\"n\": \"5\",}\n```", &schema).unwrap();
//! assert!(judged.is_valid());
//! assert_eq!(judged.value, Some(json!({"n": 5})));
//! assert_eq!(judged.repairs.len(), 3); // the fence, the trailing comma, "5" -> 5
//! ```

mod ending;
mod judge;
mod judgement;
mod validator;

pub use ending::{Ending, REFUSED, TRUNCATED};
pub use judgement::Judgement;
pub use validator::{Reading, RepairPolicy, Schema, Validator, ValidatorBuilder, ValueCheck};

use rectify_check::ConfigError;
use serde_json::Value;

/// Judges one answer against `schema` with the default policy (safe repairs, the value found
/// in the text): the one-shot form of [`Validator`]. `Err` only when the schema is not a
/// valid JSON Schema; an invalid answer is a [`Judgement`] with errors.
pub fn validate(text: &str, schema: &Value) -> Result<Judgement, ConfigError> {
    Ok(Validator::for_schema(schema)?.validate(text))
}
