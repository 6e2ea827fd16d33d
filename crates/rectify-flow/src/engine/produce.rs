//! Running the producer of a step: the agent writes its files (a command agent in the working
//! directory), or answers, and for API and embedded providers the engine writes each answer
//! to its declared path.

use std::path::PathBuf;
use std::sync::Arc;

use rectify_core::{Diagnostic, Format};
use rectify_provider::spec::{ProviderKind, ProviderSpec};
use rectify_provider::{FinishReason, Provider, ProviderError, Request, Response};
use rectify_stream::{PrefixChecker, PrefixOptions};
use serde_json::Value;

use super::call::{Called, Observed};
use super::check::{CheckSpec, SchemaCache, schema_summary};
use super::confine::Allowed;
use super::prompt::{OutputLine, ProducerPrompt};
use super::tree::{Applied, Policy, WriteError};
use super::{Runner, paths};
use crate::spec::{AgentSpec, Confine, StepSpec};
use crate::store::StepRecord;

/// One run of a step: the step itself, or one item of a `foreach`.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    /// `step` or `step[key]`.
    pub key: String,
    /// The step's index.
    pub step: usize,
    /// The item of a `foreach`.
    pub item: Option<Value>,
}

/// An output with its paths rendered and confined.
#[derive(Clone, Debug)]
pub(crate) struct Output {
    /// Relative to the working directory.
    pub rel: String,
    /// Absolute.
    pub abs: PathBuf,
    /// How it is checked.
    pub check: CheckSpec,
}

/// The rendered parts of a unit.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    /// The task.
    pub task: String,
    /// Files to write.
    pub outputs: Vec<Output>,
    /// An answer step's check and where to save the answer.
    pub answer: Option<(CheckSpec, Option<Output>)>,
}

/// What a producer run gave.
pub(crate) enum Produced {
    /// It ran: its answer (for answer steps and agents with no files) and problems seen on
    /// the way (the agent failed, confinement).
    Ran {
        answer: Option<String>,
        problems: Vec<Diagnostic>,
        /// Why a streamed answer was stopped early (it could no longer be valid): the
        /// errors to feed back instead of what had not arrived yet.
        stopped: Option<Vec<Diagnostic>>,
    },
    /// No provider could answer.
    ProviderFailed(ProviderError),
}

impl Runner {
    pub(crate) fn step_spec(&self, unit: &Unit) -> &StepSpec {
        &self.wf.spec.steps[unit.step]
    }

    /// Renders the unit's templates and confines its paths.
    pub(crate) fn resolve(&self, unit: &Unit) -> Result<Resolved, String> {
        let step = self.step_spec(unit);
        let item = unit.item.as_ref();
        let task = match &step.prompt {
            Some(p) => self.render(p, item)?,
            None => String::new(),
        };
        let mut outputs = Vec::new();
        for o in &step.outputs {
            let rel = self.render(&o.path, item)?;
            let abs = paths::inside(&self.workdir, &rel)?;
            let check = self.check_spec(
                o.format,
                o.schema.as_deref(),
                o.rules.as_deref(),
                &o.refs,
                item,
            )?;
            outputs.push(Output { rel, abs, check });
        }
        let answer = match &step.answer {
            Some(a) => {
                let check = self.check_spec(
                    Some(a.format),
                    a.schema.as_deref(),
                    a.rules.as_deref(),
                    &a.refs,
                    item,
                )?;
                let save = match &a.save {
                    Some(s) => {
                        let rel = self.render(s, item)?;
                        let abs = paths::inside(&self.workdir, &rel)?;
                        Some(Output {
                            rel,
                            abs,
                            check: check.clone(),
                        })
                    }
                    None => None,
                };
                Some((check, save))
            }
            None => None,
        };
        Ok(Resolved {
            task,
            outputs,
            answer,
        })
    }

    fn check_spec(
        &self,
        format: Option<Format>,
        schema: Option<&str>,
        rules: Option<&str>,
        refs: &std::collections::BTreeMap<String, String>,
        item: Option<&Value>,
    ) -> Result<CheckSpec, String> {
        let mut rendered = std::collections::BTreeMap::new();
        for (name, r) in refs {
            let rel = self.render(r, item)?;
            rendered.insert(name.clone(), paths::inside(&self.workdir, &rel)?);
        }
        Ok(CheckSpec {
            format,
            schema: schema.map(|s| self.wf.resolve(s)),
            rules: rules.map(|r| self.wf.resolve(r)),
            refs: rendered,
            workdir: Some(self.workdir.clone()),
        })
    }

