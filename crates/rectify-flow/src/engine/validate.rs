//! Validators (seed 001; docs/architecture.md, "Validators and verdicts"): agents whose answer ends
//! in a verdict, or commands (exit 0 is PASS). Run one at a time across the whole run. PASS
//! accepts, WARN accepts and records, FAIL re-runs the producer with the findings, no verdict is
//! FAIL.

use std::fmt::Write as _;

use rectify_core::{Diagnostic, Finding, FindingLevel, Location, Verdict};
use rectify_provider::spec::ProviderKind;

use super::Runner;
use super::call::Called;
use super::check::Checked;
use super::check::UnitCheck;
use super::produce::{Resolved, Unit};
use super::prompt::{findings_block, level, located, validator_prompt};
use super::router::{Next, after_fail};
use crate::spec::{ValidateSpec, ValidatorSpec};
use crate::store::{Event, StepRecord};

/// The validators' judgement of one producer run.
pub(crate) enum Judged {
    /// PASS or WARN from every validator.
    Accept,
    /// A FAIL, with the findings block for the producer's next run.
    Revise(String),
    /// A FAIL with no re-run left; the findings as diagnostics.
    Exhausted(Vec<Diagnostic>),
}

/// Most output kept from a command validator.
const TAIL: usize = 2_000;

impl Runner {
    /// The validation settings of a unit: the step's, or for a `foreach` item with
    /// `validation_from_document`, the document's `meta.validation`.
    fn validation(&self, unit: &Unit) -> Option<ValidateSpec> {
        let step = self.step_spec(unit);
        if let Some(v) = self.item_validation(unit) {
            return Some(v);
        }
        step.validate.clone()
    }

    pub(crate) async fn validate_unit(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        checked: &UnitCheck,
    ) -> Result<Judged, String> {
        let Some(spec) = self.validation(unit).filter(|v| !v.validators.is_empty()) else {
            return Ok(Judged::Accept);
        };
        let _turn = self.validators.lock().await;
        let work = describe_work(checked);
        let mut warnings = Vec::new();
        // The unit's verdict is the worst of its validators' (FAIL > WARN > PASS).
        let mut worst = FindingLevel::Pass;
        for validator in &spec.validators {
            self.report(&unit.key, "validate", validator.name());
            let verdict = match validator {
                ValidatorSpec::Agent(name) => {
                    self.agent_verdict(unit, resolved, record, name, &work)
                        .await?
                }
                ValidatorSpec::Command { command } => {
                    self.recorded_command_verdict(unit, record, &validator.name(), command)
                        .await
                }
            };
            match verdict {
                Verdict::Pass => {}
                Verdict::Warn { findings } => {
                    worst = FindingLevel::Warn;
                    warnings.extend(
                        findings
                            .iter()
                            .filter(|f| f.level != FindingLevel::Pass)
                            .map(|f| format!("{}: {}", validator.name(), located(f))),
                    );
                }
                // FAIL, or a verdict this version does not know (counted as FAIL, as a
                // missing one is).
                other => {
                    let findings = match other {
                        Verdict::Fail { findings } => findings,
                        _ => Vec::new(),
                    };
                    return Ok(self.failed(record, &spec, &validator.name(), &findings));
                }
            }
        }
        record.verdict = Some(level(worst).to_owned());
        record.warnings.extend(warnings);
        self.persist(record, Event::Validated);
        Ok(Judged::Accept)
    }

    /// A FAIL from `validator`: recorded, then routed ([`after_fail`]) to a re-run of the
    /// producer with the findings, or to exhaustion.
    fn failed(
        &self,
        record: &mut StepRecord,
        spec: &ValidateSpec,
        validator: &str,
        findings: &[Finding],
    ) -> Judged {
        record.verdict = Some("FAIL".to_owned());
        record.diagnostics = findings_as_diagnostics(validator, findings);
        if after_fail(record, spec.max_validation_attempts) == Next::Revise {
            record.validations += 1;
            self.persist(record, Event::ValidationFailed);
            return Judged::Revise(findings_block(validator, findings));
        }
        self.persist(record, Event::ValidationExhausted);
        Judged::Exhausted(findings_as_diagnostics(validator, findings))
    }

    async fn agent_verdict(
        &self,
        unit: &Unit,
        resolved: &Resolved,
        record: &mut StepRecord,
        name: &str,
        work: &str,
    ) -> Result<Verdict, String> {
        let (agent, spec) = self.agent(name)?;
        let prompt = validator_prompt(&agent.instructions, &unit.key, &resolved.task, work);
        let mut context = self.call_context(unit, Vec::new(), Some(&spec));
        let role = format!("validator:{name}");
        // A command validator looks at the tree in its own view: it judges, and nothing it
        // writes reaches the working tree.
        let replayed = self.is_recorded(&unit.key, &role, record.validations + 1);
        let view = if spec.kind == ProviderKind::Command && !replayed {
            let view = self.validator_view().await?;
            context.cwd = view.0.root().to_path_buf();
            Some(view)
        } else {
            None
        };
        let provider = self
            .factory
            .provider(&spec, &context)
            .map_err(|e| e.to_string())?;
        let request = super::produce::request(&prompt, agent, context.timeout);
        let called = self
            .call(
                &unit.key,
                &role,
                record.validations + 1,
                &provider,
                &request,
                record,
            )
            .await;
        if let Some(view) = &view {
            self.close_validator_view(unit, record, name, view);
        }
        Ok(match called {
            Called::Answer(r) => rectify_loop::parse_verdict(&r.text),
            Called::AgentFailed(d) => fail_with(format!(
                "the validator `{name}` did not finish: {}",
                d.message
            )),
            Called::ProviderFailed(e) => {
                fail_with(format!("the validator `{name}` could not be asked: {e}"))
            }
        })
    }

