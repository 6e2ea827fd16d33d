//! One unit's route: produce → read, repair, check → repair agent or revise → validators →
//! done, or escalate / fail when the stored counters run out.

use rectify_core::{Diagnostic, Format, Location};
use serde_json::Value;

use super::check::{Checked, prepare};
use super::dag::End;
use super::produce::{Produced, Resolved, Unit};
use super::prompt::problems_block;
use super::tree::WriteError;
use super::validate::Judged;
use super::{Runner, paths};
use crate::spec::{OnExhausted, StepKind};
use crate::store::{StepRecord, StepStatus, StepStatusField, WaitRecord, now_ms};

/// The checks of every output of one producer run.
#[derive(Debug, Default)]
pub(crate) struct UnitCheck {
    /// Per file (relative path, or `""` for an answer): its current text and what was found.
    pub files: Vec<(String, Option<String>, Checked)>,
    /// Problems not tied to one file (agent failure, confinement).
    pub other: Vec<Diagnostic>,
    /// The answer's value or text, for answer steps.
    pub value: Option<Value>,
}

impl UnitCheck {
    pub(crate) fn errors(&self) -> usize {
        self.files.iter().map(|(_, _, c)| c.errors()).sum::<usize>()
            + self.other.iter().filter(|d| d.is_error()).count()
    }

    pub(crate) fn all_diagnostics(&self) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self.other.clone();
        for (_, _, c) in &self.files {
            out.extend(c.diagnostics.iter().cloned());
        }
        out
    }

    fn by_file(&self) -> Vec<(String, Vec<Diagnostic>)> {
        let mut out = vec![(String::new(), self.other.clone())];
        out.extend(
            self.files
                .iter()
                .map(|(f, _, c)| (f.clone(), c.diagnostics.clone())),
        );
        out
    }
}

impl Runner {
    /// Runs a step: a human pause, a `foreach`, or one unit.
    pub(crate) async fn run_step(self: std::sync::Arc<Self>, index: usize) -> End {
        let step = &self.wf.spec.steps[index];
        if self.waiting.contains(&step.id) {
            return End::Waiting;
        }
        if self.stopped() {
            return End::Stopped;
        }
        if step.kind() == StepKind::Human {
            return self.human(index);
        }
        if step.foreach.is_some() {
            return self.run_foreach(index).await;
        }
        let unit = Unit {
            key: step.id.clone(),
            step: index,
            item: None,
        };
        self.run_unit(&unit).await
    }

    fn human(&self, index: usize) -> End {
        let step = &self.wf.spec.steps[index];
        let question = step.human.as_deref().map(|q| self.render(q, None));
        let message = match question {
            Some(Ok(q)) => q,
            Some(Err(e)) => format!("(the question could not be rendered: {e})"),
            None => String::new(),
        };
        let record = StepRecord {
            id: step.id.clone(),
            status: StepStatusField(StepStatus::Waiting),
            started_ms: Some(now_ms()),
            ..StepRecord::default()
        };
        self.persist(&record, "started");
        let files = self.needed_files(index);
        self.wait(&record, "human", message, Vec::new(), files, None);
        End::Waiting
    }

    /// The files written by the steps `index` needs (shown to the person).
    fn needed_files(&self, index: usize) -> Vec<String> {
        let outputs = self
            .outputs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut files = Vec::new();
        for &d in &self.wf.deps[index] {
            if let Some(Value::Array(paths)) = outputs.get(&self.wf.spec.steps[d].id) {
                files.extend(paths.iter().filter_map(|p| p.as_str().map(str::to_owned)));
            }
        }
        files
    }

    /// Commits the wait, then reports it (a waiting event only after the commit).
    fn wait(
        &self,
        record: &StepRecord,
        reason: &str,
        message: String,
        diagnostics: Vec<Diagnostic>,
        files: Vec<String>,
        best: Option<String>,
    ) {
        let wait = WaitRecord {
            step: record.id.clone(),
            reason: reason.to_owned(),
            message: Some(message.clone()),
            diagnostics,
            files,
            best,
        };
        if self
            .stored(&record.id, self.store.put_wait(&self.run_id, &wait))
            .is_some()
        {
            self.report(&record.id, "waiting", message);
        }
    }