    /// The agent and its provider spec (the agent's model overriding the provider's).
    pub(crate) fn agent(&self, name: &str) -> Result<(&AgentSpec, ProviderSpec), String> {
        let agent = self
            .wf
            .agents
            .get(name)
            .ok_or_else(|| format!("unknown agent `{name}`"))?;
        let provider = agent
            .front
            .provider
            .as_ref()
            .or(self.wf.spec.defaults.provider.as_ref())
            .ok_or_else(|| format!("the agent `{name}` has no provider"))?;
        let mut spec = self
            .wf
            .spec
            .providers
            .get(provider)
            .cloned()
            .ok_or_else(|| format!("unknown provider `{provider}`"))?;
        if let Some(model) = &agent.front.model {
            spec.model = Some(model.clone());
        }
        Ok((agent, spec))
    }

    /// Runs the producer once.
    // Long (72 lines): the producer call's setup (agent, memory note, prompt, view, provider)
    // reads in the order the call needs it; the call itself is `call_agent`.
    #[allow(clippy::too_many_lines)]
    pub(crate) async fn produce(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        feedback: Option<String>,
    ) -> Result<Produced, String> {
        let step = self.step_spec(unit);
        let agent_name = step.agent.as_deref().unwrap_or_default();
        let (agent, spec) = self.agent(agent_name)?;
        let memory = self
            .memory
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .note_for(&step.id);
        let lines = output_lines(&resolved.outputs, &self.schemas);
        let prompt = ProducerPrompt {
            instructions: &agent.instructions,
            memory,
            feedback,
            mode: self.wf.spec.defaults.feedback,
            task: &resolved.task,
            outputs: &lines,
        }
        .render();
        let env = vec![(
            "RECTIFY_OUTPUTS".to_owned(),
            resolved
                .outputs
                .iter()
                .map(|o| o.rel.clone())
                .collect::<Vec<_>>()
                .join("\n"),
        )];
        let mut context = self.call_context(unit, env, Some(&spec));
        // A command agent works in its own view of the tree (not when its answer is replayed).
        let replayed = self.is_recorded(&unit.key, "producer", record.attempts);
        let view = if spec.kind == ProviderKind::Command && !replayed {
            let view =
                self.tree.view().await.map_err(|e| {
                    format!("the agent's view of the working tree cannot be made: {e}")
                })?;
            context.cwd = view.0.root().to_path_buf();
            Some(view)
        } else {
            None
        };
        let provider = match self.factory.provider(&spec, &context) {
            Ok(p) => p,
            Err(e) => return Ok(Produced::ProviderFailed(e)),
        };
        let request = request(&prompt, agent, context.timeout);
        if spec.kind == ProviderKind::Command || resolved.outputs.is_empty() {
            let mut request = request;
            let schema = resolved
                .answer
                .as_ref()
                .and_then(|(check, _)| answer_schema(check, &self.schemas));
            // A command agent is not sent the schema (its prompt holds the instructions), but
            // its answer is read as it arrives against it all the same.
            let prefix = prefix_checker(schema.as_ref());
            let provider = streaming(provider, prefix.as_ref());
            if spec.kind != ProviderKind::Command {
                request.schema.clone_from(&schema);
            }
            let policy = self.producer_policy(step, resolved);
            let call = AgentCall {
                provider: &provider,
                request: &request,
                view: view.as_ref(),
                policy: &policy,
                prefix: prefix.as_ref(),
            };
            return Ok(self.run_agent(unit, resolved, call, record).await);
        }
        self.write_answers(unit, resolved, &provider, &prompt, request, record)
            .await
    }

    /// How a producer's change set is judged: its outputs and `may_write`, with the step's
    /// confinement (an answer step's agent declares no files: what it changes is applied).
    fn producer_policy(&self, step: &StepSpec, resolved: &Resolved) -> Policy {
        let exact = resolved
            .outputs
            .iter()
            .map(|o| PathBuf::from(&o.rel))
            .collect();
        let confine = step.confine.unwrap_or(self.wf.spec.defaults.confine);
        let confine = if resolved.answer.is_some() {
            Confine::Off
        } else {
            confine
        };
        Policy {
            allowed: Allowed::new(exact, &step.may_write),
            confine,
            refused_is_error: confine == Confine::Strict,
        }
    }

