//! `foreach`: one unit per item of an earlier, validated document, run as a DAG by the items'
//! own `needs`, at most `parallel` at once. Duplicate keys, unknown dependencies and cycles
//! are diagnostics on the document, routed like any invalid output.

use std::collections::BTreeMap;
use std::sync::Arc;

use rectify_core::{Diagnostic, Document, Location};
use serde_json::Value;
use serde_json_path::JsonPath;

use super::check::UnitCheck;
use super::dag::{self, End};
use super::produce::Unit;
use super::step::config_problem;
use super::{Runner, paths};
use crate::graph;
use crate::spec::{ForeachSpec, ValidateSpec, ValidatorSpec};
use crate::store::{Event, StepRecord, StepStatus, StepStatusField, now_ms};

/// Why a `foreach` cannot run its items.
enum ItemsError {
    /// The document (its path) has problems: routed like an invalid output.
    Document(String, Vec<Diagnostic>),
    /// The step cannot run at all (a template or path that cannot be rendered).
    Config(String),
}

/// The items of a document, ready to run.
struct Items {
    keys: Vec<String>,
    values: Vec<Value>,
    deps: Vec<Vec<usize>>,
    /// `meta.validation` and its `run_after` agent types.
    validation: Option<(ValidateSpec, Vec<String>)>,
}

