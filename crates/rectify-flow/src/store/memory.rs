//! The store's in-memory backend: plain data behind one lock, with the SQLite backend's
//! semantics (what each method writes, orders and returns; a change naming a missing run is an
//! error, as SQLite's foreign keys make it). Nothing survives the process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use sha2::{Digest, Sha256};

use super::{
    CallRecord, Event, EventRecord, LinkRecord, RunRecord, RunStatus, StepRecord, StepStatus,
    StepStatusField, StoreError, WaitRecord, hostname, now_ms,
};

/// The in-memory store.
#[derive(Debug, Default)]
pub(super) struct Memory {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    runs: HashMap<String, Run>,
    /// Content hash → bytes, shared by the runs.
    artifacts: HashMap<String, Vec<u8>>,
    /// Numbers runs in the order they were created (ties of `created_ms` in `prune`).
    created: u64,
    /// The last call id handed out.
    call_id: i64,
}

/// One run and everything it stored.
#[derive(Debug)]
struct Run {
    record: RunRecord,
    order: u64,
    lease_pid: Option<i64>,
    lease_host: Option<String>,
    lease_ms: Option<i64>,
    steps: Vec<StepRecord>,
    step_index: HashMap<String, usize>,
    calls: Vec<CallRecord>,
    events: Vec<EventRecord>,
    links: Vec<LinkRecord>,
    waits: Vec<Wait>,
}

#[derive(Debug)]
struct Wait {
    record: WaitRecord,
    created_ms: i64,
    resolved: bool,
}

fn missing(run: &str) -> StoreError {
    StoreError::NoRun {
        run: run.to_owned(),
    }
}

impl State {
    fn run_mut(&mut self, run: &str) -> Result<&mut Run, StoreError> {
        self.runs.get_mut(run).ok_or_else(|| missing(run))
    }

    /// Stores `bytes` by hash and links them to the run's step; returns the hash.
    fn link(&mut self, run: &str, step: &str, path: &str, kind: &str, bytes: &[u8]) -> String {
        let hash = crate::load::hex(&Sha256::digest(bytes));
        self.artifacts
            .entry(hash.clone())
            .or_insert_with(|| bytes.to_vec());
        let size = self.artifacts.get(&hash).map_or(0, Vec::len);
        if let Some(r) = self.runs.get_mut(run) {
            r.links.push(LinkRecord {
                step: step.to_owned(),
                path: path.to_owned(),
                kind: kind.to_owned(),
                hash: hash.clone(),
                bytes: i64::try_from(size).unwrap_or(i64::MAX),
                at_ms: now_ms(),
            });
        }
        hash
    }
}

impl Run {
    fn event(&mut self, step: &str, kind: Event, diagnostics: Vec<rectify_core::Diagnostic>) {
        self.events.push(EventRecord {
            step: step.to_owned(),
            kind: kind.as_str().to_owned(),
            at_ms: now_ms(),
            diagnostics,
        });
    }

    /// Inserts the step or replaces it where it was first written.
    fn put(&mut self, step: StepRecord) {
        if let Some(&i) = self.step_index.get(&step.id) {
            self.steps[i] = step;
        } else {
            self.step_index.insert(step.id.clone(), self.steps.len());
            self.steps.push(step);
        }
    }

    /// The size of its rows as the SQLite backend counts them (characters of the text
    /// columns plus a fixed part per row).
    fn bytes(&self) -> Result<i64, StoreError> {
        let r = &self.record;
        let mut sum = chars(&r.id)
            + chars(&r.workflow)
            + chars(&r.workflow_path)
            + chars(&r.workflow_hash)
            + chars(&r.workdir)
            + chars(&serde_json::to_string(&r.inputs)?)
            + chars(r.status.as_str())
            + r.memory.as_deref().map_or(0, chars)
            + 48;
        for s in &self.steps {
            sum += chars(&s.id)
                + chars(s.status.as_str())
                + s.verdict.as_deref().map_or(0, chars)
                + json_chars(&s.warnings)?
                + json_chars(&s.diagnostics)?
                + s.output
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()?
                    .map_or(0, |o| chars(&o))
                + 80;
        }
        sum += self
            .events
            .iter()
            .map(|e| chars(&e.step) + chars(&e.kind) + 16)
            .sum::<i64>();
        sum += self
            .calls
            .iter()
            .map(|c| chars(&c.step) + chars(&c.role) + chars(&c.prompt_hash) + 32)
            .sum::<i64>();
        sum += self
            .links
            .iter()
            .map(|l| chars(&l.step) + chars(&l.path) + chars(&l.kind) + chars(&l.hash) + 16)
            .sum::<i64>();
        Ok(sum)
    }
}

fn chars(text: &str) -> i64 {
    i64::try_from(text.chars().count()).unwrap_or(i64::MAX)
}

fn json_chars<T: serde::Serialize>(items: &[T]) -> Result<i64, StoreError> {
    Ok(super::json_or_null(items)?.map_or(0, |j| chars(&j)))
}