    /// A command agent (or an answer): one call in its own view, whose change set is applied
    /// to the shared tree right after it ends, before the answer is recorded.
    async fn run_agent(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        call: AgentCall<'_>,
        record: &mut StepRecord,
    ) -> Produced {
        let declared: Vec<(String, PathBuf)> = resolved
            .outputs
            .iter()
            .map(|o| (o.rel.clone(), o.abs.clone()))
            .collect();
        let observe = || self.observe_view(&unit.key, call.view, call.policy, &declared);
        let (called, mut problems) = self
            .call_observed(
                &unit.key,
                "producer",
                record.attempts,
                call.provider,
                call.request,
                record,
                Some(&observe),
            )
            .await;
        match called {
            Called::Answer(r) => {
                // Judged like `rectify ask` judges an answer: cut off or refused is an error.
                problems.extend(rectify_loop::finish_problem(&r.finish_reason, &r.text));
                let stopped = why_stopped(&r, call.prefix);
                Produced::Ran {
                    answer: Some(r.text),
                    problems,
                    stopped,
                }
            }
            Called::AgentFailed(d) => {
                problems.push(d);
                Produced::Ran {
                    answer: None,
                    problems,
                    stopped: None,
                }
            }
            Called::ProviderFailed(e) => Produced::ProviderFailed(e),
        }
    }

    /// Applies a finished agent's change set (when it ran in a view) and captures the
    /// declared files and, apart, every other path it changed, as the shared tree now holds
    /// them.
    pub(crate) fn observe_view(
        &self,
        unit: &str,
        view: Option<&(crate::isolate::View, u64)>,
        policy: &Policy,
        declared: &[(String, PathBuf)],
    ) -> Observed {
        let applied = match view {
            Some((view, since)) => self.tree.apply(unit, view, *since, policy),
            None => Applied::default(),
        };
        let mut extra = Vec::new();
        for (rel, _) in &applied.paths {
            if !declared.iter().any(|(p, _)| p == rel)
                && !extra.iter().any(|(p, _): &(String, PathBuf)| p == rel)
                && let Ok(abs) = paths::inside(&self.workdir, rel)
            {
                extra.push((rel.clone(), abs));
            }
        }
        Observed {
            files: self.capture(declared),
            applied: self.capture(&extra),
            problems: applied.problems,
        }
    }

    /// API and embedded providers: one call per declared output; the engine writes each
    /// answer to its path (checked and repaired afterwards like any agent's file).
    async fn write_answers(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        provider: &Arc<dyn Provider>,
        prompt: &str,
        request: Request,
        record: &mut StepRecord,
    ) -> Result<Produced, String> {
        let mut problems = Vec::new();
        let since = self.tree.now();
        for (i, output) in resolved.outputs.iter().enumerate() {
            let mut req = request.clone();
            req.messages = vec![rectify_provider::Message::user(format!(
                "{prompt}\n\nAnswer with the complete content of `{}` only.",
                output.rel
            ))];
            req.schema = answer_schema(&output.check, &self.schemas);
            let prefix = prefix_checker(req.schema.as_ref());
            let provider = streaming(Arc::clone(provider), prefix.as_ref());
            let seq = record.attempts * 100 + u32::try_from(i).unwrap_or(99);
            match self
                .call(&unit.key, "producer", seq, &provider, &req, record)
                .await
            {
                Called::Answer(r) => {
                    problems.extend(rectify_loop::finish_problem(&r.finish_reason, &r.text));
                    let text = strip_fence(&r.text);
                    match self
                        .tree
                        .write(&unit.key, &output.rel, text.as_bytes(), since)
                    {
                        Ok(()) => {}
                        Err(WriteError::Conflict(d)) => problems.push(*d),
                        Err(WriteError::Io(e)) => {
                            return Err(format!("cannot write `{}`: {e}", output.rel));
                        }
                    }
                }
                Called::AgentFailed(d) => problems.push(d),
                Called::ProviderFailed(e) => return Ok(Produced::ProviderFailed(e)),
            }
        }
        Ok(Produced::Ran {
            answer: None,
            problems,
            stopped: None,
        })
    }
}

