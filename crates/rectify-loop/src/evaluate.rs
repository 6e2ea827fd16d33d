//! Judging one answer: extraction and repair, then every check of the task.

use rectify_core::{Diagnostic, Location, Report};
use rectify_provider::FinishReason;
use rectify_repair::{RepairOptions, Repaired, repair};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Task;

/// The stable code of the diagnostic added when an answer was cut off by the token limit.
pub const TRUNCATED: &str = "response.truncated";

/// The stable code of the diagnostic added when the model refused to answer (re-asked once,
/// with this diagnostic as feedback; a second refusal ends the run as refused).
pub const REFUSED: &str = "response.refused";

/// Repair's own note that a coerced value still does not fit the schema.
const SCHEMA_MISMATCH: &str = "repair.schema_mismatch";

/// How answers are repaired: without the schema first (cheap), and with it, for coercion
/// and the choice between candidates, only when the plain result does not fit the schema.
#[derive(Debug)]
pub(crate) struct RepairPlan {
    plain: RepairOptions,
    guided: Option<RepairOptions>,
}

impl RepairPlan {
    pub(crate) fn new(task: &Task, allow_unsafe: bool) -> RepairPlan {
        let plain = RepairOptions::default().with_unsafe(allow_unsafe);
        let guided = task
            .schema_value
            .as_ref()
            .map(|schema| plain.clone().with_schema(schema.clone()));
        RepairPlan { plain, guided }
    }

    fn repair(&self, task: &Task, text: &str) -> Repaired {
        let repaired = repair(text, &self.plain);
        match (&self.guided, &task.schema) {
            (Some(guided), Some(schema))
                if !repaired.value.as_ref().is_some_and(|v| schema.is_valid(v)) =>
            {
                repair(text, guided)
            }
            _ => repaired,
        }
    }
}

/// Repairs and checks one answer. A truncated answer (`finish_reason=length`) is always
/// invalid, even when repair could close it.
pub(crate) fn evaluate(
    task: &Task,
    plan: &RepairPlan,
    text: &str,
    finish: &FinishReason,
) -> Report {
    let repaired = plan.repair(task, text);
    let mut diagnostics = repaired.diagnostics;
    if task.schema.is_some() {
        // The schema check below reports the same problems, with better messages.
        diagnostics.retain(|d| d.code != SCHEMA_MISMATCH);
    }
    if let Some(value) = &repaired.value {
        diagnostics.extend(task.check_value(value));
    }
    match finish_problem(finish, text) {
        Some(d) if d.code == REFUSED => diagnostics.insert(0, d),
        Some(d) => diagnostics.push(d),
        None => {}
    }
    Report::new(repaired.value, diagnostics, repaired.repairs)
}

/// What the reason a model stopped says about its answer, for every caller that judges one
/// (the loop, and each workflow step): cut off at the token limit (`response.truncated`, an
/// error even when repair could close the answer) or refused (`response.refused`); `None`
/// when it finished.
pub fn finish_problem(finish: &FinishReason, text: &str) -> Option<Diagnostic> {
    match finish {
        FinishReason::Length => Some(truncated()),
        FinishReason::Refusal => Some(refused(text)),
        _ => None,
    }
}

fn refused(text: &str) -> Diagnostic {
    let d = Diagnostic::error(REFUSED, Location::root(), "the model refused to answer")
        .expected("an answer to the request")
        .source("provider");
    if text.trim().is_empty() {
        d
    } else {
        d.received(rectify_core::truncate_received(&Value::String(
            text.trim().to_owned(),
        )))
    }
}

fn truncated() -> Diagnostic {
    Diagnostic::error(
        TRUNCATED,
        Location::root(),
        "the answer was cut off at the output token limit",
    )
    .expected("a complete answer")
    .source("provider")
}

/// Turns a checked value into the caller's type, taking it; on failure the value comes back
/// with the diagnostics.
pub(crate) trait Accept<T> {
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

    #[test]
    fn repairs_then_checks_then_flags_truncation() {
        let task = Task::new("p")
            .schema(json!({"type": "object", "required": ["a"]}))
            .unwrap();
        let opts = RepairPlan::new(&task, false);
        let ok = evaluate(
            &task,
            &opts,
            "```json\n{\"a\": 1,}\n```",
            &FinishReason::Stop,
        );
        assert!(ok.valid, "{ok:?}");
        assert!(!ok.repairs.is_empty());
        let missing = evaluate(&task, &opts, "{\"b\": 1}", &FinishReason::Stop);
        assert_eq!(missing.diagnostics[0].code, "schema.required");
        let cut = evaluate(&task, &opts, "{\"a\": 1}", &FinishReason::Length);
        assert!(!cut.valid);
        assert_eq!(cut.diagnostics.last().unwrap().code, TRUNCATED);
        let none = evaluate(&task, &opts, "no idea", &FinishReason::Stop);
        assert!(none.value.is_none() && !none.valid);
    }

    #[test]
    fn the_schema_guides_repair_only_when_the_plain_value_does_not_fit() {
        let task = Task::new("p")
            .schema(json!({"properties": {"n": {"type": "integer"}}}))
            .unwrap();
        let plan = RepairPlan::new(&task, false);
        let coerced = evaluate(&task, &plan, r#"{"n": "5"}"#, &FinishReason::Stop);
        assert!(coerced.valid, "{coerced:?}");
        assert_eq!(coerced.value, Some(json!({"n": 5})));
        assert_eq!(coerced.repairs[0].code, "coerce.string_to_number");
        let fits = evaluate(&task, &plan, r#"{"n": 5}"#, &FinishReason::Stop);
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