impl Runner {
    /// The validation override of a `foreach` item (no validators: the document turns
    /// validation off for it).
    pub(crate) fn item_validation(&self, unit: &Unit) -> Option<ValidateSpec> {
        unit.item.as_ref()?;
        self.item_validation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&unit.key)
            .cloned()
    }

    // Long (78 lines): expanding the items and persisting their records must happen in this
    // order within one function (the parent record is written before any item runs); split
    // next when Restate runs items in parallel.
    #[allow(clippy::too_many_lines)]
    pub(crate) async fn run_foreach(self: Arc<Self>, index: usize) -> End {
        let step = &self.wf.spec.steps[index];
        let Some(foreach) = step.foreach.clone() else {
            return End::Failed;
        };
        let mut record = StepRecord {
            id: step.id.clone(),
            status: StepStatusField(StepStatus::Running),
            started_ms: Some(now_ms()),
            ..StepRecord::default()
        };
        self.persist(&record, Event::Started);
        self.report(&step.id, "started", String::new());
        let unit = Unit {
            key: step.id.clone(),
            step: index,
            item: None,
        };
        let (rel, items) = match self.items(&foreach) {
            Ok(found) => found,
            Err(ItemsError::Config(message)) => {
                return self.fail(
                    &mut record,
                    vec![config_problem(message)],
                    End::ConfigFailed,
                );
            }
            Err(ItemsError::Document(rel, problems)) => {
                let mut checked = UnitCheck::default();
                checked.files.push((
                    rel,
                    None,
                    super::check::Checked {
                        diagnostics: problems,
                        ..Default::default()
                    },
                ));
                return self.exhausted(&unit, &mut record, &checked, "its document has problems");
            }
        };
        {
            let mut overrides = self
                .item_validation
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for (i, key) in items.keys.iter().enumerate() {
                let k = format!("{}[{key}]", step.id);
                let validation = items.validation.as_ref().and_then(|(spec, run_after)| {
                    runs_after(&foreach, &items.values[i], step.agent.as_deref(), run_after)
                        .then(|| spec.clone())
                });
                if foreach.validation_from_document {
                    overrides.insert(k, validation.unwrap_or_default());
                }
            }
        }
        let parallel = step.parallel.unwrap_or(1) as usize;
        let me = Arc::clone(&self);
        let keys = items.keys.clone();
        let values = items.values.clone();
        let id = step.id.clone();
        let finished: Vec<bool> = items
            .keys
            .iter()
            .map(|k| self.finished.contains(&format!("{}[{k}]", step.id)))
            .collect();
        let ends = dag::run(&items.deps, parallel, &finished, move |i| {
            let me = Arc::clone(&me);
            let unit = Unit {
                key: format!("{id}[{}]", keys[i]),
                step: index,
                item: Some(values[i].clone()),
            };
            async move { me.run_unit(&unit).await }
        })
        .await;
        self.finish_foreach(&mut record, &rel, &items.keys, &ends)
    }

    fn finish_foreach(
        &self,
        record: &mut StepRecord,
        rel: &str,
        keys: &[String],
        ends: &[End],
    ) -> End {
        if self.stopped() || ends.contains(&End::Stopped) {
            return End::Stopped;
        }
        for (key, end) in keys.iter().zip(ends) {
            let status = match end {
                End::Pending => StepStatus::Pending,
                End::Skipped => StepStatus::Skipped,
                _ => continue,
            };
            let item = StepRecord {
                id: format!("{}[{key}]", record.id),
                status: StepStatusField(status),
                ..StepRecord::default()
            };
            self.persist(&item, Event::from(status));
        }
        record.output = Some(serde_json::json!({"document": rel, "items": keys}));
        record.ended_ms = Some(now_ms());
        let end = if ends.contains(&End::ProviderFailed) {
            End::ProviderFailed
        } else if ends.contains(&End::ConfigFailed) {
            End::ConfigFailed
        } else if ends.iter().any(|e| matches!(e, End::Failed | End::Skipped)) {
            End::Failed
        } else if ends.iter().all(|e| *e == End::Done) {
            End::Done
        } else {
            End::Waiting
        };
        record.status = StepStatusField(match end {
            End::Done => StepStatus::Done,
            End::Waiting | End::Pending => StepStatus::Waiting,
            _ => StepStatus::Failed,
        });
        self.persist(record, Event::ItemsFinished);
        if end == End::Done {
            self.outputs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(record.id.clone(), record.output.clone().unwrap_or_default());
            self.report(&record.id, "done", format!("{} items", keys.len()));
        }
        end
    }

    /// The unit of the item `id` (`step[key]`), read again from its document (for a person's
    /// edit of an item that waits).
    pub(crate) fn item_unit(&self, id: &str) -> Result<Unit, String> {
        let (step, key) = id
            .strip_suffix(']')
            .and_then(|s| s.split_once('['))
            .ok_or_else(|| format!("`{id}` is not a `foreach` item"))?;
        let index = self
            .wf
            .step_index(step)
            .ok_or_else(|| format!("no step `{step}`"))?;
        let foreach = self.wf.spec.steps[index]
            .foreach
            .as_ref()
            .ok_or_else(|| format!("`{step}` is not a `foreach` step"))?;
        let items = match self.items(foreach) {
            Ok((_, items)) => items,
            Err(ItemsError::Config(m)) => return Err(m),
            Err(ItemsError::Document(rel, _)) => {
                return Err(format!("the items of `{step}` cannot be read from `{rel}`"));
            }
        };
        let i = items
            .keys
            .iter()
            .position(|k| k == key)
            .ok_or_else(|| format!("`{key}` is no longer an item of `{step}`"))?;
        Ok(Unit {
            key: id.to_owned(),
            step: index,
            item: Some(items.values[i].clone()),
        })
    }

    /// Reads the document and its items.
    fn items(&self, foreach: &ForeachSpec) -> Result<(String, Items), ItemsError> {
        let rel = self
            .render(&foreach.document, None)
            .map_err(ItemsError::Config)?;
        let abs = paths::inside(&self.workdir, &rel).map_err(ItemsError::Config)?;
        let bytes =
            match paths::read_in(&self.workdir, &abs, self.wf.spec.defaults.max_output_bytes) {
                Ok(Some(b)) => b,
                Ok(None) => {
                    let d = doc_problem(None, "", format!("the document `{rel}` does not exist"));
                    return Err(ItemsError::Document(rel, vec![d]));
                }
                Err(why) => {
                    let d = doc_problem(None, "", format!("the document `{rel}`: {why}"));
                    return Err(ItemsError::Document(rel, vec![d]));
                }
            };
        let format = rectify_core::Format::from_path(&rel).unwrap_or(rectify_core::Format::Yaml);
        let parsed = rectify_parse::read_bytes(bytes, format, &rectify_parse::Limits::default());
        let doc = match parsed.document {
            Some(doc) if !parsed.diagnostics.iter().any(Diagnostic::is_error) => doc,
            _ => return Err(ItemsError::Document(rel, parsed.diagnostics)),
        };
        match items_of(foreach, &doc) {
            Ok(items) => Ok((rel, items)),
            Err(problems) => Err(ItemsError::Document(rel, problems)),
        }
    }
}

