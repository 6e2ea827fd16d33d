//! One model or agent call: the answer is committed to the store as soon as it arrives,
//! before anything checks it.

use std::sync::Arc;

use rectify_core::{Diagnostic, Location};
use rectify_provider::{ErrorKind, Provider, ProviderError, Request, Response, Usage};
use sha2::{Digest, Sha256};

use super::Runner;
use crate::store::{CallOutcome, CallRecord, StepRecord};

/// What a call's record says besides its answer (what the engine saw, why the agent failed or
/// stopped), and the files' contents to store by hash.
fn outcome_of(
    observed: Observed,
    failed: Option<Diagnostic>,
    finish: Option<rectify_provider::FinishReason>,
) -> (CallOutcome, Vec<(String, Vec<u8>)>) {
    let mut outcome = CallOutcome {
        problems: observed.problems,
        failed,
        finish,
        ..CallOutcome::default()
    };
    let mut files = Vec::new();
    for (path, bytes) in observed.files {
        outcome
            .files
            .insert(path.clone(), keep(&mut files, &path, bytes));
    }
    for (path, bytes) in observed.applied {
        outcome
            .applied
            .insert(path.clone(), keep(&mut files, &path, bytes));
    }
    (outcome, files)
}

/// How a call ended.
pub(crate) enum Called {
    /// An answer (recorded).
    Answer(Response),
    /// The agent ran but failed (non-zero exit, time limit): a content problem for the step,
    /// routed like invalid output.
    AgentFailed(Diagnostic),
    /// No answer could be had (transport retries spent, bad configuration).
    ProviderFailed(ProviderError),
}

/// What the engine saw right after a call: the declared files as the agent left them (`None`:
/// absent), the other paths its change set touched, and findings (confinement). Recorded
/// with the answer; on replay only the declared files are restored.
#[derive(Debug, Default)]
pub(crate) struct Observed {
    pub files: Vec<(String, Option<Vec<u8>>)>,
    /// Undeclared paths the agent changed (applied under `report` confinement, or scratch).
    /// Recorded for the audit, never restored: the shared tree already holds them, and may
    /// hold a later version (a validator's log line, a later step's write) that a restore
    /// would lose.
    pub applied: Vec<(String, Option<Vec<u8>>)>,
    pub problems: Vec<Diagnostic>,
}

impl Runner {
    /// Asks `provider`, records the answer under (`unit`, `role`, `seq`) and adds its usage to
    /// `record`.
    pub(crate) async fn call(
        &self,
        unit: &str,
        role: &str,
        seq: u32,
        provider: &Arc<dyn Provider>,
        request: &Request,
        record: &mut StepRecord,
    ) -> Called {
        self.call_observed(unit, role, seq, provider, request, record, None)
            .await
            .0
    }

