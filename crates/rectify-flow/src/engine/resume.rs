//! Continuing a run from the store: finished steps are not run again, answers recorded by the
//! earlier process are replayed instead of asked again, and a person's decision on what the
//! run waits for is applied (approve, or reject with feedback back to the producer).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rectify_core::Diagnostic;
use rectify_loop::ErrorMemory;
use serde_json::Value;

use super::dag::End;
use super::produce::Unit;
use super::prompt::FAILED_HEADER;
use super::validate::Judged;
use super::{RunError, RunOptions, Runner};
use crate::load::{Problem, load_str};
use crate::spec::StepKind;
use crate::store::{
    Event, RunStatus, StepRecord, StepStatus, StepStatusField, Store, WaitRecord, hostname,
};
use crate::summary::RunSummary;

/// What a person decided about the run's wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No decision: continue what can continue (after a crash or a kill).
    Continue,
    /// Accept: a human step passes; an exhausted step is accepted as it is, recorded as
    /// "accepted by a person with N errors" (never as valid).
    Approve {
        /// The waiting step (needed when several wait).
        step: Option<String>,
    },
    /// Send the work back with the person's words as feedback, counters kept: an exhausted
    /// step's producer runs again; at a human step, the steps it needs run again.
    Reject {
        /// The waiting step (needed when several wait).
        step: Option<String>,
        /// What the person wants changed.
        feedback: String,
    },
    /// Replace outputs with a person's versions (`PATH=FILE`): an exhausted step's, or at a
    /// human step those of a step it needs. They are checked like any output, then judged
    /// by the step's validators: an edit that passes both finishes the step
    /// (`EDITED_BY_PERSON`; at a human step the gate passes too); an invalid edit, or one a
    /// validator fails, is put back, shown (the problems or findings under `waiting`), and
    /// the run keeps waiting — no producer runs for a person's edit.
    Edit {
        /// The waiting step (needed when several wait).
        step: Option<String>,
        /// (output path relative to the working directory, the file holding the new content).
        edits: Vec<(String, PathBuf)>,
    },
}

fn config(message: String) -> RunError {
    RunError::Config(vec![Problem::new(Path::new("resume"), message)])
}

/// Continues the run `run_id` with `decision`.
///
/// The run goes on in `options.workdir` (the CLI's `--workdir`, whose `.rectify/rectify.db`
/// holds the run): its outputs, and the workflow file when it lies in the working directory,
/// are found relative to it, so a moved or copied directory resumes where it is now. When it
/// is not where the run started, the summary says so in a note.
pub async fn resume(
    store: Arc<Store>,
    run_id: &str,
    decision: Decision,
    options: RunOptions,
) -> Result<RunSummary, RunError> {
    let Some(run) = store.run(run_id)? else {
        return Err(config(format!("no run `{run_id}` in this store")));
    };
    let workdir = options.workdir.canonicalize().map_err(|e| {
        RunError::Config(vec![Problem::new(
            &options.workdir,
            format!("the working directory cannot be used: {e}"),
        )])
    })?;
    if let Some(summary) = admit(&store, &run, &decision)? {
        return Ok(summary);
    }
    let mut notes = moved(&run, &workdir);
    // The decision is applied under the lease; if it cannot be, the run is left as it was.
    let runner = match prepare(&store, &run, decision, &options, &workdir).await {
        Ok(Some(runner)) => runner,
        Ok(None) => {
            store.set_run_status(run_id, RunStatus::Waiting)?;
            let mut summary = RunSummary::load(&store, run_id)?;
            let problems = summary.waiting.as_ref().map_or(0, |w| w.diagnostics.len());
            summary.notes.push(format!(
                "the edit was not accepted: {problems} problem{} (shown under `waiting`); the outputs were put back",
                if problems == 1 { "" } else { "s" }
            ));
            summary.notes.append(&mut notes);
            return Ok(summary);
        }
        Err(e) => {
            store.set_run_status(run_id, run.status)?;
            return Err(e);
        }
    };
    let stale = super::paths::remove_stale_temps(&workdir);
    if stale > 0 {
        tracing::info!(stale, "removed temporary files left by a killed process");
    }
    let prior = prior_ends(&runner, &store.steps(run_id)?);
    let runner = Arc::new(runner);
    let mut summary = runner.execute(options.max_parallel, &prior).await?;
    let file = workflow_file(&run, &workdir);
    if std::fs::read_to_string(&file).ok().as_deref() != Some(run.workflow_source.as_str()) {
        summary.notes.push(format!(
            "the workflow file `{}` changed since the run started; the copy pinned at start was used",
            file.display()
        ));
    }
    summary.notes.append(&mut notes);
    Ok(summary)
}