    /// One unit's whole route.
    pub(crate) async fn run_unit(&self, unit: &Unit) -> End {
        if self.waiting.contains(&unit.key) {
            return End::Waiting;
        }
        let start = self
            .starts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&unit.key);
        let (mut record, feedback) = start.unwrap_or_else(|| {
            let fresh = StepRecord {
                id: unit.key.clone(),
                started_ms: Some(now_ms()),
                ..StepRecord::default()
            };
            (fresh, None)
        });
        // The first state change (the attempt about to be made) is committed by the route;
        // a unit that cannot start is committed as failed.
        record.status = StepStatusField(StepStatus::Running);
        self.report(&unit.key, "started", String::new());
        let resolved = match self.resolve(unit) {
            Ok(r) => r,
            Err(e) => return self.fail(&mut record, vec![config_problem(e)], false),
        };
        let claim: Vec<std::path::PathBuf> = resolved
            .outputs
            .iter()
            .map(|o| std::path::PathBuf::from(&o.rel))
            .collect();
        self.tree.claim(&unit.key, &claim);
        let end = match self.route(unit, &resolved, &mut record, feedback).await {
            Ok(end) => end,
            Err(e) => self.fail(&mut record, vec![config_problem(e)], false),
        };
        self.tree.release(&unit.key);
        end
    }

    async fn route(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        feedback: Option<String>,
    ) -> Result<End, String> {
        let step = self.step_spec(unit);
        let on_invalid = step.on_invalid.clone().unwrap_or_default();
        let revise_max = match (&on_invalid.repair, on_invalid.revise) {
            (_, Some(n)) => n,
            (Some(_), None) => 0,
            (None, None) => self.wf.spec.defaults.max_attempts.saturating_sub(1),
        };
        let repair_max = on_invalid.max.unwrap_or(3);
        let mut feedback = feedback;
        loop {
            if self.stopped() {
                return Ok(End::Stopped);
            }
            record.attempts += 1;
            self.persist(record, "attempt");
            self.report(&unit.key, "attempt", format!("attempt {}", record.attempts));
            let produced = self
                .produce(unit, resolved, record, feedback.take())
                .await?;
            let (answer, problems) = match produced {
                Produced::Ran { answer, problems } => (answer, problems),
                Produced::ProviderFailed(e) => {
                    let d = Diagnostic::error("provider.failed", Location::root(), e.to_string())
                        .source("provider");
                    return Ok(self.fail(record, vec![d], true));
                }
            };
            let mut checked =
                self.check_unit(unit, resolved, record, answer.as_deref(), problems)?;
            while checked.errors() > 0 {
                // Stored with the next event: what this attempt is sent back for.
                record.diagnostics = checked.all_diagnostics();
                self.remember(&step.id, &record.diagnostics);
                // A repair agent fixes files; an answer is revised by its producer instead.
                if let Some(repairer) = &on_invalid.repair
                    && resolved.answer.is_none()
                    && record.repair_runs < repair_max
                    && Runner::has_failing_files(&checked)
                {
                    record.repair_runs += 1;
                    self.persist(record, "repair");
                    self.report(
                        &unit.key,
                        "repair",
                        format!("repair agent, run {}", record.repair_runs),
                    );
                    let extra = self
                        .repair_agent(
                            unit,
                            resolved,
                            record,
                            repairer,
                            on_invalid.max_turns.unwrap_or(5),
                            &checked,
                        )
                        .await?;
                    checked = self.check_unit(unit, resolved, record, None, extra)?;
                    continue;
                }
                if record.revisions < revise_max {
                    record.revisions += 1;
                    self.persist(record, "revise");
                    self.report(
                        &unit.key,
                        "revise",
                        format!("revision {}", record.revisions),
                    );
                    feedback = Some(problems_block(&checked.by_file()));
                    break;
                }
                let why =
                    exhausted_reason(record, revise_max, repair_max, on_invalid.repair.is_some());
                return Ok(self.exhausted(unit, record, &checked, &why));
            }
            if feedback.is_some() {
                continue;
            }
            match self.validate_unit(unit, resolved, record, &checked).await? {
                Judged::Accept => {}
                Judged::Revise(block) => {
                    feedback = Some(block);
                    continue;
                }
                Judged::Exhausted(d) => {
                    let mut checked = checked;
                    checked.other.extend(d);
                    let why = format!(
                        "its validators failed it after {} re-run(s)",
                        record.validations
                    );
                    return Ok(self.exhausted(unit, record, &checked, &why));
                }
            }
            let save = resolved.answer.as_ref().and_then(|(_, s)| s.as_ref());
            return Ok(self.accept(unit, record, &checked, save));
        }
    }

    /// Records the unit's mistakes in the error memory: not a conflict with another unit,
    /// which is nobody's mistake.
    fn remember(&self, step: &str, diagnostics: &[Diagnostic]) {
        let own: Vec<Diagnostic> = diagnostics
            .iter()
            .filter(|d| d.code != "flow.conflict" && d.code != "flow.isolation")
            .cloned()
            .collect();
        self.memory
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .record(step, &own);
        self.save_memory();
    }

    /// Reads, repairs (writing the fix back and keeping the original) and checks every
    /// output, or the answer.
    pub(crate) fn check_unit(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        answer: Option<&str>,
        other: Vec<Diagnostic>,
    ) -> Result<UnitCheck, String> {
        let mut out = UnitCheck {
            other,
            ..UnitCheck::default()
        };
        if let Some((spec, save)) = &resolved.answer {
            let hint = save.as_ref().map_or("", |s| s.rel.as_str());
            let (prepared, problems) = prepare(spec, hint, &self.schemas)?;
            // A Markdown answer is unwrapped by its checks (recorded as a repair).
            let text = answer.map(|a| match prepared.format() {
                Format::Markdown => a.to_owned(),
                _ => super::produce::strip_fence(a),
            });
            let mut checked = match &text {
                Some(t) => prepared.check_text(t),
                None => Checked {
                    diagnostics: vec![no_answer()],
                    ..Checked::default()
                },
            };
            checked.diagnostics.extend(problems);
            record.repairs += u32::try_from(checked.repairs.len()).unwrap_or(u32::MAX);
            out.value = match prepared.format() {
                Format::Markdown | Format::Text => checked
                    .repaired_text
                    .clone()
                    .or(text.clone())
                    .map(Value::String),
                _ => checked.value.clone(),
            };
            let text = checked.repaired_text.clone().or(text);
            out.files.push((String::new(), text, checked));
            return Ok(out);
        }
        let limit = self.wf.spec.defaults.max_output_bytes;
        for output in &resolved.outputs {
            let read_at = self.tree.now();
            let (prepared, problems) = prepare(&output.check, &output.rel, &self.schemas)?;
            let (text, mut checked) = match paths::read_in(&self.workdir, &output.abs, limit) {
                Ok(Some(bytes)) => match String::from_utf8(bytes) {
                    Ok(text) => {
                        let checked = prepared.check_text(&text);
                        (Some(text), checked)
                    }
                    Err(e) => (
                        None,
                        file_problem(
                            "parse.encoding",
                            &output.rel,
                            &format!(
                                "is not UTF-8 (invalid byte at offset {})",
                                e.utf8_error().valid_up_to()
                            ),
                        ),
                    ),
                },
                Ok(None) => (
                    None,
                    file_problem("flow.output_missing", &output.rel, "was not written"),
                ),
                Err(why) => (
                    None,
                    file_problem("flow.output_unreadable", &output.rel, &why),
                ),
            };
            checked.diagnostics.extend(problems);
            let text = match (&checked.repaired_text, text) {
                (Some(fixed), Some(original)) => {
                    self.keep_artifact(&unit.key, &output.rel, "original", original.as_bytes());
                    match self
                        .tree
                        .write(&unit.key, &output.rel, fixed.as_bytes(), read_at)
                    {
                        Ok(()) => {
                            self.keep_artifact(
                                &unit.key,
                                &output.rel,
                                "repaired",
                                fixed.as_bytes(),
                            );
                            record.repairs +=
                                u32::try_from(checked.repairs.len()).unwrap_or(u32::MAX);
                            Some(fixed.clone())
                        }
                        Err(WriteError::Conflict(d)) => {
                            checked.diagnostics.push(*d);
                            Some(original)
                        }
                        Err(WriteError::Io(e)) => {
                            return Err(format!("cannot write the repaired `{}`: {e}", output.rel));
                        }
                    }
                }
                (_, text) => text,
            };
            out.files.push((output.rel.clone(), text, checked));
        }
        Ok(out)
    }

    pub(crate) fn keep_artifact(&self, unit: &str, path: &str, kind: &str, bytes: &[u8]) {
        self.stored(
            unit,
            self.store
                .put_artifact(&self.run_id, unit, path, kind, bytes),
        );
    }

    pub(crate) fn accept(
        &self,
        unit: &Unit,
        record: &mut StepRecord,
        checked: &UnitCheck,
        save: Option<&super::produce::Output>,
    ) -> End {
        // The step's mistakes stay in the memory: later steps are reminded of them (seed 003
        // injects from its whole error history, not from the per-step streak it clears).
        let step = self.step_spec(unit);
        let output = match &checked.value {
            Some(v) => v.clone(),
            None => Value::Array(
                checked
                    .files
                    .iter()
                    .map(|(f, _, _)| Value::String(f.clone()))
                    .collect(),
            ),
        };
        if let Some(save) = save
            && let Some((_, Some(text), _)) = checked.files.first()
        {
            let since = self.tree.now();
            let why = match self
                .tree
                .write(&unit.key, &save.rel, text.as_bytes(), since)
            {
                Ok(()) => None,
                Err(WriteError::Conflict(d)) => Some(*d),
                Err(WriteError::Io(e)) => Some(config_problem(format!(
                    "cannot save the answer to `{}`: {e}",
                    save.rel
                ))),
            };
            if let Some(d) = why {
                return self.fail(record, vec![d], false);
            }
        }
        let warnings: Vec<String> = checked
            .all_diagnostics()
            .iter()
            .filter(|d| !d.is_error())
            .map(rectify_loop::issue_line)
            .collect();
        record.warnings.extend(warnings);
        record.diagnostics.clear();
        record.output = Some(output.clone());
        record.ended_ms = Some(now_ms());
        record.status = StepStatusField(if record.warnings.is_empty() {
            StepStatus::Done
        } else {
            StepStatus::DoneWithWarnings
        });
        self.persist(record, "done");
        if unit.item.is_none() {
            self.outputs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(step.id.clone(), output);
        }
        self.report(&unit.key, "done", String::new());
        End::Done
    }

    /// Counters ran out: escalate to a person (the default) or fail.
    pub(crate) fn exhausted(
        &self,
        unit: &Unit,
        record: &mut StepRecord,
        checked: &UnitCheck,
        why: &str,
    ) -> End {
        let step = self.step_spec(unit);
        let diagnostics: Vec<Diagnostic> = checked
            .all_diagnostics()
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect();
        record.diagnostics.clone_from(&diagnostics);
        record.ended_ms = Some(now_ms());
        if step.on_exhausted == OnExhausted::Fail {
            return self.fail(record, diagnostics, false);
        }
        record.status = StepStatusField(StepStatus::Waiting);
        self.persist(record, "exhausted");
        let files: Vec<String> = checked
            .files
            .iter()
            .map(|(f, _, _)| f.clone())
            .filter(|f| !f.is_empty())
            .collect();
        let best = checked
            .files
            .first()
            .filter(|(f, _, _)| f.is_empty())
            .and_then(|(_, t, _)| t.clone());
        let n = diagnostics.len();
        let message = format!(
            "the step `{}` is exhausted: {why}; {n} problem{} remain{}",
            unit.key,
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" }
        );
        self.wait(record, "exhausted", message, diagnostics, files, best);
        End::Waiting
    }

    pub(crate) fn fail(
        &self,
        record: &mut StepRecord,
        diagnostics: Vec<Diagnostic>,
        provider: bool,
    ) -> End {
        let detail = diagnostics
            .first()
            .map(|d| d.message.clone())
            .unwrap_or_default();
        record.diagnostics = diagnostics;
        record.status = StepStatusField(StepStatus::Failed);
        record.ended_ms = Some(now_ms());
        self.persist(record, "failed");
        self.report(&record.id, "failed", detail);
        if provider {
            End::ProviderFailed
        } else {
            End::Failed
        }
    }
}

fn exhausted_reason(
    record: &StepRecord,
    revise_max: u32,
    repair_max: u32,
    has_repairer: bool,
) -> String {
    if has_repairer {
        format!(
            "the repair agent ran {} of {repair_max} time(s)",
            record.repair_runs
        )
    } else {
        format!(
            "the producer revised {} of {revise_max} time(s)",
            record.revisions
        )
    }
}

fn no_answer() -> Diagnostic {
    Diagnostic::error(
        "flow.no_answer",
        Location::root(),
        "the agent gave no answer",
    )
    .source("agent")
}

fn file_problem(code: &str, path: &str, why: &str) -> Checked {
    Checked {
        diagnostics: vec![
            Diagnostic::error(code, Location::root(), format!("`{path}` {why}"))
                .expected(format!("the agent to write `{path}`"))
                .source(format!("output:{path}")),
        ],
        ..Checked::default()
    }
}

pub(crate) fn config_problem(message: String) -> Diagnostic {
    Diagnostic::error("flow.config", Location::root(), message).source("workflow")
}
