//! One unit's route: produce → read, repair, check → repair agent or revise → validators →
//! done, or escalate / fail when the stored counters run out.

use rectify_core::{Diagnostic, Format, Location};
use rectify_provider::ProviderError;
use serde_json::Value;

use super::check::{Checked, Prepared, UnitCheck, prepare};
use super::dag::End;
use super::produce::{Output, Produced, Resolved, Unit};
use super::prompt::problems_block;
use super::router::{self, Found, Limits, Next};
use super::tree::WriteError;
use super::validate::Judged;
use super::{Runner, paths};
use crate::spec::{OnExhausted, StepKind};
use crate::store::{Event, StepRecord, StepStatus, StepStatusField, WaitRecord, now_ms};

/// Judges an answer: its value (the text itself for Markdown and plain text), the text to
/// keep, and what was found. A Markdown answer is unwrapped by its checks (recorded as a
/// repair); other answers lose a fence around them first.
fn check_answer(
    prepared: &Prepared,
    answer: Option<&str>,
) -> (Option<Value>, Option<String>, Checked) {
    let text = answer.map(|a| match prepared.format() {
        Format::Markdown => a.to_owned(),
        _ => super::produce::strip_fence(a),
    });
    let checked = match &text {
        Some(t) => prepared.check_text(t),
        None => Checked {
            diagnostics: vec![no_answer()],
            ..Checked::default()
        },
    };
    let value = match prepared.format() {
        Format::Markdown | Format::Text => checked
            .repaired_text
            .clone()
            .or(text.clone())
            .map(Value::String),
        _ => checked.value.clone(),
    };
    let text = checked.repaired_text.clone().or(text);
    (value, text, checked)
}