// Long (88 lines): one pass over the items collects every problem at once (keys, duplicates,
// unknown needs, cycles), each a few lines of message; split by problem it would re-walk them.
#[allow(clippy::too_many_lines)]
fn items_of(foreach: &ForeachSpec, doc: &Document) -> Result<Items, Vec<Diagnostic>> {
    let path = |p: &str| {
        JsonPath::parse(p).map_err(|e| {
            vec![doc_problem(
                None,
                "",
                format!("invalid JSONPath `{p}`: {e}"),
            )]
        })
    };
    let items_path = path(&foreach.items)?;
    let key_path = path(&foreach.key)?;
    let needs_path = foreach.needs.as_deref().map(path).transpose()?;
    let located = items_path.query_located(&doc.value);
    let mut problems = Vec::new();
    let mut keys = Vec::new();
    let mut values = Vec::new();
    let mut pointers = Vec::new();
    for node in located.iter() {
        let pointer = node.location().to_json_pointer();
        let item = node.node();
        let key = match key_path.query(item).first() {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                problems.push(doc_problem(
                    Some(doc),
                    &pointer,
                    format!("the item has no key at `{}`", foreach.key),
                ));
                continue;
            }
        };
        if keys.contains(&key) {
            problems.push(doc_problem(
                Some(doc),
                &pointer,
                format!("the key `{key}` is used by two items"),
            ));
            continue;
        }
        keys.push(key);
        values.push(item.clone());
        pointers.push(pointer);
    }
    let index: BTreeMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut deps = vec![Vec::new(); keys.len()];
    if let Some(needs) = &needs_path {
        for (i, item) in values.iter().enumerate() {
            for need in needs.query(item).all().into_iter().flat_map(flatten) {
                match index.get(need.as_str()) {
                    Some(&j) => deps[i].push(j),
                    None => problems.push(doc_problem(
                        Some(doc),
                        &pointers[i],
                        format!("`{}` needs `{need}`, which no item has as its key", keys[i]),
                    )),
                }
            }
        }
    }
    if let Some(cycle) = graph::find_cycle(&deps) {
        let names: Vec<&str> = cycle.iter().map(|&i| keys[i].as_str()).collect();
        problems.push(doc_problem(
            Some(doc),
            &pointers[cycle[0]],
            format!(
                "the items' dependencies form a cycle: {}",
                names.join(" -> ")
            ),
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let validation = foreach
        .validation_from_document
        .then(|| meta_validation(&doc.value))
        .flatten();
    Ok(Items {
        keys,
        values,
        deps,
        validation,
    })
}

fn flatten(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Number(n) => vec![n.to_string()],
        Value::Array(a) => a.iter().flat_map(flatten).collect(),
        _ => Vec::new(),
    }
}

/// `meta.validation` of the document (seed 001): `enabled`, `validators` (default
/// `[validator]`), `max_validation_attempts` (default 1); `None` when not enabled.
fn meta_validation(value: &Value) -> Option<(ValidateSpec, Vec<String>)> {
    let v = value.get("meta")?.get("validation")?;
    if !v.get("enabled").and_then(Value::as_bool).unwrap_or(false) {
        return None;
    }
    let validators = match v.get("validators").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|x| x.as_str().map(|s| ValidatorSpec::Agent(s.to_owned())))
            .collect(),
        None => vec![ValidatorSpec::Agent("validator".to_owned())],
    };
    let max = v
        .get("max_validation_attempts")
        .and_then(Value::as_u64)
        .map_or(1, |n| u32::try_from(n).unwrap_or(u32::MAX));
    let run_after = match v.get("run_after").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        None => vec!["coder".to_owned()],
    };
    Some((
        ValidateSpec {
            validators,
            max_validation_attempts: max,
        },
        run_after,
    ))
}

/// Whether the item's agent type is among the document's `meta.validation.run_after`
/// (default `[coder]`); the item's type is at `agent_type` (default `$.agent`), else the
/// step's agent.
fn runs_after(
    foreach: &ForeachSpec,
    item: &Value,
    step_agent: Option<&str>,
    run_after: &[String],
) -> bool {
    let path = foreach.agent_type.as_deref().unwrap_or("$.agent");
    let from_item = JsonPath::parse(path).ok().and_then(|p| {
        p.query(item)
            .first()
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    match from_item.as_deref().or(step_agent) {
        Some(kind) => run_after.iter().any(|r| r == kind),
        None => false,
    }
}

fn doc_problem(doc: Option<&Document>, pointer: &str, message: String) -> Diagnostic {
    let location = match doc {
        Some(d) => d.locate(pointer),
        None => Location::root(),
    };
    Diagnostic::error("flow.foreach", location, message).source("foreach")
}
