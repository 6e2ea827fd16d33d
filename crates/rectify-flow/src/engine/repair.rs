//! The repair agent (seed 004): gets the problems and the current content of every failing
//! file (both files when a cross-file reference fails), is told to fix only those problems,
//! and may write only those files — anything else it changes is undone.

use std::path::PathBuf;

use rectify_core::Diagnostic;
use rectify_provider::spec::ProviderKind;

use super::call::Called;
use super::check::UnitCheck;
use super::confine::Allowed;
use super::produce::{Resolved, Unit, strip_fence};
use super::prompt::repair_prompt;
use super::tree::{Policy, WriteError};
use super::{Runner, paths};
use crate::store::StepRecord;

impl Runner {
    /// Runs the repair agent once; returns problems seen on the way (the agent failed,
    /// confinement).
    // Long (97 lines): it mirrors `produce` for the repair agent (view, policy, call, what it
    // touched); the shared part with `produce` is known debt (docs/architecture.md).
    #[allow(clippy::too_many_lines)]
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
        let mut context = self.call_context(
            unit,
            vec![("RECTIFY_OUTPUTS".to_owned(), names.join("\n"))],
            Some(&spec),
        );
        let replayed = self.is_recorded(&unit.key, "repair", record.repair_runs);
        let view = if spec.kind == ProviderKind::Command && !replayed {
            let view = self
                .tree
                .view()
                .await
                .map_err(|e| format!("the repair agent's view cannot be made: {e}"))?;
            context.cwd = view.0.root().to_path_buf();
            Some(view)
        } else {
            None
        };
        let provider = self
            .factory
            .provider(&spec, &context)
            .map_err(|e| e.to_string())?;
        let mut request = super::produce::request(&prompt, agent, context.timeout);
        request.max_turns = Some(max_turns);
        let mut problems = Vec::new();
        if spec.kind == ProviderKind::Command {
            // It may write only the failing files; nothing else it changes reaches the tree
            // (a warning: the route goes on with what the files hold).
            let policy = Policy {
                allowed: Allowed::new(names.iter().map(PathBuf::from).collect(), &[]),
                confine: crate::spec::Confine::Strict,
                refused_is_error: false,
            };
            let declared: Vec<(String, PathBuf)> = files
                .iter()
                .filter_map(|(p, _, _)| Some((p.clone(), paths::inside(&self.workdir, p).ok()?)))
                .collect();
            let observe = || self.observe_view(&unit.key, view.as_ref(), &policy, &declared);
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
        let since = self.tree.now();
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
                    paths::inside(&self.workdir, path)?;
                    let text = strip_fence(&r.text);
                    match self.tree.write(&unit.key, path, text.as_bytes(), since) {
                        Ok(()) => {}
                        Err(WriteError::Conflict(d)) => problems.push(*d),
                        Err(WriteError::Io(e)) => {
                            return Err(format!("cannot write `{path}`: {e}"));
                        }
                    }
                }
                Called::AgentFailed(d) => problems.push(d),
                Called::ProviderFailed(e) => {
                    return Err(format!("the repair agent could not run: {e}"));
                }
            }
        }
        Ok(problems)
    }

    /// Whether some output has errors a repair agent could fix (it gets nothing to do when
    /// the only problems are not in a file: conflicts, confinement, a failed agent).
    pub(crate) fn has_failing_files(checked: &UnitCheck) -> bool {
        checked
            .files
            .iter()
            .any(|(path, _, c)| c.errors() > 0 && !path.is_empty())
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
                let content = paths::read_in(&self.workdir, abs, limit)
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
