//! The repair agent (seed 004): gets the problems and the current content of every failing
//! file (both files when a cross-file reference fails), is told to fix only those problems,
//! and may write only those files — anything else it changes is undone.

use std::path::PathBuf;

use rectify_core::Diagnostic;
use rectify_provider::spec::ProviderKind;

use super::call::{Called, Observed};
use super::confine::{Allowed, Snapshot};
use super::produce::{Resolved, Unit, strip_fence};
use super::prompt::repair_prompt;
use super::step::UnitCheck;
use super::{Runner, paths};
use crate::store::StepRecord;

impl Runner {
    /// Runs the repair agent once; returns problems seen on the way (the agent failed,
    /// confinement).
    pub(crate) async fn repair_agent(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        repairer: &str,
        max_turns: u32,
        checked: &UnitCheck,
    ) -> Result<Vec<Diagnostic>, String> {
        let files = self.failing_files(resolved, checked);
        let (agent, spec) = self.agent(repairer)?;
        let prompt = repair_prompt(&agent.instructions, &files);
        let names: Vec<String> = files.iter().map(|(p, _, _)| p.clone()).collect();
        let step = self.step_spec(unit);
        let context =
            self.call_context(step, vec![("RECTIFY_OUTPUTS".to_owned(), names.join("\n"))]);
        let provider = self
            .factory
            .provider(&spec, &context)
            .map_err(|e| e.to_string())?;
        let mut request = super::produce::request(&prompt, agent, context.timeout);
        request.max_turns = Some(max_turns);
        let mut problems = Vec::new();
        if spec.kind == ProviderKind::Command {
            let replayed = self.is_recorded(&unit.key, "repair", record.repair_runs);
            let before = (!replayed).then(|| Snapshot::take(&self.workdir, true));
            let allowed = Allowed::new(names.iter().map(PathBuf::from).collect(), &[]);
            let declared: Vec<(String, PathBuf)> = files
                .iter()
                .filter_map(|(p, _, _)| Some((p.clone(), paths::inside(&self.workdir, p).ok()?)))
                .collect();
            let observe = || Observed {
                files: self.capture(&declared),
                problems: before.as_ref().map_or_else(Vec::new, |before| {
                    let after = Snapshot::take(&self.workdir, false);
                    before.confine(&after, &self.workdir, &allowed, true)
                }),
            };
            let (called, seen) = self
                .call_observed(
                    &unit.key,
                    "repair",
                    record.repair_runs,
                    &provider,
                    &request,
                    record,
                    Some(&observe),
                )
                .await;
            problems.extend(seen);
            match called {
                Called::Answer(_) => {}
                Called::AgentFailed(d) => problems.push(d),
                Called::ProviderFailed(e) => {
                    return Err(format!("the repair agent could not run: {e}"));
                }
            }
            return Ok(problems);
        }
        for (path, _, _) in &files {
            let mut req = request.clone();
            req.messages = vec![rectify_provider::Message::user(format!(
                "{prompt}\n\nAnswer with the complete corrected content of `{path}` only."
            ))];
            match self
                .call(
                    &unit.key,
                    "repair",
                    record.repair_runs,
                    &provider,
                    &req,
                    record,
                )
                .await
            {
                Called::Answer(r) => {
                    let abs = paths::inside(&self.workdir, path)?;
                    paths::write_atomic(&abs, strip_fence(&r.text).as_bytes())
                        .map_err(|e| format!("cannot write `{path}`: {e}"))?;
                }
                Called::AgentFailed(d) => problems.push(d),
                Called::ProviderFailed(e) => {
                    return Err(format!("the repair agent could not run: {e}"));
                }
            }
        }
        Ok(problems)
    }

    /// Every output with errors, with its content and problems; and for a failing
    /// cross-document rule, the referenced documents too.
    fn failing_files(
        &self,
        resolved: &Resolved,
        checked: &UnitCheck,
    ) -> Vec<(String, String, Vec<Diagnostic>)> {
        let mut files: Vec<(String, String, Vec<Diagnostic>)> = Vec::new();
        let limit = self.wf.spec.defaults.max_output_bytes;
        for (i, (path, text, c)) in checked.files.iter().enumerate() {
            if c.errors() == 0 || path.is_empty() {
                continue;
            }
            let errors: Vec<Diagnostic> = c
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .cloned()
                .collect();
            files.push((
                path.clone(),
                text.clone().unwrap_or_default(),
                errors.clone(),
            ));
            let cross = errors
                .iter()
                .any(|d| d.code.starts_with("rule.ref") || d.code == "flow.reference");
            let Some(output) = resolved.outputs.get(i) else {
                continue;
            };
            if !cross {
                continue;
            }
            for abs in output.check.refs.values() {
                let Ok(rel) = abs.strip_prefix(&self.workdir) else {
                    continue;
                };
                let rel = rel.display().to_string();
                if files.iter().any(|(p, _, _)| *p == rel) {
                    continue;
                }
                let content = paths::read_bounded(abs, limit)
                    .ok()
                    .flatten()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                files.push((rel, content, Vec::new()));
            }
        }
        files
    }
}
