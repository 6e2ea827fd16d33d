//! Judging one answer: the task's [`Validator`] (rectify-judge, the one judge), told how the
//! model stopped.

use rectify_core::{Diagnostic, Location, Report};
use rectify_judge::{Ending, Validator};
use rectify_provider::FinishReason;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use rectify_judge::{REFUSED, TRUNCATED};

/// How a provider's finish reason ends an answer, for the judge.
pub fn ending(finish: &FinishReason) -> Ending {
    match finish {
        FinishReason::Length => Ending::Truncated,
        FinishReason::Refusal => Ending::Refused,
        _ => Ending::Complete,
    }
}

/// Repairs and checks one answer. A truncated answer (`finish_reason=length`) is always
/// invalid, even when repair could close it.
pub(crate) fn evaluate(judge: &Validator, text: &str, finish: &FinishReason) -> Report {
    judge.judge(text, ending(finish)).into_report()
}

/// What the reason a model stopped says about its answer (the judge's rule, for a caller
/// that judges the text apart): cut off at the token limit (`response.truncated`, an error
/// even when repair could close the answer) or refused (`response.refused`); `None` when it
/// finished.
pub fn finish_problem(finish: &FinishReason, text: &str) -> Option<Diagnostic> {
    ending(finish).problem(text)
}

/// Turns a checked value into the caller's type, taking it; on failure the value comes back
/// with the diagnostics.
pub(crate) trait Accept<T>: Sync {
    fn accept(&self, value: Value) -> Result<T, (Value, Vec<Diagnostic>)>;
}

/// Untyped runs keep the value.
pub(crate) struct AsValue;

impl Accept<Value> for AsValue {
    fn accept(&self, value: Value) -> Result<Value, (Value, Vec<Diagnostic>)> {
        Ok(value)
    }
}

/// Typed runs deserialize; failures become located diagnostics (and feedback).
pub(crate) struct AsType;

impl<T: DeserializeOwned + schemars::JsonSchema + 'static> Accept<T> for AsType {
    fn accept(&self, value: Value) -> Result<T, (Value, Vec<Diagnostic>)> {
        match rectify_check::deserialize_value::<T>(&value) {
            Ok(typed) => Ok(typed),
            Err(err) => {
                let located = rectify_check::check_value_as::<T>(&value).diagnostics;
                if located.iter().any(Diagnostic::is_error) {
                    Err((value, located))
                } else {
                    let d =
                        Diagnostic::error("type.deserialize", Location::root(), err.to_string())
                            .source("type");
                    Err((value, vec![d]))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Task;

    #[test]
    fn repairs_then_checks_then_flags_truncation() {
        let task = Task::new("p")
            .schema(json!({"type": "object", "required": ["a"]}))
            .unwrap();
        let opts = task.judge(rectify_judge::RepairPolicy::Safe);
        let ok = evaluate(&opts, "```json\n{\"a\": 1,}\n```", &FinishReason::Stop);
        assert!(ok.valid, "{ok:?}");
        assert!(!ok.repairs.is_empty());
        let missing = evaluate(&opts, "{\"b\": 1}", &FinishReason::Stop);
        assert_eq!(missing.diagnostics[0].code, "schema.required");
        let cut = evaluate(&opts, "{\"a\": 1}", &FinishReason::Length);
        assert!(!cut.valid);
        assert_eq!(cut.diagnostics.last().unwrap().code, TRUNCATED);
        let none = evaluate(&opts, "no idea", &FinishReason::Stop);
        assert!(none.value.is_none() && !none.valid);
    }

    #[test]
    fn the_schema_guides_repair_only_when_the_plain_value_does_not_fit() {
        let task = Task::new("p")
            .schema(json!({"properties": {"n": {"type": "integer"}}}))
            .unwrap();
        let plan = task.judge(rectify_judge::RepairPolicy::Safe);
        let coerced = evaluate(&plan, r#"{"n": "5"}"#, &FinishReason::Stop);
        assert!(coerced.valid, "{coerced:?}");
        assert_eq!(coerced.value, Some(json!({"n": 5})));
        assert_eq!(coerced.repairs[0].code, "coerce.string_to_number");
        let fits = evaluate(&plan, r#"{"n": 5}"#, &FinishReason::Stop);
        assert!(fits.valid && fits.repairs.is_empty());
    }

    #[test]
    fn typed_acceptance_locates_errors() {
        #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
        struct T {
            #[allow(dead_code)]
            n: u8,
        }
        let got: Result<T, _> = AsType.accept(json!({"n": 300}));
        let (value, errs) = got.unwrap_err();
        assert_eq!(value, json!({"n": 300}));
        assert_eq!(errs[0].location.path, "n");
        let ok: Result<T, _> = AsType.accept(json!({"n": 3}));
        assert!(ok.is_ok());
    }
}
