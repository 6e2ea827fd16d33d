//! The benchmark prompts: one JSON file per prompt with `id`, `kind`, `prompt`, `schema` and
//! optional `rules` (the rules file's `rules` list).

use std::path::Path;

use rectify_check::{Checker, RuleSet};
use rectify_loop::Task;
use rectify_provider::Request;
use serde_json::{Value, json};

/// Token budget of one answer.
const MAX_OUTPUT_TOKENS: u32 = 400;

/// One prompt of the benchmark.
pub struct Case {
    pub id: String,
    pub kind: String,
    prompt: String,
    schema: Value,
    rules: Option<Value>,
}

/// Reads every `*.json` file of `dir`, in name order, at most `limit` of them.
pub fn load(dir: &Path, limit: usize) -> Result<Vec<Case>, Box<dyn std::error::Error>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .take(limit)
        .map(|path| {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
            let text = |key: &str| doc[key].as_str().unwrap_or_default().to_owned();
            Ok(Case {
                id: text("id"),
                kind: text("kind"),
                prompt: text("prompt"),
                schema: doc["schema"].clone(),
                rules: doc.get("rules").cloned(),
            })
        })
        .collect()
}

impl Case {
    /// The request text.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The loop task: schema, rules, temperature and token budget.
    pub fn task(&self, temperature: f64) -> Result<Task, Box<dyn std::error::Error>> {
        let mut task = Task::new(&self.prompt).schema(self.schema.clone())?;
        if let Some(rules) = &self.rules {
            let rules = RuleSet::from_value(&json!({ "rules": rules }), None)?;
            task = task.checker(Checker::builder().rules(rules).build()?);
        }
        let template = Request::default()
            .with_temperature(temperature)
            .with_max_output_tokens(MAX_OUTPUT_TOKENS);
        Ok(task.request_template(template))
    }
}
