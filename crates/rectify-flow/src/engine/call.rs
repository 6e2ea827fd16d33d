//! One model or agent call: the answer is committed to the store as soon as it arrives,
//! before anything checks it.

use std::sync::Arc;

use rectify_core::{Diagnostic, Location};
use rectify_provider::{ErrorKind, Provider, ProviderError, Request, Response};
use sha2::{Digest, Sha256};

use super::Runner;
use crate::store::{CallRecord, StepRecord};

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
        let prompt_hash = {
            let mut h = Sha256::new();
            for m in &request.messages {
                h.update(m.role.as_str().as_bytes());
                h.update([0]);
                h.update(m.content.as_bytes());
                h.update([0]);
            }
            crate::load::hex(&h.finalize())[..16].to_owned()
        };
        let replay = self
            .recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&(unit.to_owned(), role.to_owned(), seq));
        if let Some(call) = replay {
            record.input_tokens += call.input_tokens;
            record.output_tokens += call.output_tokens;
            self.report(
                unit,
                "replayed",
                format!("{role} answer {seq} from the store"),
            );
            return Called::Answer(replayed(call));
        }
        match provider.complete(request).await {
            Ok(response) => {
                let call = CallRecord {
                    step: unit.to_owned(),
                    role: role.to_owned(),
                    seq,
                    prompt_hash,
                    raw: response.text.clone(),
                    input_tokens: response.usage.input_tokens,
                    output_tokens: response.usage.output_tokens,
                };
                if let Err(e) = self.store.record_call(&self.run_id, &call) {
                    tracing::error!(step = unit, error = %e, "cannot record the answer");
                }
                record.input_tokens += response.usage.input_tokens;
                record.output_tokens += response.usage.output_tokens;
                Called::Answer(response)
            }
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
}

/// A recorded answer as a response (its model call is not made again).
fn replayed(call: CallRecord) -> Response {
    Response {
        text: call.raw,
        finish_reason: rectify_provider::FinishReason::Stop,
        usage: rectify_provider::Usage::new(call.input_tokens, call.output_tokens),
        model: "replayed".to_owned(),
        latency: std::time::Duration::ZERO,
        transport_retries: 0,
        raw: String::new(),
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