/// Where repairing a unit's outputs ended.
enum Fixed {
    /// Valid: on to the validators.
    Valid(UnitCheck),
    /// The producer runs again with these problems.
    Revise(String),
    /// Exhausted (escalated or failed).
    End(End),
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
        self.persist(&record, Event::Started);
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
            Err(e) => return self.fail(&mut record, vec![config_problem(e)], End::ConfigFailed),
        };
        let claim: Vec<std::path::PathBuf> = resolved
            .outputs
            .iter()
            .map(|o| std::path::PathBuf::from(&o.rel))
            .collect();
        self.tree.claim(&unit.key, &claim);
        let end = match self.route(unit, &resolved, &mut record, feedback).await {
            Ok(end) => end,
            // What the route could not do (a view, an agent's provider) is the step's failure,
            // not the workflow's configuration: only rendering (above) fails as config.
            Err(e) => self.fail(&mut record, vec![step_problem(e)], End::Failed),
        };
        self.tree.release(&unit.key);
        end
    }

    /// The unit's route: attempts (produce, judge) until its outputs are valid and its
    /// validators accept them, or its counters run out. Which way to go after errors is
    /// decided by [`router::after_errors`] (a pure function); this drives the effects.
    async fn route(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        feedback: Option<String>,
    ) -> Result<End, String> {
        let mut feedback = feedback;
        loop {
            if self.stopped() {
                return Ok(End::Stopped);
            }
            self.start_attempt(unit, record);
            let (answer, problems, stopped) = match self
                .produce(unit, resolved, record, feedback.take())
                .await?
            {
                Produced::Ran {
                    answer,
                    problems,
                    stopped,
                } => (answer, problems, stopped),
                Produced::ProviderFailed(e) => return Ok(self.provider_failed(record, &e)),
            };
            let mut checked =
                self.check_unit(unit, resolved, record, answer.as_deref(), problems)?;
            if let Some(why) = stopped {
                checked.only_why_stopped(why);
            }
            let checked = match self.until_valid(unit, resolved, record, checked).await? {
                Fixed::Valid(checked) => checked,
                Fixed::Revise(block) => {
                    feedback = Some(block);
                    continue;
                }
                Fixed::End(end) => return Ok(end),
            };
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

    /// Counts and records a new attempt.
    fn start_attempt(&self, unit: &Unit, record: &mut StepRecord) {
        record.attempts += 1;
        self.persist(record, Event::Attempt);
        self.report(&unit.key, "attempt", format!("attempt {}", record.attempts));
    }

    /// Ends the unit on a provider that failed: as in `rectify ask`, a misconfigured
    /// provider (a missing key) is the workflow's configuration, not an outage.
    fn provider_failed(&self, record: &mut StepRecord, e: &ProviderError) -> End {
        let (code, end) = if e.is_config() {
            ("provider.config", End::ConfigFailed)
        } else {
            ("provider.failed", End::ProviderFailed)
        };
        let d = Diagnostic::error(code, Location::root(), e.to_string()).source("provider");
        self.fail(record, vec![d], end)
    }

    /// Runs the repair agent while the router says so, until the outputs are valid, the
    /// producer is to revise, or the unit is exhausted.
    async fn until_valid(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        mut checked: UnitCheck,
    ) -> Result<Fixed, String> {
        let step = self.step_spec(unit);
        let on_invalid = step.on_invalid.clone().unwrap_or_default();
        let limits = Limits::of(&on_invalid, self.wf.spec.defaults.max_attempts);
        // What the answer before this one was told, as stored: a refusal there and here
        // ends the unit.
        let refused_before = refused(&record.diagnostics);
        while checked.errors() > 0 {
            // Stored with the next event: what this attempt is sent back for.
            record.diagnostics = checked.all_diagnostics();
            self.remember(&step.id, &record.diagnostics);
            let found = Found {
                answer: resolved.answer.is_some(),
                failing_files: Runner::has_failing_files(&checked),
                refused: refused(&record.diagnostics),
                refused_before,
            };
            let next = router::after_errors(record, limits, found);
            match (next, &on_invalid.repair) {
                (Next::Repair, Some(repairer)) => {
                    record.repair_runs += 1;
                    self.persist(record, Event::Repair);
                    let run = format!("repair agent, run {}", record.repair_runs);
                    self.report(&unit.key, "repair", run);
                    let turns = on_invalid.max_turns.unwrap_or(5);
                    let extra = self
                        .repair_agent(unit, resolved, record, repairer, turns, &checked)
                        .await?;
                    checked = self.check_unit(unit, resolved, record, None, extra)?;
                }
                (Next::Revise, _) => {
                    record.revisions += 1;
                    self.persist(record, Event::Revise);
                    let revision = format!("revision {}", record.revisions);
                    self.report(&unit.key, "revise", revision);
                    return Ok(Fixed::Revise(problems_block(&checked.by_file())));
                }
                (Next::Refused, _) => {
                    let why = "the producer refused twice in a row".to_owned();
                    return Ok(Fixed::End(self.exhausted(unit, record, &checked, &why)));
                }
                _ => {
                    let why = exhausted_reason(record, limits);
                    return Ok(Fixed::End(self.exhausted(unit, record, &checked, &why)));
                }
            }
        }
        Ok(Fixed::Valid(checked))
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
            let (value, text, mut checked) = check_answer(&prepared, answer);
            checked.diagnostics.extend(problems);
            record.repairs += u32::try_from(checked.repairs.len()).unwrap_or(u32::MAX);
            out.value = value;
            out.files.push((String::new(), text, checked));
            return Ok(out);
        }
        for output in &resolved.outputs {
            let read_at = self.tree.now();
            let (prepared, problems) = prepare(&output.check, &output.rel, &self.schemas)?;
            let (text, mut checked) = self.read_output(output, &prepared);
            checked.diagnostics.extend(problems);
            let text = match (&checked.repaired_text, text) {
                (Some(fixed), Some(original)) => {
                    let fixed = fixed.clone();
                    self.write_back(unit, output, record, &mut checked, original, fixed, read_at)?
                }
                (_, text) => text,
            };
            out.files.push((output.rel.clone(), text, checked));
        }
        Ok(out)
    }

    /// Reads one output and judges it; a missing, unreadable or non-UTF-8 file is its problem.
    fn read_output(&self, output: &Output, prepared: &Prepared) -> (Option<String>, Checked) {
        let limit = self.wf.spec.defaults.max_output_bytes;
        match paths::read_in(&self.workdir, &output.abs, limit) {
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
        }
    }

    /// Writes a repaired output back (the original and the repair kept as artifacts); a
    /// change by another unit since `read_at` is a conflict, and the original stands.
    #[allow(clippy::too_many_arguments)] // one call site; the pieces are the unit's state
    fn write_back(
        &self,
        unit: &Unit,
        output: &Output,
        record: &mut StepRecord,
        checked: &mut Checked,
        original: String,
        fixed: String,
        read_at: u64,
    ) -> Result<Option<String>, String> {
        self.keep_artifact(&unit.key, &output.rel, "original", original.as_bytes());
        match self
            .tree
            .write(&unit.key, &output.rel, fixed.as_bytes(), read_at)
        {
            Ok(()) => {
                self.keep_artifact(&unit.key, &output.rel, "repaired", fixed.as_bytes());
                record.repairs += u32::try_from(checked.repairs.len()).unwrap_or(u32::MAX);
                Ok(Some(fixed))
            }
            Err(WriteError::Conflict(d)) => {
                checked.diagnostics.push(*d);
                Ok(Some(original))
            }
            Err(WriteError::Io(e)) => {
                Err(format!("cannot write the repaired `{}`: {e}", output.rel))
            }
        }
    }

    pub(crate) fn keep_artifact(&self, unit: &str, path: &str, kind: &str, bytes: &[u8]) {
        self.stored(
            unit,
            self.store
                .put_artifact(&self.run_id, unit, path, kind, bytes),
        );
    }

    /// Writes an accepted answer to its `save` path; why it could not be written, if so.
    fn save_answer(
        &self,
        unit: &Unit,
        checked: &UnitCheck,
        save: Option<&super::produce::Output>,
    ) -> Option<Diagnostic> {
        let save = save?;
        let Some((_, Some(text), _)) = checked.files.first() else {
            return None;
        };
        let since = self.tree.now();
        match self
            .tree
            .write(&unit.key, &save.rel, text.as_bytes(), since)
        {
            Ok(()) => None,
            Err(WriteError::Conflict(d)) => Some(*d),
            Err(WriteError::Io(e)) => Some(config_problem(format!(
                "cannot save the answer to `{}`: {e}",
                save.rel
            ))),
        }
    }

    /// Accepts a unit's output: saved (an answer with `save`), recorded with its warnings,
    /// and made readable by later steps.
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
        if let Some(d) = self.save_answer(unit, checked, save) {
            return self.fail(record, vec![d], End::Failed);
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
        self.persist(record, Event::Done);
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
            return self.fail(record, diagnostics, End::Failed);
        }
        record.status = StepStatusField(StepStatus::Waiting);
        self.persist(record, Event::Exhausted);
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

    /// Records `record` as failed with `diagnostics`; returns `end` (why it failed:
    /// [`End::Failed`], [`End::ProviderFailed`] or [`End::ConfigFailed`]).
    pub(crate) fn fail(
        &self,
        record: &mut StepRecord,
        diagnostics: Vec<Diagnostic>,
        end: End,
    ) -> End {
        let detail = diagnostics
            .first()
            .map(|d| d.message.clone())
            .unwrap_or_default();
        record.diagnostics = diagnostics;
        record.status = StepStatusField(StepStatus::Failed);
        record.ended_ms = Some(now_ms());
        self.persist(record, Event::Failed);
        self.report(&record.id, "failed", detail);
        end
    }
}

fn exhausted_reason(record: &StepRecord, limits: Limits) -> String {
    if limits.repairer {
        format!(
            "the repair agent ran {} of {} time(s)",
            record.repair_runs, limits.repair
        )
    } else {
        format!(
            "the producer revised {} of {} time(s)",
            record.revisions, limits.revise
        )
    }
}

/// Whether `diagnostics` say the producer refused to answer.
fn refused(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.code == rectify_loop::REFUSED)
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

/// A step that could not be run (its agent's view, a repair or validator agent's provider).
fn step_problem(message: String) -> Diagnostic {
    Diagnostic::error("flow.step", Location::root(), message).source("workflow")
}

pub(crate) fn config_problem(message: String) -> Diagnostic {
    Diagnostic::error("flow.config", Location::root(), message).source("workflow")
}