// The methods keep the SQLite backend's signatures (the store dispatches to either), so some
// return a `Result` that is always `Ok` here.
#[allow(clippy::unnecessary_wraps)]
impl Memory {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every change below is complete before the lock is released or cannot panic
        // half-way, so a poisoned lock still guards whole data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn create_run(&self, run: &RunRecord, steps: &[&str]) -> Result<(), StoreError> {
        self.create(run)?;
        self.put_pending(&run.id, steps)
    }

    fn create(&self, run: &RunRecord) -> Result<(), StoreError> {
        let mut state = self.state();
        if state.runs.contains_key(&run.id) {
            return Err(StoreError::RunExists {
                run: run.id.clone(),
            });
        }
        state.created += 1;
        let mut record = run.clone();
        record.updated_ms = run.created_ms;
        let entry = Run {
            record,
            order: state.created,
            lease_pid: Some(i64::from(std::process::id())),
            lease_host: Some(hostname()),
            lease_ms: Some(run.created_ms),
            steps: Vec::new(),
            step_index: HashMap::new(),
            calls: Vec::new(),
            events: Vec::new(),
            links: Vec::new(),
            waits: Vec::new(),
        };
        state.runs.insert(run.id.clone(), entry);
        Ok(())
    }

    pub(super) fn set_run_status(&self, run: &str, status: RunStatus) -> Result<(), StoreError> {
        if let Some(r) = self.state().runs.get_mut(run) {
            r.record.status = status;
            r.record.updated_ms = now_ms();
        }
        Ok(())
    }

    pub(super) fn set_memory(&self, run: &str, memory: &str) -> Result<(), StoreError> {
        if let Some(r) = self.state().runs.get_mut(run) {
            r.record.memory = Some(memory.to_owned());
            r.record.updated_ms = now_ms();
        }
        Ok(())
    }

    pub(super) fn put_step(
        &self,
        run: &str,
        step: &StepRecord,
        event: Event,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let r = state.run_mut(run)?;
        let diagnostics = if event.keeps_diagnostics() {
            step.diagnostics.clone()
        } else {
            Vec::new()
        };
        r.put(step.clone());
        r.event(&step.id, event, diagnostics);
        Ok(())
    }

    pub(super) fn decide(
        &self,
        run: &str,
        step: &StepRecord,
        decision: Event,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let r = state.run_mut(run)?;
        r.put(step.clone());
        for w in r.waits.iter_mut().filter(|w| w.record.step == step.id) {
            w.resolved = true;
        }
        r.event(&step.id, decision, Vec::new());
        Ok(())
    }

    pub(super) fn put_pending(&self, run: &str, steps: &[&str]) -> Result<(), StoreError> {
        let mut state = self.state();
        if steps.is_empty() {
            // Nothing is written, so nothing can name a missing run.
            return Ok(());
        }
        let r = state.run_mut(run)?;
        for id in steps {
            if !r.step_index.contains_key(*id) {
                r.put(StepRecord {
                    id: (*id).to_owned(),
                    ..StepRecord::default()
                });
            }
        }
        Ok(())
    }

    pub(super) fn record_call(
        &self,
        run: &str,
        call: &CallRecord,
        files: &[(String, Vec<u8>)],
    ) -> Result<i64, StoreError> {
        let mut state = self.state();
        state.run_mut(run)?;
        for (path, bytes) in files {
            state.link(run, &call.step, path, "written", bytes);
        }
        state.call_id += 1;
        let id = state.call_id;
        let mut call = call.clone();
        call.at_ms = now_ms();
        state.run_mut(run)?.calls.push(call);
        Ok(id)
    }

    pub(super) fn calls(&self, run: &str) -> Result<Vec<CallRecord>, StoreError> {
        Ok(self
            .state()
            .runs
            .get(run)
            .map(|r| r.calls.clone())
            .unwrap_or_default())
    }

    pub(super) fn events(&self, run: &str) -> Result<Vec<EventRecord>, StoreError> {
        Ok(self
            .state()
            .runs
            .get(run)
            .map(|r| r.events.clone())
            .unwrap_or_default())
    }

    pub(super) fn links(&self, run: &str) -> Result<Vec<LinkRecord>, StoreError> {
        Ok(self
            .state()
            .runs
            .get(run)
            .map(|r| r.links.clone())
            .unwrap_or_default())
    }

    pub(super) fn put_artifact(
        &self,
        run: &str,
        step: &str,
        path: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        let mut state = self.state();
        state.run_mut(run)?;
        Ok(state.link(run, step, path, kind, bytes))
    }

    pub(super) fn artifact(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.state().artifacts.get(hash).cloned())
    }

    pub(super) fn put_wait(&self, run: &str, wait: &WaitRecord) -> Result<(), StoreError> {
        let mut state = self.state();
        let r = state.run_mut(run)?;
        let entry = Wait {
            record: wait.clone(),
            created_ms: now_ms(),
            resolved: false,
        };
        match r.waits.iter_mut().find(|w| w.record.step == wait.step) {
            Some(w) => *w = entry,
            None => r.waits.push(entry),
        }
        if let Some(&i) = r.step_index.get(&wait.step) {
            r.steps[i].status = StepStatusField(StepStatus::Waiting);
        }
        r.event(&wait.step, Event::Waiting, Vec::new());
        Ok(())
    }

    pub(super) fn waits(&self, run: &str) -> Result<Vec<WaitRecord>, StoreError> {
        let state = self.state();
        let Some(r) = state.runs.get(run) else {
            return Ok(Vec::new());
        };
        let mut open: Vec<&Wait> = r.waits.iter().filter(|w| !w.resolved).collect();
        open.sort_by(|a, b| (a.created_ms, &a.record.step).cmp(&(b.created_ms, &b.record.step)));
        Ok(open.into_iter().map(|w| w.record.clone()).collect())
    }

    pub(super) fn resolve_wait(
        &self,
        run: &str,
        step: &str,
        decision: Event,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let r = state.run_mut(run)?;
        for w in r.waits.iter_mut().filter(|w| w.record.step == step) {
            w.resolved = true;
        }
        r.event(step, decision, Vec::new());
        Ok(())
    }

    pub(super) fn lease(&self, run: &str) -> Result<Option<(i64, String, i64)>, StoreError> {
        let state = self.state();
        Ok(state.runs.get(run).and_then(|r| {
            Some((
                r.lease_pid?,
                r.lease_host.clone().unwrap_or_default(),
                r.lease_ms.unwrap_or_default(),
            ))
        }))
    }

    pub(super) fn take_lease(
        &self,
        run: &str,
        expected: Option<(i64, &str)>,
    ) -> Result<bool, StoreError> {
        let mut state = self.state();
        let Some(r) = state.runs.get_mut(run) else {
            return Ok(false);
        };
        let (pid, host) = expected.map_or((None, None), |(p, h)| (Some(p), Some(h)));
        let holder = r.lease_host.as_deref().unwrap_or_default();
        if r.lease_pid != pid || holder != host.unwrap_or_default() {
            return Ok(false);
        }
        r.lease_pid = Some(i64::from(std::process::id()));
        r.lease_host = Some(hostname());
        r.lease_ms = Some(now_ms());
        r.record.status = RunStatus::Running;
        Ok(true)
    }

    pub(super) fn release(&self, run: &str, status: RunStatus) -> Result<bool, StoreError> {
        let mut state = self.state();
        let Some(r) = state.runs.get_mut(run) else {
            return Ok(false);
        };
        let mine = r.lease_pid == Some(i64::from(std::process::id()))
            && r.lease_host.as_deref() == Some(hostname().as_str());
        if mine {
            r.lease_pid = None;
            r.lease_host = None;
            if r.record.status == RunStatus::Running {
                r.record.status = status;
            }
            r.record.updated_ms = now_ms();
        }
        Ok(mine)
    }

    pub(super) fn heartbeat(&self, run: &str) -> Result<bool, StoreError> {
        let mut state = self.state();
        let Some(r) = state.runs.get_mut(run) else {
            return Ok(false);
        };
        let mine = r.lease_pid == Some(i64::from(std::process::id()))
            && r.lease_host.as_deref() == Some(hostname().as_str());
        if mine {
            r.lease_ms = Some(now_ms());
        }
        Ok(mine)
    }

    pub(super) fn event(&self, run: &str, step: &str, kind: Event) -> Result<(), StoreError> {
        self.state().run_mut(run)?.event(step, kind, Vec::new());
        Ok(())
    }

    pub(super) fn run(&self, run: &str) -> Result<Option<RunRecord>, StoreError> {
        Ok(self.state().runs.get(run).map(|r| r.record.clone()))
    }

    pub(super) fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let state = self.state();
        let mut runs: Vec<&RunRecord> = state.runs.values().map(|r| &r.record).collect();
        runs.sort_by(|a, b| {
            b.created_ms
                .cmp(&a.created_ms)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(runs.into_iter().cloned().collect())
    }

    pub(super) fn steps(&self, run: &str) -> Result<Vec<StepRecord>, StoreError> {
        Ok(self
            .state()
            .runs
            .get(run)
            .map(|r| r.steps.clone())
            .unwrap_or_default())
    }

    pub(super) fn prune(&self, before_ms: i64) -> Result<Vec<String>, StoreError> {
        let mut state = self.state();
        let mut old: Vec<(i64, u64, String)> = state
            .runs
            .values()
            .filter(|r| r.record.updated_ms < before_ms && r.record.status != RunStatus::Running)
            .map(|r| (r.record.created_ms, r.order, r.record.id.clone()))
            .collect();
        old.sort();
        for (_, _, id) in &old {
            state.runs.remove(id);
        }
        let State {
            runs, artifacts, ..
        } = &mut *state;
        artifacts.retain(|hash, _| {
            runs.values()
                .any(|r| r.links.iter().any(|l| &l.hash == hash))
        });
        Ok(old.into_iter().map(|(_, _, id)| id).collect())
    }

    pub(super) fn run_bytes(&self, run: &str) -> Result<i64, StoreError> {
        self.state().runs.get(run).map_or(Ok(0), Run::bytes)
    }
}