    /// [`Runner::call`] for an agent that writes files: `observe` runs right after the agent
    /// and before the answer is recorded; what it saw is recorded in the same transaction and,
    /// when the call is replayed, restored (the files written back) instead of observed again.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn call_observed(
        &self,
        unit: &str,
        role: &str,
        seq: u32,
        provider: &Arc<dyn Provider>,
        request: &Request,
        record: &mut StepRecord,
        observe: Option<&(dyn Fn() -> Observed + Sync)>,
    ) -> (Called, Vec<Diagnostic>) {
        if let Some(call) = self.take_recorded(unit, role, seq) {
            return self.replay(unit, role, seq, call, record);
        }
        let result = provider.complete(request).await;
        let called = classify(result);
        let observed = match (&called, observe) {
            (Called::ProviderFailed(_), _) | (_, None) => Observed::default(),
            (_, Some(observe)) => observe(),
        };
        let (raw, usage, failed) = match &called {
            Called::Answer(r) => (r.text.clone(), r.usage, None),
            Called::AgentFailed(d) => (String::new(), Usage::default(), Some(d.clone())),
            Called::ProviderFailed(e) => {
                self.record_broken(unit, role, seq, request, e);
                return (called, Vec::new());
            }
        };
        let finish = match &called {
            Called::Answer(r) if r.finish_reason != rectify_provider::FinishReason::Stop => {
                Some(r.finish_reason.clone())
            }
            _ => None,
        };
        let problems = observed.problems.clone();
        let (outcome, files) = outcome_of(observed, failed, finish);
        let call = CallRecord {
            step: unit.to_owned(),
            role: role.to_owned(),
            seq,
            prompt_hash: prompt_hash(request),
            raw,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            outcome,
            at_ms: 0,
        };
        self.stored(unit, self.store.record_call(&self.run_id, &call, &files));
        record.input_tokens += usage.input_tokens;
        record.output_tokens += usage.output_tokens;
        (called, problems)
    }

    /// Records what arrived before `error` broke the call (a stream cut mid-way), if
    /// anything did: the text is kept in the store, marked broken, and never replayed.
    fn record_broken(
        &self,
        unit: &str,
        role: &str,
        seq: u32,
        request: &Request,
        error: &ProviderError,
    ) {
        let Some(received) = error.received.as_deref().filter(|r| !r.is_empty()) else {
            return;
        };
        let call = CallRecord {
            step: unit.to_owned(),
            role: role.to_owned(),
            seq,
            prompt_hash: prompt_hash(request),
            raw: received.clone(),
            input_tokens: 0,
            output_tokens: 0,
            outcome: CallOutcome {
                broken: Some(error.to_string()),
                ..CallOutcome::default()
            },
            at_ms: 0,
        };
        self.stored(unit, self.store.record_call(&self.run_id, &call, &[]));
    }

    /// A call recorded by an earlier process: its answer, its files written back, its findings.
    fn replay(
        &self,
        unit: &str,
        role: &str,
        seq: u32,
        call: CallRecord,
        record: &mut StepRecord,
    ) -> (Called, Vec<Diagnostic>) {
        record.input_tokens += call.input_tokens;
        record.output_tokens += call.output_tokens;
        self.report(
            unit,
            "replayed",
            format!("{role} answer {seq} from the store"),
        );
        for (path, hash) in &call.outcome.files {
            if let Err(e) = self.restore_file(unit, path, hash.as_deref()) {
                tracing::error!(step = unit, path = %path, error = %e, "cannot restore a recorded file");
            }
        }
        let problems = call.outcome.problems.clone();
        let called = match call.outcome.failed.clone() {
            Some(d) => Called::AgentFailed(d),
            None => Called::Answer(replayed(call)),
        };
        (called, problems)
    }

    /// The recorded call (`unit`, `role`, `seq`), taken (each is replayed once).
    pub(crate) fn take_recorded(&self, unit: &str, role: &str, seq: u32) -> Option<CallRecord> {
        self.recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&(unit.to_owned(), role.to_owned(), seq))
    }

    /// Whether (`unit`, `role`, `seq`) will be replayed from the store rather than asked.
    pub(crate) fn is_recorded(&self, unit: &str, role: &str, seq: u32) -> bool {
        self.recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(&(unit.to_owned(), role.to_owned(), seq))
    }

    /// The declared files as they are now (`None`: absent); a file over the output limit or
    /// unreadable is left out (not recorded, not restored).
    pub(crate) fn capture(
        &self,
        declared: &[(String, std::path::PathBuf)],
    ) -> Vec<(String, Option<Vec<u8>>)> {
        let limit = self.wf.spec.defaults.max_output_bytes;
        declared
            .iter()
            .filter_map(|(rel, abs)| {
                super::paths::read_in(&self.workdir, abs, limit)
                    .ok()
                    .map(|bytes| (rel.clone(), bytes))
            })
            .collect()
    }

    /// Puts `path` back as a recorded call left it: the artifact `hash`, or absent.
    fn restore_file(&self, unit: &str, path: &str, hash: Option<&str>) -> Result<(), String> {
        let abs = super::paths::inside(&self.workdir, path)?;
        match hash {
            Some(hash) => {
                let bytes = self
                    .store
                    .artifact(hash)
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| format!("the artifact {hash} is missing from the store"))?;
                let limit = self
                    .wf
                    .spec
                    .defaults
                    .max_output_bytes
                    .max(bytes.len() as u64);
                let now = super::paths::read_in(&self.workdir, &abs, limit)
                    .ok()
                    .flatten();
                if now.as_deref() != Some(bytes.as_slice()) {
                    let since = self.tree.now();
                    match self.tree.write(unit, path, &bytes, since) {
                        Ok(()) => {}
                        Err(super::tree::WriteError::Conflict(d)) => return Err(d.message),
                        Err(super::tree::WriteError::Io(e)) => return Err(e.to_string()),
                    }
                }
                Ok(())
            }
            None => super::paths::remove_in(&self.workdir, &abs).map_err(|e| e.to_string()),
        }
    }
}