/// Whether the run can take `decision` (and this process its lease). `Some`: nothing to run
/// (a completed run continued without a decision).
fn admit(
    store: &Store,
    run: &crate::store::RunRecord,
    decision: &Decision,
) -> Result<Option<RunSummary>, RunError> {
    let run_id = run.id.as_str();
    match run.status {
        RunStatus::Completed if *decision != Decision::Continue => Err(config(format!(
            "the run `{run_id}` is completed and waits for no decision"
        ))),
        RunStatus::Completed => {
            let mut summary = RunSummary::load(store, run_id)?;
            summary
                .notes
                .push(format!("the run `{run_id}` is completed; nothing was run"));
            Ok(Some(summary))
        }
        // A run an earlier rectify recorded failed while a branch waited still holds that
        // open wait: it stays decidable.
        RunStatus::Failed if store.waits(run_id)?.is_empty() => Err(config(format!(
            "the run `{run_id}` failed; start a new run"
        ))),
        RunStatus::Failed | RunStatus::Running | RunStatus::Waiting | RunStatus::Interrupted => {
            claim_lease(store, run_id)?;
            Ok(None)
        }
    }
}

/// A note when the run goes on in another directory than the one it started in.
fn moved(run: &crate::store::RunRecord, workdir: &Path) -> Vec<String> {
    if Path::new(&run.workdir) == workdir {
        return Vec::new();
    }
    vec![format!(
        "the run started in `{}`; it goes on in `{}`, the working directory of its store (its outputs are read and written there, its agents run there)",
        run.workdir,
        workdir.display()
    )]
}

/// The run's workflow file: recorded in the working directory it started in, it is taken
/// from the same place in `workdir`; elsewhere, where it was.
fn workflow_file(run: &crate::store::RunRecord, workdir: &Path) -> PathBuf {
    let recorded = Path::new(&run.workflow_path);
    match recorded.strip_prefix(&run.workdir) {
        Ok(rel) if recorded.is_absolute() => workdir.join(rel),
        _ => recorded.to_path_buf(),
    }
}

/// How each step ended in earlier processes: done, or failed (it stays failed; what needs
/// it stays skipped). Steps sent back by the decision start again.
fn prior_ends(runner: &Runner, stored: &[StepRecord]) -> Vec<Option<End>> {
    let starts = runner
        .starts
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    runner
        .wf
        .spec
        .steps
        .iter()
        .map(|s| {
            let failed = stored
                .iter()
                .any(|r| r.id == s.id && r.status.0 == StepStatus::Failed);
            if runner.finished.contains(&s.id) {
                Some(End::Done)
            } else if failed && !starts.contains_key(&s.id) {
                Some(End::Failed)
            } else {
                None
            }
        })
        .collect()
}

/// The runner of `run` restored from the store with `decision` applied; `None` when a
/// person's edit did not pass (it was put back and the run keeps waiting).
async fn prepare(
    store: &Arc<Store>,
    run: &crate::store::RunRecord,
    decision: Decision,
    options: &RunOptions,
    workdir: &Path,
) -> Result<Option<Runner>, RunError> {
    let wf = load_str(&workflow_file(run, workdir), run.workflow_source.clone())
        .map_err(|e| RunError::Config(e.problems))?;
    let memory: ErrorMemory = run
        .memory
        .as_deref()
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or_default();
    let mut runner = Runner::new(
        wf,
        Arc::clone(store),
        run.id.clone(),
        workdir.to_path_buf(),
        options,
        run.inputs.clone(),
        memory,
    );
    let steps = store.steps(&run.id)?;
    let waits = store.waits(&run.id)?;
    restore(&mut runner, &steps, &waits, store, &run.id)?;
    if let Decision::Edit { step, edits } = &decision {
        if edit(&mut runner, &steps, &waits, step.as_deref(), edits)
            .await?
            .is_some()
        {
            return Ok(None);
        }
    } else {
        apply(&mut runner, &steps, &waits, decision)?;
    }
    Ok(Some(runner))
}

