//! Running the producer of a step: the agent writes its files (a command agent in the working
//! directory), or answers, and for API and embedded providers the engine writes each answer
//! to its declared path.

use std::path::PathBuf;
use std::sync::Arc;

use rectify_core::{Diagnostic, Format};
use rectify_provider::spec::{ProviderKind, ProviderSpec};
use rectify_provider::{Provider, ProviderError, Request};
use serde_json::Value;

use super::call::{Called, Observed};
use super::check::{CheckSpec, SchemaCache, schema_summary};
use super::confine::{Allowed, Snapshot};
use super::prompt::{OutputLine, ProducerPrompt};
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
        let context = self.call_context(step, env);
        let provider = match self.factory.provider(&spec, &context) {
            Ok(p) => p,
            Err(e) => return Ok(Produced::ProviderFailed(e)),
        };
        let request = request(&prompt, agent, context.timeout);
        if spec.kind == ProviderKind::Command || resolved.outputs.is_empty() {
            let mut request = request;
            if let Some((check, _)) = &resolved.answer
                && spec.kind != ProviderKind::Command
            {
                request.schema = answer_schema(check, &self.schemas);
            }
            return Ok(self
                .run_agent(unit, step, resolved, &provider, &request, record)
                .await);
        }
        self.write_answers(unit, resolved, &provider, &prompt, request, record)
            .await
    }

    /// What a unit's agent may change: its outputs and `may_write`, and what every unit running
    /// beside it declared (their writes are theirs) — every unit running since `since` (the
    /// clock when the agent's snapshot was taken), including those that finished meanwhile.
    fn allowed(&self, resolved: &Resolved, may_write: &[String], since: u64) -> Allowed {
        let mut exact: Vec<PathBuf> = resolved
            .outputs
            .iter()
            .map(|o| PathBuf::from(&o.rel))
            .collect();
        let mut globs = may_write.to_vec();
        let claimed = self
            .claimed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for ((paths, patterns), _) in claimed
            .values()
            .filter(|(_, ended)| ended.is_none_or(|t| t >= since))
        {
            exact.extend(paths.iter().cloned());
            globs.extend(patterns.iter().cloned());
        }
        Allowed::new(exact, &globs)
    }

    /// A command agent (or an answer): one call, with confinement around it.
    async fn run_agent(
        &self,
        unit: &Unit,
        step: &StepSpec,
        resolved: &Resolved,
        provider: &Arc<dyn Provider>,
        request: &Request,
        record: &mut StepRecord,
    ) -> Produced {
        let confine = step.confine.unwrap_or(self.wf.spec.defaults.confine);
        let watch = confine != Confine::Off
            && resolved.answer.is_none()
            && !self.is_recorded(&unit.key, "producer", record.attempts);
        let since = self.claim_clock.load(std::sync::atomic::Ordering::SeqCst);
        let before = watch.then(|| Snapshot::take(&self.workdir, confine == Confine::Strict));
        let declared: Vec<(String, PathBuf)> = resolved
            .outputs
            .iter()
            .map(|o| (o.rel.clone(), o.abs.clone()))
            .collect();
        let observe = || Observed {
            files: self.capture(&declared),
            problems: before.as_ref().map_or_else(Vec::new, |before| {
                let after = Snapshot::take(&self.workdir, false);
                let allowed = self.allowed(resolved, &step.may_write, since);
                before.confine(&after, &self.workdir, &allowed, confine == Confine::Strict)
            }),
        };
        let (called, mut problems) = self
            .call_observed(
                &unit.key,
                "producer",
                record.attempts,
                provider,
                request,
                record,
                Some(&observe),
            )
            .await;
        match called {
            Called::Answer(r) => Produced::Ran {
                answer: Some(r.text),
                problems,
            },
            Called::AgentFailed(d) => {
                problems.push(d);
                Produced::Ran {
                    answer: None,
                    problems,
                }
            }
            Called::ProviderFailed(e) => Produced::ProviderFailed(e),
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
        for (i, output) in resolved.outputs.iter().enumerate() {
            let mut req = request.clone();
            req.messages = vec![rectify_provider::Message::user(format!(
                "{prompt}\n\nAnswer with the complete content of `{}` only.",
                output.rel
            ))];
            req.schema = answer_schema(&output.check, &self.schemas);
            let seq = record.attempts * 100 + u32::try_from(i).unwrap_or(99);
            match self
                .call(&unit.key, "producer", seq, provider, &req, record)
                .await
            {
                Called::Answer(r) => {
                    let text = strip_fence(&r.text);
                    if let Err(e) = paths::write_atomic(&output.abs, text.as_bytes()) {
                        return Err(format!("cannot write `{}`: {e}", output.rel));
                    }
                }
                Called::AgentFailed(d) => problems.push(d),
                Called::ProviderFailed(e) => return Ok(Produced::ProviderFailed(e)),
            }
        }
        Ok(Produced::Ran {
            answer: None,
            problems,
        })
    }
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