/// Why a streamed answer was stopped, when it was: `prefix`, the judge that stopped it, run
/// again over its text (`rectify_loop::why_stopped`).
fn why_stopped(
    response: &Response,
    prefix: Option<&Arc<PrefixChecker>>,
) -> Option<Vec<Diagnostic>> {
    let stopped = matches!(&response.finish_reason,
        FinishReason::Other(why) if why == rectify_provider::STOPPED);
    if !stopped {
        return None;
    }
    rectify_loop::why_stopped(prefix?, &response.text)
}

/// The prefix judge of an answer with a JSON Schema (compiled once per call).
fn prefix_checker(schema: Option<&Value>) -> Option<Arc<PrefixChecker>> {
    schema.map(|schema| Arc::new(PrefixChecker::new(schema, PrefixOptions::default())))
}

/// `provider` reading its answers as they arrive when it can stream and the answer has a
/// schema (`prefix`): an answer that can no longer be valid is stopped early (issue 40), its
/// received text recorded and judged like any answer (`rectify_loop::Streaming`).
fn streaming(
    provider: Arc<dyn Provider>,
    prefix: Option<&Arc<PrefixChecker>>,
) -> Arc<dyn Provider> {
    match prefix {
        Some(prefix) if provider.streams() => {
            Arc::new(rectify_loop::Streaming::new(provider, Arc::clone(prefix)))
        }
        _ => provider,
    }
}

/// One agent call: who answers, what is asked, the view it works in and how its changes are
/// judged.
pub(crate) struct AgentCall<'a> {
    pub provider: &'a Arc<dyn Provider>,
    pub request: &'a Request,
    pub view: Option<&'a (crate::isolate::View, u64)>,
    pub policy: &'a Policy,
    /// The prefix judge of the answer's schema, which its answer is read against as it
    /// arrives (also for a command agent, which is not sent the schema).
    pub prefix: Option<&'a Arc<PrefixChecker>>,
}

/// A request for `agent`: the prompt, the call's time limit, the agent's turns and tools.
pub(crate) fn request(prompt: &str, agent: &AgentSpec, timeout: std::time::Duration) -> Request {
    let mut request = Request::new(prompt).with_timeout(timeout);
    request.max_turns = agent.front.max_turns;
    request.allowed_tools.clone_from(&agent.front.tools);
    request
}

/// The schema sent with the request: only for JSON and YAML content (the answer is JSON,
/// which is also YAML).
fn answer_schema(check: &CheckSpec, schemas: &SchemaCache) -> Option<Value> {
    let format = check.format.unwrap_or(Format::Json);
    if !matches!(format, Format::Json | Format::Yaml) {
        return None;
    }
    let path = check.schema.as_ref()?;
    schemas.get(path).ok().map(|s| s.value.clone())
}

fn output_lines(outputs: &[Output], schemas: &SchemaCache) -> Vec<OutputLine> {
    outputs
        .iter()
        .map(|o| {
            let format = o
                .check
                .format
                .or_else(|| Format::from_path(&o.rel))
                .unwrap_or(Format::Json);
            let schema = o.check.schema.as_ref().and_then(|p| schemas.get(p).ok());
            OutputLine {
                path: o.rel.clone(),
                format: format.as_str().to_owned(),
                summary: schema_summary(schema.as_ref().map(|s| &s.value)),
            }
        })
        .collect()
}

/// An answer wholly inside one code fence is the fence's content.
pub(crate) fn strip_fence(text: &str) -> String {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("```")
        && let Some(body) = rest.strip_suffix("```")
        && let Some(nl) = body.find('\n')
        && !body[nl..].contains("```")
    {
        return body[nl + 1..].to_owned();
    }
    let mut out = text.to_owned();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::strip_fence;

    #[test]
    fn a_fenced_answer_is_unwrapped() {
        assert_eq!(strip_fence("```yaml\na: 1\n```"), "a: 1\n");
        assert_eq!(strip_fence("a: 1"), "a: 1\n");
        assert_eq!(
            strip_fence("```\na\n```\ntext\n```\nb\n```"),
            "```\na\n```\ntext\n```\nb\n```\n"
        );
    }
}