/// Makes this process the run's only writer: refused while the holder is alive (it sent a
/// heartbeat within 30 s and, on this machine, its process exists); a dead holder's lease is
/// taken over. The take is a compare-and-swap on the holder seen, so of two
/// `resume` started at once, one wins and the other is refused.
fn claim_lease(store: &Store, run_id: &str) -> Result<(), RunError> {
    let seen = store.lease(run_id)?;
    if let Some((pid, host, beat)) = &seen {
        let ours = *pid == i64::from(std::process::id()) && *host == hostname();
        let alive = !ours && crate::store::holder_alive(*pid, host, *beat);
        if alive {
            return Err(config(format!(
                "the run `{run_id}` is being run by process {pid} on {host}; wait for it or stop it first"
            )));
        }
    }
    let expected = seen.as_ref().map(|(pid, host, _)| (*pid, host.as_str()));
    if store.take_lease(run_id, expected)? {
        Ok(())
    } else {
        Err(config(format!(
            "another process took the run `{run_id}` just now; see `rectify status {run_id}`"
        )))
    }
}

/// Finished units and outputs, the error memory, the replayable answers of units that were
/// running when the earlier process stopped, and what still waits.
fn restore(
    runner: &mut Runner,
    steps: &[StepRecord],
    waits: &[WaitRecord],
    store: &Store,
    run_id: &str,
) -> Result<(), RunError> {
    let mut interrupted = BTreeSet::new();
    for s in steps {
        match s.status.0 {
            StepStatus::Done | StepStatus::DoneWithWarnings => {
                runner.finished.insert(s.id.clone());
                if !s.id.contains('[') {
                    let output = s.output.clone().unwrap_or(Value::Null);
                    runner
                        .outputs
                        .get_mut()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(s.id.clone(), output);
                }
            }
            StepStatus::Running | StepStatus::Pending => {
                interrupted.insert(s.id.clone());
            }
            _ => {}
        }
    }
    let mut recorded = HashMap::new();
    for call in store.calls(run_id)? {
        // A broken stream's partial answer is not an answer to replay: it is asked again.
        if interrupted.contains(&call.step) && call.outcome.broken.is_none() {
            recorded.insert((call.step.clone(), call.role.clone(), call.seq), call);
        }
    }
    *runner.recorded.get_mut().unwrap_or_else(|e| e.into_inner()) = recorded;
    runner.waiting = waits.iter().map(|w| w.step.clone()).collect();
    Ok(())
}

fn apply(
    runner: &mut Runner,
    steps: &[StepRecord],
    waits: &[WaitRecord],
    decision: Decision,
) -> Result<(), RunError> {
    let (step, feedback) = match decision {
        Decision::Continue | Decision::Edit { .. } => return Ok(()),
        Decision::Approve { step } => (step, None),
        Decision::Reject { step, feedback } => (step, Some(feedback)),
    };
    let wait = pick(waits, step.as_deref())?;
    let record = steps
        .iter()
        .find(|s| s.id == wait.step)
        .cloned()
        .unwrap_or_else(|| StepRecord {
            id: wait.step.clone(),
            ..StepRecord::default()
        });
    runner.waiting.remove(&wait.step);
    match feedback {
        None => approve(runner, wait, record),
        Some(text) => reject(runner, steps, wait, record, &text),
    }
}