    /// A view of the tree for a command validator: it judges, and nothing it writes reaches
    /// the working tree.
    async fn validator_view(&self) -> Result<(crate::isolate::View, u64), String> {
        self.tree
            .view()
            .await
            .map_err(|e| format!("the validator's view cannot be made: {e}"))
    }

    /// Ends a validator's view: nothing it changed is applied but scratch (what git ignores:
    /// its logs); what it tried to change is recorded as a warning.
    fn close_validator_view(
        &self,
        unit: &Unit,
        record: &mut StepRecord,
        name: &str,
        (view, since): &(crate::isolate::View, u64),
    ) {
        let policy = super::tree::Policy {
            allowed: super::confine::Allowed::new(Vec::new(), &[]),
            confine: crate::spec::Confine::Strict,
            refused_is_error: false,
        };
        let applied = self.tree.apply(&unit.key, view, *since, &policy);
        record.warnings.extend(applied.problems.iter().map(|d| {
            format!(
                "the validator `{name}` changed files; a validator's changes are not applied: {}",
                d.message
            )
        }));
    }

    /// A command validator's verdict, recorded like an answer (role `validator:NAME`, the
    /// verdict as JSON) so a resumed run does not run the command again.
    async fn recorded_command_verdict(
        &self,
        unit: &Unit,
        record: &mut StepRecord,
        name: &str,
        command: &[String],
    ) -> Verdict {
        let role = format!("validator:{name}");
        let seq = record.validations + 1;
        if let Some(call) = self.take_recorded(&unit.key, &role, seq)
            && let Ok(verdict) = serde_json::from_str::<Verdict>(&call.raw)
        {
            self.report(
                &unit.key,
                "replayed",
                format!("{role} verdict {seq} from the store"),
            );
            return verdict;
        }
        let verdict = self.command_verdict(unit, command).await;
        let call = crate::store::CallRecord {
            step: unit.key.clone(),
            role,
            seq,
            prompt_hash: String::new(),
            raw: serde_json::to_string(&verdict).unwrap_or_default(),
            input_tokens: 0,
            output_tokens: 0,
            outcome: crate::store::CallOutcome::default(),
            at_ms: 0,
        };
        self.stored(&unit.key, self.store.record_call(&self.run_id, &call, &[]));
        verdict
    }

    /// A command validator: no shell, in the working directory, in its own process group
    /// (killed whole when it ends, times out or the run is interrupted; all its output read,
    /// the tail kept); exit 0 is PASS, else FAIL with the output's tail.
    async fn command_verdict(&self, unit: &Unit, command: &[String]) -> Verdict {
        let Some((program, args)) = command.split_first() else {
            return fail_with("a command validator needs a program".to_owned());
        };
        let context = self.call_context(unit, Vec::new(), None);
        let mut cmd = tokio::process::Command::new(program);
        for key in rectify_provider::secret_variables() {
            cmd.env_remove(key);
        }
        cmd.args(args)
            .current_dir(&self.workdir)
            .envs(context.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let run = rectify_provider::command::run_to_end(cmd, context.timeout, TAIL).await;
        let outcome = match run {
            Ok(o) => o,
            Err(e) => return fail_with(format!("`{program}` could not be started: {e}")),
        };
        match outcome.status {
            Some(status) if status.success() => Verdict::Pass,
            Some(status) => {
                let code = status
                    .code()
                    .map_or("a signal".to_owned(), |c| format!("status {c}"));
                fail_with(format!(
                    "`{}` exited with {code}:\n{}",
                    command.join(" "),
                    tail(&outcome.output_tail)
                ))
            }
            None => fail_with(format!(
                "`{}` did not finish within {:.0} s and was stopped",
                command.join(" "),
                context.timeout.as_secs_f64()
            )),
        }
    }
}

fn tail(text: &str) -> &str {
    let text = text.trim_end();
    let start = text.len().saturating_sub(TAIL);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    &text[start..]
}

fn fail_with(text: String) -> Verdict {
    Verdict::Fail {
        findings: vec![Finding {
            level: FindingLevel::Fail,
            text,
            file: None,
            line: None,
        }],
    }
}

fn findings_as_diagnostics(validator: &str, findings: &[Finding]) -> Vec<Diagnostic> {
    findings
        .iter()
        .filter(|f| f.level == FindingLevel::Fail)
        .map(|f| {
            Diagnostic::error("verdict.fail", Location::root(), located(f))
                .source(format!("validator:{validator}"))
        })
        .collect()
}

/// What the validator is shown: each output's content (bounded), or the answer.
fn describe_work(checked: &UnitCheck) -> String {
    const MAX: usize = 20_000;
    let mut out = String::new();
    for (path, text, c) in &checked.files {
        let text = text.as_deref().unwrap_or("");
        let shown = if text.len() > MAX {
            let end = (0..=MAX)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}\n[... {} more bytes]", &text[..end], text.len() - end)
        } else {
            text.to_owned()
        };
        let title = if path.is_empty() {
            "The answer".to_owned()
        } else {
            format!("`{path}`")
        };
        let _ = write!(out, "{title}:\n\n```\n{}\n```\n\n", shown.trim_end());
        let _: &Checked = c;
    }
    if out.is_empty() {
        out.push_str("The step changed the working directory; inspect it there.");
    }
    out
}