/// The SHA-256 of `bytes` (`None`: absent), the bytes queued for the artifacts table.
fn keep(files: &mut Vec<(String, Vec<u8>)>, path: &str, bytes: Option<Vec<u8>>) -> Option<String> {
    let bytes = bytes?;
    let hash = crate::load::hex(&Sha256::digest(&bytes));
    files.push((path.to_owned(), bytes));
    Some(hash)
}

/// A short hash of the request's messages (which prompt an answer belongs to).
fn prompt_hash(request: &Request) -> String {
    let mut h = Sha256::new();
    for m in &request.messages {
        h.update(m.role.as_str().as_bytes());
        h.update([0]);
        h.update(m.content.as_bytes());
        h.update([0]);
    }
    crate::load::hex(&h.finalize())[..16].to_owned()
}

/// An answer, an agent that ran and failed (a content problem), or no answer at all.
fn classify(result: Result<Response, ProviderError>) -> Called {
    match result {
        Ok(response) => Called::Answer(response),
        Err(error) => match &error.kind {
            ErrorKind::Process {
                exit_code,
                signal,
                stderr_tail,
                ..
            } => {
                let how = match (exit_code, signal) {
                    (Some(code), _) => format!("exited with status {code}"),
                    (None, Some(sig)) => format!("was killed by signal {sig}"),
                    (None, None) => "failed".to_owned(),
                };
                Called::AgentFailed(agent_problem(
                    "agent.exit",
                    format!("the agent {how}"),
                    stderr_tail,
                ))
            }
            ErrorKind::Timeout { after, stderr_tail } => Called::AgentFailed(agent_problem(
                "agent.timeout",
                format!(
                    "the agent did not finish within {:.0} s and was stopped",
                    after.as_secs_f64()
                ),
                stderr_tail.as_deref().unwrap_or_default(),
            )),
            _ => Called::ProviderFailed(error),
        },
    }
}

/// A recorded answer as a response (its model call is not made again).
fn replayed(call: CallRecord) -> Response {
    Response {
        text: call.raw,
        finish_reason: call
            .outcome
            .finish
            .unwrap_or(rectify_provider::FinishReason::Stop),
        usage: rectify_provider::Usage::new(call.input_tokens, call.output_tokens),
        model: "replayed".to_owned(),
        latency: std::time::Duration::ZERO,
        transport_retries: 0,
        raw: String::new(),
        notices: Vec::new(),
    }
}

fn agent_problem(code: &str, message: String, tail: &str) -> Diagnostic {
    let tail = tail.trim();
    let d = Diagnostic::error(code, Location::root(), message)
        .expected("the agent to finish successfully")
        .source("agent");
    if tail.is_empty() {
        d
    } else {
        let start = tail.len().saturating_sub(400);
        let start = (start..tail.len())
            .find(|&i| tail.is_char_boundary(i))
            .unwrap_or(tail.len());
        d.received(format!("stderr: {}", &tail[start..]))
    }
}