/// Applies a person's edit; `Some(n)`: the edit has `n` errors and was put back.
// Long (64 lines): an edit is applied, judged, refused or accepted and recorded in one
// place, so a refused edit always puts the previous files back before returning.
#[allow(clippy::too_many_lines)]
async fn edit(
    runner: &mut Runner,
    steps: &[StepRecord],
    waits: &[WaitRecord],
    step: Option<&str>,
    edits: &[(String, PathBuf)],
) -> Result<Option<usize>, RunError> {
    let wait = pick(waits, step)?;
    let unit = owner(runner, wait, edits)?;
    let resolved = runner.resolve(&unit).map_err(config)?;
    let mut record = steps
        .iter()
        .find(|s| s.id == unit.key)
        .cloned()
        .unwrap_or_default();
    let (previous, answer) = write_edits(runner, &unit, &resolved, edits)?;
    let checked = runner
        .check_unit(&unit, &resolved, &mut record, answer.as_deref(), Vec::new())
        .map_err(config)?;
    let refused = if checked.errors() > 0 {
        let problems: Vec<Diagnostic> = checked
            .all_diagnostics()
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect();
        Some((problems, "does not pass"))
    } else {
        judge_edit(runner, &unit, &resolved, &mut record, &checked).await?
    };
    if let Some((problems, why)) = refused {
        put_back(previous);
        let errors = problems.len();
        let mut shown = wait.clone();
        shown.diagnostics = problems;
        shown.message = Some(format!(
            "the person's edit of `{}` {why}: {errors} problem(s)",
            wait.step
        ));
        runner.store.put_wait(&runner.run_id, &shown)?;
        return Ok(Some(errors));
    }
    record.verdict = Some("EDITED_BY_PERSON".to_owned());
    let save = resolved.answer.as_ref().and_then(|(_, s)| s.as_ref());
    runner.accept(&unit, &mut record, &checked, save);
    if wait.reason == "human" {
        // The person fixed what the gate shows and let the run go on.
        let mut gate = steps
            .iter()
            .find(|s| s.id == wait.step)
            .cloned()
            .unwrap_or_default();
        gate.status = StepStatusField(StepStatus::Done);
        gate.verdict = Some("EDITED_BY_PERSON".to_owned());
        gate.ended_ms = Some(crate::store::now_ms());
        runner.store.decide(&runner.run_id, &gate, Event::Edited)?;
        if let Some(g) = runner.wf.step_index(&wait.step) {
            runner
                .outputs
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .insert(runner.wf.spec.steps[g].id.clone(), Value::Null);
        }
    } else {
        runner
            .store
            .resolve_wait(&runner.run_id, &wait.step, Event::Edited)?;
    }
    runner.waiting.remove(&wait.step);
    runner.finished.insert(wait.step.clone());
    Ok(None)
}
/// A file a person's edit replaced and what it held (`None`: it did not exist).
/// A file an edit replaced: the working directory, the file, and what it held (`None`: absent).
type Previous = (PathBuf, PathBuf, Option<Vec<u8>>);

/// Writes a person's versions over the unit's outputs (each kept as an `edit` artifact);
/// returns what each file held before (to put back) and, for an answer, the new answer.
fn write_edits(
    runner: &Runner,
    unit: &Unit,
    resolved: &super::produce::Resolved,
    edits: &[(String, PathBuf)],
) -> Result<(Vec<Previous>, Option<String>), RunError> {
    let mut previous = Vec::new();
    let mut answer = None;
    for (rel, file) in edits {
        let target = resolved
            .outputs
            .iter()
            .map(|o| (&o.rel, &o.abs))
            .chain(
                resolved
                    .answer
                    .iter()
                    .filter_map(|(_, save)| save.as_ref().map(|s| (&s.rel, &s.abs))),
            )
            .find(|(r, _)| *r == rel)
            .map(|(_, abs)| abs.clone());
        let Some(target) = target else {
            return Err(config(format!(
                "`{rel}` is not an output of `{}`",
                unit.key
            )));
        };
        // The person's file may be anywhere, but no larger than an output may be.
        let limit = runner.wf.spec.defaults.max_output_bytes;
        let bytes = super::paths::read_bounded(file, limit)
            .map_err(|e| config(format!("cannot read `{}`: {e}", file.display())))?
            .ok_or_else(|| {
                config(format!(
                    "cannot read `{}`: it does not exist",
                    file.display()
                ))
            })?;
        runner.keep_artifact(&unit.key, rel, "edit", &bytes);
        let workdir = runner.workdir.clone();
        let before = super::paths::read_in(&workdir, &target, limit)
            .ok()
            .flatten();
        previous.push((workdir.clone(), target.clone(), before));
        if resolved.answer.is_some() {
            answer = Some(String::from_utf8_lossy(&bytes).into_owned());
        }
        super::paths::write_in(&workdir, &target, &bytes)
            .map_err(|e| config(format!("cannot write `{rel}`: {e}")))?;
    }
    Ok((previous, answer))
}

