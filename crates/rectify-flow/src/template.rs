//! Templates (minijinja): `{{ inputs.feature }}`, `{{ run.id }}`, `{{ steps.spec.output }}`,
//! `{{ item.id }}`. Names are checked when the workflow is loaded; rendering is strict, so a
//! value missing at run time is an error, never an empty string.

use std::collections::BTreeSet;

use minijinja::{Environment, UndefinedBehavior};

/// The variables a template may name, by root.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Declared inputs.
    pub inputs: BTreeSet<String>,
    /// Steps whose output this template may read (the step's transitive `needs`).
    pub steps: BTreeSet<String>,
    /// Whether `item` is defined (inside a `foreach` step).
    pub item: bool,
}

/// Renders and checks templates.
#[derive(Debug)]
pub struct Templates {
    env: Environment<'static>,
}

impl Default for Templates {
    fn default() -> Self {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // Prompts and paths are not HTML.
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_keep_trailing_newline(true);
        Templates { env }
    }
}

impl Templates {
    /// Renders `source` with `context`.
    pub fn render(&self, source: &str, context: &serde_json::Value) -> Result<String, String> {
        if !source.contains("{{") && !source.contains("{%") {
            return Ok(source.to_owned());
        }
        self.env
            .render_str(source, to_template(context))
            .map_err(|e| describe(&e))
    }

    /// Problems with the names `source` uses, or its syntax; empty when it is fine.
    pub fn check(&self, source: &str, scope: &Scope) -> Vec<String> {
        if !source.contains("{{") && !source.contains("{%") {
            return Vec::new();
        }
        let template = match self.env.template_from_str(source) {
            Ok(t) => t,
            Err(e) => return vec![format!("invalid template: {}", describe(&e))],
        };
        let mut problems = Vec::new();
        let mut names: Vec<String> = template.undeclared_variables(true).into_iter().collect();
        names.sort();
        for name in names {
            if let Some(problem) = unknown(&name, scope) {
                problems.push(problem);
            }
        }
        problems
    }
}

/// The context as template values. Numbers are converted by value: with serde_json's
/// `arbitrary_precision` (on in this workspace) a `Number` serializes as a private map, which
/// a template would print as `{"$serde_json::private::Number": "3"}`.
fn to_template(value: &serde_json::Value) -> minijinja::Value {
    use serde_json::Value as J;
    match value {
        J::Null => minijinja::Value::from(()),
        J::Bool(b) => minijinja::Value::from(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                minijinja::Value::from(i)
            } else if let Some(u) = n.as_u64() {
                minijinja::Value::from(u)
            } else if let Some(f) = n.as_f64() {
                minijinja::Value::from(f)
            } else {
                minijinja::Value::from(n.to_string())
            }
        }
        J::String(s) => minijinja::Value::from(s.as_str()),
        J::Array(items) => items.iter().map(to_template).collect(),
        J::Object(map) => map
            .iter()
            .map(|(k, v)| (k.as_str(), to_template(v)))
            .collect(),
    }
}

fn describe(error: &minijinja::Error) -> String {
    match error.detail() {
        Some(detail) => format!("{} ({detail})", error.kind()),
        None => error.to_string(),
    }
}

/// Why `name` (`inputs.x`, `steps.plan.output`, `item.id`, ...) is not known, if it is not.
fn unknown(name: &str, scope: &Scope) -> Option<String> {
    let mut parts = name.split('.');
    let root = parts.next().unwrap_or_default();
    let second = parts.next();
    match root {
        "inputs" => match second {
            Some(input) if scope.inputs.contains(input) => None,
            Some(input) => Some(format!(
                "`{name}` names the input `{input}`, which is not declared (inputs: {})",
                list(&scope.inputs)
            )),
            None => None,
        },
        "run" => match second {
            None | Some("id") => None,
            Some(other) => Some(format!("`{name}`: `run` has only `id`, not `{other}`")),
        },
        "steps" => match second {
            Some(step) if scope.steps.contains(step) => match parts.next() {
                None | Some("output") => None,
                Some(other) => Some(format!("`{name}`: a step has only `output`, not `{other}`")),
            },
            Some(step) => Some(format!(
                "`{name}` reads the step `{step}`, which is not among this step's `needs` (direct or indirect: {})",
                list(&scope.steps)
            )),
            None => None,
        },
        "item" if scope.item => None,
        "item" => Some(format!("`{name}`: `item` exists only in a `foreach` step")),
        // minijinja's own globals and loop variables.
        "loop" | "range" | "dict" | "namespace" | "debug" => None,
        other => Some(format!(
            "`{other}` is not a template variable (expected inputs.*, run.id, steps.<id>.output or item.*)"
        )),
    }
}

fn list(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scope() -> Scope {
        Scope {
            inputs: ["feature".to_owned()].into(),
            steps: ["spec".to_owned()].into(),
            item: false,
        }
    }

    #[test]
    fn known_names_pass_and_unknown_ones_are_named() {
        let t = Templates::default();
        assert!(
            t.check(
                "{{ inputs.feature }} {{ run.id }} {{ steps.spec.output }}",
                &scope()
            )
            .is_empty()
        );
        let problems = t.check(
            "{{ inputs.featur }} {{ item.id }} {{ steps.plan.output }}",
            &scope(),
        );
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("`featur`"));
        assert!(problems.iter().any(|p| p.contains("foreach")));
        assert!(problems.iter().any(|p| p.contains("`plan`")));
        assert!(t.check("{{ unclosed", &scope())[0].starts_with("invalid template"));
    }

    #[test]
    fn rendering_is_strict_and_does_not_escape() {
        let t = Templates::default();
        let ctx = json!({"inputs": {"feature": "a <b> & c", "n": 3, "x": 1.5}});
        assert_eq!(
            t.render("do {{ inputs.feature }}", &ctx).unwrap(),
            "do a <b> & c"
        );
        assert!(t.render("{{ inputs.missing }}", &ctx).is_err());
        assert_eq!(
            t.render("{{ inputs.n + 1 }} {{ inputs.x }}", &ctx).unwrap(),
            "4 1.5"
        );
        assert_eq!(t.render("plain {text}", &ctx).unwrap(), "plain {text}");
    }
}