/// The step's validators judge a person's edit as they judge a producer's work; a FAIL
/// refuses it (no producer runs for a person's edit): the findings, and the unit's record as
/// it was (the FAIL counts no validation re-run).
async fn judge_edit(
    runner: &Runner,
    unit: &Unit,
    resolved: &super::produce::Resolved,
    record: &mut StepRecord,
    checked: &super::check::UnitCheck,
) -> Result<Option<(Vec<Diagnostic>, &'static str)>, RunError> {
    let before = record.clone();
    let judged = runner
        .validate_unit(unit, resolved, record, checked)
        .await
        .map_err(config)?;
    match judged {
        Judged::Accept => Ok(None),
        Judged::Revise(_) | Judged::Exhausted(_) => {
            let findings = std::mem::take(&mut record.diagnostics);
            *record = StepRecord {
                verdict: record.verdict.take(),
                diagnostics: findings.clone(),
                ..before
            };
            runner
                .store
                .put_step(&runner.run_id, record, Event::EditRefused)?;
            Ok(Some((findings, "is failed by its validators")))
        }
    }
}

/// Puts back the files a refused edit replaced (removes those that did not exist).
fn put_back(previous: Vec<Previous>) {
    for (workdir, target, bytes) in previous {
        match bytes {
            Some(b) => {
                let _ = super::paths::write_in(&workdir, &target, &b);
            }
            None => {
                let _ = super::paths::remove_in(&workdir, &target);
            }
        }
    }
}

/// The unit whose outputs a person edits: the exhausted step or `foreach` item itself, or at
/// a human step the step it needs that declares the edited paths.
fn owner(
    runner: &Runner,
    wait: &WaitRecord,
    edits: &[(String, PathBuf)],
) -> Result<Unit, RunError> {
    let Some(gate) = runner.wf.step_index(&wait.step) else {
        return runner.item_unit(&wait.step).map_err(config);
    };
    if wait.reason == "exhausted" {
        return Ok(Unit {
            key: wait.step.clone(),
            step: gate,
            item: None,
        });
    }
    let declares = |i: usize, rel: &str| {
        let unit = Unit {
            key: runner.wf.spec.steps[i].id.clone(),
            step: i,
            item: None,
        };
        runner.resolve(&unit).is_ok_and(|r| {
            r.outputs.iter().any(|o| o.rel == rel)
                || r.answer
                    .as_ref()
                    .and_then(|(_, s)| s.as_ref())
                    .is_some_and(|s| s.rel == rel)
        })
    };
    let first = edits.first().map_or("", |(rel, _)| rel.as_str());
    let found = runner.wf.deps[gate]
        .iter()
        .copied()
        .find(|&d| runner.wf.spec.steps[d].foreach.is_none() && declares(d, first));
    match found {
        Some(d) if edits.iter().all(|(rel, _)| declares(d, rel)) => Ok(Unit {
            key: runner.wf.spec.steps[d].id.clone(),
            step: d,
            item: None,
        }),
        Some(d) => Err(config(format!(
            "edit the outputs of one step at a time: not every path given is an output of `{}`",
            runner.wf.spec.steps[d].id
        ))),
        None => Err(config(format!(
            "`{first}` is not an output of a step that `{}` needs",
            wait.step
        ))),
    }
}

fn pick<'a>(waits: &'a [WaitRecord], step: Option<&str>) -> Result<&'a WaitRecord, RunError> {
    match step {
        Some(id) => waits.iter().find(|w| w.step == id).ok_or_else(|| {
            config(format!(
                "the run does not wait at `{id}` (it waits at: {})",
                names(waits)
            ))
        }),
        None if waits.len() == 1 => Ok(&waits[0]),
        None if waits.is_empty() => Err(config(
            "the run waits for nothing; resume it without a decision".to_owned(),
        )),
        None => Err(config(format!(
            "the run waits at several steps ({}); name one with --step",
            names(waits)
        ))),
    }
}

fn names(waits: &[WaitRecord]) -> String {
    waits
        .iter()
        .map(|w| w.step.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn approve(runner: &mut Runner, wait: &WaitRecord, mut record: StepRecord) -> Result<(), RunError> {
    let errors = wait.diagnostics.iter().filter(|d| d.is_error()).count();
    if wait.reason == "human" {
        record.status = StepStatusField(StepStatus::Done);
        record.verdict = Some("APPROVED".to_owned());
    } else {
        record.status = StepStatusField(StepStatus::DoneWithWarnings);
        record.verdict = Some("ACCEPTED_BY_PERSON".to_owned());
        record.warnings.push(format!(
            "accepted by a person with {errors} error{}",
            if errors == 1 { "" } else { "s" }
        ));
        if record.output.is_none() {
            record.output = Some(Value::Array(
                wait.files.iter().cloned().map(Value::String).collect(),
            ));
        }
        save_best(runner, wait)?;
    }
    record.ended_ms = Some(crate::store::now_ms());
    runner
        .store
        .decide(&runner.run_id, &record, Event::Approved)?;
    runner.finished.insert(wait.step.clone());
    if !wait.step.contains('[') {
        let output = record.output.clone().unwrap_or(Value::Null);
        runner
            .outputs
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .insert(wait.step.clone(), output);
    }
    Ok(())
}

/// An approved exhausted answer step: its best candidate is the accepted answer, written to
/// the step's `save:` file as an accepted answer always is.
fn save_best(runner: &Runner, wait: &WaitRecord) -> Result<(), RunError> {
    let Some(best) = &wait.best else {
        return Ok(());
    };
    let unit = match runner.wf.step_index(&wait.step) {
        Some(step) => Unit {
            key: wait.step.clone(),
            step,
            item: None,
        },
        None => runner.item_unit(&wait.step).map_err(config)?,
    };
    let resolved = runner.resolve(&unit).map_err(config)?;
    if let Some((_, Some(save))) = &resolved.answer {
        super::paths::write_in(&runner.workdir, &save.abs, best.as_bytes())
            .map_err(|e| config(format!("cannot save the answer to `{}`: {e}", save.rel)))?;
    }
    Ok(())
}

fn reject(
    runner: &mut Runner,
    steps: &[StepRecord],
    wait: &WaitRecord,
    record: StepRecord,
    text: &str,
) -> Result<(), RunError> {
    let block = format!(
        "{FAILED_HEADER}\n\nA person reviewed your previous work and asks for these changes:\n{}",
        text.trim()
    );
    let index = runner
        .wf
        .step_index(wait.step.split('[').next().unwrap_or_default());
    let is_human = index.is_some_and(|i| runner.wf.spec.steps[i].kind() == StepKind::Human);
    let starts = runner.starts.get_mut().unwrap_or_else(|e| e.into_inner());
    if is_human {
        // Back to the producers this gate approves: the steps it needs run again.
        let Some(i) = index else { return Ok(()) };
        for &d in &runner.wf.deps[i] {
            let id = runner.wf.spec.steps[d].id.clone();
            let prior = steps
                .iter()
                .find(|s| s.id == id)
                .cloned()
                .unwrap_or_default();
            runner.finished.remove(&id);
            starts.insert(id, (prior, Some(block.clone())));
        }
    } else {
        starts.insert(wait.step.clone(), (record, Some(block)));
    }
    runner
        .store
        .resolve_wait(&runner.run_id, &wait.step, Event::Rejected)?;
    Ok(())
}
