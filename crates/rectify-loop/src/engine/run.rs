//! One run of a task: the attempt loop over the provider rungs.

use std::sync::Arc;

use rectify_provider::{Capabilities, FinishReason, ProviderError, Request, Response};
use tracing::Instrument;

use super::{Engine, Rung};
use crate::budget::Spend;
use crate::evaluate::{Accept, evaluate};
use crate::events::{Event, EventKind};
use crate::feedback::{Feedback, build_messages};
use crate::memory::ErrorMemory;
use crate::outcome::{Attempt, Candidate, Escalation, Ledger, Limit, Outcome};
use crate::retry::{self, Judged, Next, Tries};
use crate::task::Task;

/// What one judged answer leaves the rung to do.
#[allow(clippy::large_enum_variant)]
enum Turn<T> {
    /// The run is over (valid or refused).
    Done(Outcome<T>),
    /// Ask again on this rung.
    Again,
    /// The rung has no attempt left.
    Exhausted,
}

/// How one rung ended (one per rung, so its size does not matter).
#[allow(clippy::large_enum_variant)]
enum RungEnd<T> {
    /// The run is over (valid or refused).
    Done(Outcome<T>),
    /// The rung used its attempts.
    Exhausted,
    /// The provider failed after its transport retries.
    Failed(ProviderError),
    /// A budget stopped the run.
    Budget(Limit),
}

pub(super) struct Run<'a, T> {
    engine: &'a Engine,
    task: &'a Task,
    accept: &'a dyn Accept<T>,
    memory: Option<&'a mut ErrorMemory>,
    memory_note: Option<String>,
    repair: rectify_judge::Validator,
    ledger: Ledger,
    spend: Spend,
}

impl<'a, T> Run<'a, T> {
    pub(super) fn new(
        engine: &'a Engine,
        task: &'a Task,
        accept: &'a dyn Accept<T>,
        memory: Option<&'a mut ErrorMemory>,
    ) -> Run<'a, T> {
        let memory_note = memory.as_ref().and_then(|m| m.note_for(&task.step));
        let repair = task.judge(if engine.config.allow_unsafe_repairs {
            rectify_judge::RepairPolicy::Unsafe
        } else {
            rectify_judge::RepairPolicy::Safe
        });
        Run {
            engine,
            task,
            accept,
            memory,
            memory_note,
            repair,
            ledger: Ledger::default(),
            spend: Spend::start(),
        }
    }

    pub(super) async fn go(mut self) -> Outcome<T> {
        let span = tracing::info_span!("rectify_loop", step = %self.task.step);
        async move {
            self.emit(|| EventKind::RunStart {
                providers: self
                    .engine
                    .rungs
                    .iter()
                    .map(|r| r.provider.name().to_owned())
                    .collect(),
                max_attempts: self.engine.config.max_attempts,
                feedback: self.engine.config.feedback,
            });
            let mut last_error = None;
            for (index, rung) in self.engine.rungs.iter().enumerate() {
                last_error = None;
                match self.rung(index, rung).await {
                    RungEnd::Done(outcome) => return self.finish(outcome),
                    RungEnd::Exhausted => {}
                    RungEnd::Failed(error) => last_error = Some(error),
                    RungEnd::Budget(limit) => {
                        self.emit(|| EventKind::BudgetStop {
                            limit: limit.clone(),
                        });
                        let outcome = self.exhausted(limit);
                        return self.finish(outcome);
                    }
                }
            }
            let outcome = if let Some(error) = last_error {
                self.provider_failed(error)
            } else if self.last_refused() {
                // Refused on the last attempt left: not re-asked, and not "exhausted".
                self.refused_last()
            } else {
                let made = self.ledger.totals.attempts;
                self.exhausted(Limit::Attempts { made })
            };
            self.finish(outcome)
        }
        .instrument(span)
        .await
    }

    async fn rung(&mut self, index: usize, rung: &Rung) -> RungEnd<T> {
        let max = rung
            .max_attempts
            .unwrap_or(self.engine.config.max_attempts)
            .max(1);
        for made in 1..=max {
            if let Some(limit) = self.spend.check(&self.engine.config.budget) {
                return RungEnd::Budget(limit);
            }
            // Asked each time: a provider may fall back to weaker structured output mid-run.
            let request = self.request(&rung.provider.capabilities());
            let number = self.ledger.totals.attempts + 1;
            let provider = rung.provider.name();
            tracing::info!(attempt = number, provider, "attempt start");
            self.emit(|| EventKind::AttemptStart {
                attempt: number,
                rung: index,
                provider: provider.to_owned(),
                messages: request.messages.len(),
            });
            let span = tracing::info_span!("attempt", attempt = number, provider);
            match rung.provider.complete(&request).instrument(span).await {
                Ok(response) => {
                    let tries = Tries {
                        made,
                        allowed: max,
                        refused_before: self.last_refused(),
                    };
                    let called = (number, index, provider, request.temperature);
                    match self.judge(called, response, tries) {
                        Turn::Done(outcome) => return RungEnd::Done(outcome),
                        Turn::Again => {}
                        Turn::Exhausted => return RungEnd::Exhausted,
                    }
                }
                Err(error) => {
                    tracing::warn!(provider, error = %error, "provider failed");
                    if let Some(text) = &error.received {
                        let called = (number, index, provider, request.temperature);
                        self.record_broken(called, text, &error);
                    }
                    self.emit(|| EventKind::ProviderError {
                        rung: index,
                        error: error.clone(),
                    });
                    self.ledger.push_error(error.clone());
                    return RungEnd::Failed(error);
                }
            }
        }
        RungEnd::Exhausted
    }

    fn request(&self, caps: &Capabilities) -> Request {
        let mut request = self.task.template.clone();
        request.messages = build_messages(
            self.task,
            self.engine.config.feedback,
            caps,
            self.memory_note.as_deref(),
            &self.ledger.attempts,
        );
        if let Some(schema) = self.task.schema_value() {
            request.schema = Some(schema.clone());
            request.json = true;
        }
        if !self.ledger.attempts.is_empty()
            && let Some(floor) = self.engine.config.retry_temperature
        {
            request.temperature = Some(request.temperature.map_or(floor, |t| t.max(floor)));
        }
        request.feedback = self.ledger.attempts.last().and_then(|a| a.feedback.clone());
        if let Some(left) = self.spend.remaining(&self.engine.config.budget) {
            request.timeout = Some(request.timeout.map_or(left, |t| t.min(left)));
        }
        request
    }

    /// Judges an answer and asks [`retry::next`] what comes after it (the decision every
    /// workflow unit takes too).
    fn judge(
        &mut self,
        (number, rung, provider, temperature): (u32, usize, &str, Option<f64>),
        response: Response,
        tries: Tries,
    ) -> Turn<T> {
        let mut report = evaluate(&self.repair, &response.text, &response.finish_reason);
        if matches!(&response.finish_reason, FinishReason::Other(why) if why == rectify_provider::STOPPED)
        {
            // The judge that stopped it: the engine's (`Engine::streaming`), else the
            // task's own (a `Streaming` rung built by hand).
            let checker = self.engine.prefix.clone().unwrap_or_else(|| {
                Arc::new(
                    self.task
                        .prefix_checker(self.engine.config.allow_unsafe_repairs),
                )
            });
            crate::stream::keep_why_stopped(&mut report, &checker, &response.text);
        }
        let cost = self.engine.pricing.cost(&response.usage, &response.model);
        let mut attempt = Attempt {
            number,
            rung,
            provider: provider.to_owned(),
            model: response.model,
            temperature,
            raw: response.text,
            finish_reason: response.finish_reason,
            report,
            usage: response.usage,
            cost,
            latency: response.latency,
            transport_retries: response.transport_retries,
            feedback: None,
            notices: response.notices,
        };
        let accepted = self.accept_value(&mut attempt);
        let judged = match (&accepted, &attempt.finish_reason) {
            (Some(_), _) => Judged::Valid,
            (None, FinishReason::Refusal) => Judged::Refused,
            (None, _) => Judged::Invalid,
        };
        self.spend.record(&attempt);
        self.attempt_events(&attempt);
        if let Some(value) = accepted {
            return Turn::Done(self.valid(value, attempt));
        }
        let next = retry::next(tries, judged);
        if next == Next::Refused {
            // Refused again: ends the run (docs/architecture.md, "The path of one answer").
            self.ledger.push(attempt);
            return Turn::Done(self.refused_last());
        }
        self.reject(&mut attempt);
        self.ledger.push(attempt);
        if next == Next::Retry {
            Turn::Again
        } else {
            Turn::Exhausted
        }
    }

    /// Records what arrived of a stream that broke as an attempt (raw text, judged, the
    /// error as its notice); the rung still fails with the error.
    fn record_broken(
        &mut self,
        (number, rung, provider, temperature): (u32, usize, &str, Option<f64>),
        text: &str,
        error: &ProviderError,
    ) {
        let finish_reason = FinishReason::Other(rectify_provider::BROKEN.to_owned());
        let mut report = evaluate(&self.repair, text, &finish_reason);
        // Whatever repair made of it, the rest of the answer is missing.
        report.extend(vec![
            rectify_core::Diagnostic::error(
                crate::TRUNCATED,
                rectify_core::Location::root(),
                format!("the stream broke after {} bytes", text.len()),
            )
            .expected("a complete answer")
            .source("provider"),
        ]);
        let attempt = Attempt {
            number,
            rung,
            provider: provider.to_owned(),
            model: String::new(),
            temperature,
            raw: text.to_owned(),
            finish_reason,
            report,
            usage: rectify_provider::Usage::default(),
            cost: None,
            latency: error.elapsed,
            // Counted once, with the error.
            transport_retries: 0,
            feedback: None,
            notices: vec![format!(
                "the stream broke after {} bytes: {}",
                text.len(),
                error.kind
            )],
        };
        self.attempt_events(&attempt);
        self.ledger.push(attempt);
    }

    /// Whether the latest answer so far (on any rung) was a refusal.
    fn last_refused(&self) -> bool {
        self.ledger
            .attempts
            .last()
            .is_some_and(|a| a.finish_reason == FinishReason::Refusal)
    }

    /// The accepted value, moved out of the attempt's report (the outcome carries it).
    fn accept_value(&self, attempt: &mut Attempt) -> Option<T> {
        if !attempt.report.valid {
            return None;
        }
        let value = attempt.report.value.take()?;
        match self.accept.accept(value) {
            Ok(typed) => Some(typed),
            Err((value, diagnostics)) => {
                attempt.report.value = Some(value);
                attempt.report.extend(diagnostics);
                None
            }
        }
    }

    fn reject(&mut self, attempt: &mut Attempt) {
        if let Some(memory) = self.memory.as_deref_mut() {
            memory.record(&self.task.step, &attempt.report.diagnostics);
        }
        let config = &self.engine.config;
        let feedback = Feedback::from_diagnostics(&attempt.report.diagnostics, &config.limits);
        attempt.feedback = Some(feedback.render(config.feedback));
    }

    fn valid(&mut self, value: T, attempt: Attempt) -> Outcome<T> {
        if let Some(memory) = self.memory.as_deref_mut() {
            memory.clear_step(&self.task.step);
        }
        let warnings = attempt.report.diagnostics.clone();
        let repairs = attempt.report.repairs.clone();
        self.ledger.push(attempt);
        Outcome::Valid {
            value,
            warnings,
            repairs,
            ledger: std::mem::take(&mut self.ledger),
        }
    }

    /// The run ends refused, with the last attempt's text as the message.
    fn refused_last(&mut self) -> Outcome<T> {
        let raw = self.ledger.attempts.last().map_or("", |a| a.raw.as_str());
        let message = if raw.trim().is_empty() {
            "the model refused to answer".to_owned()
        } else {
            raw.to_owned()
        };
        Outcome::Refused {
            message,
            ledger: std::mem::take(&mut self.ledger),
        }
    }

    fn exhausted(&mut self, limit: Limit) -> Outcome<T> {
        let best = self.ledger.best().map(Candidate::of);
        let diagnostics = best
            .as_ref()
            .map(|b| b.diagnostics.clone())
            .unwrap_or_default();
        let escalation = Escalation {
            step: self.task.step.clone(),
            reason: limit.to_string(),
            prompt: self.task.prompt.clone(),
            system: self.task.system.clone(),
            schema: self.task.schema_value().cloned(),
            candidate: best.as_ref().and_then(|b| b.value.clone()),
            errors: diagnostics
                .iter()
                .filter(|d| d.is_error())
                .cloned()
                .collect(),
        };
        Outcome::Exhausted {
            best,
            diagnostics,
            escalation,
            limit,
            ledger: std::mem::take(&mut self.ledger),
        }
    }

    fn provider_failed(&mut self, error: ProviderError) -> Outcome<T> {
        Outcome::ProviderFailed {
            error,
            best: self.ledger.best().map(Candidate::of),
            ledger: std::mem::take(&mut self.ledger),
        }
    }

    fn finish(&self, mut outcome: Outcome<T>) -> Outcome<T> {
        let elapsed = self.spend.elapsed();
        let ledger = match &mut outcome {
            Outcome::Valid { ledger, .. }
            | Outcome::Exhausted { ledger, .. }
            | Outcome::Refused { ledger, .. }
            | Outcome::ProviderFailed { ledger, .. } => ledger,
        };
        ledger.totals.elapsed = elapsed;
        let totals = ledger.totals.clone();
        tracing::info!(
            status = outcome.status(),
            attempts = totals.attempts,
            tokens = totals.usage.total(),
            "run end"
        );
        self.emit(|| EventKind::Outcome {
            status: outcome.status().to_owned(),
            attempts: totals.attempts,
            usage: totals.usage,
            cost: totals.cost,
        });
        outcome
    }

    fn attempt_events(&self, attempt: &Attempt) {
        for message in &attempt.notices {
            tracing::warn!(attempt = attempt.number, provider = %attempt.provider, %message, "provider notice");
            self.emit(|| EventKind::ProviderNotice {
                attempt: attempt.number,
                provider: attempt.provider.clone(),
                message: message.clone(),
            });
        }
        let report = &attempt.report;
        let errors = report.error_count();
        let warnings = report.diagnostics.len() - errors;
        tracing::info!(
            attempt = attempt.number,
            valid = report.valid,
            errors,
            warnings,
            repairs = report.repairs.len(),
            input_tokens = attempt.usage.input_tokens,
            output_tokens = attempt.usage.output_tokens,
            transport_retries = attempt.transport_retries,
            "attempt end"
        );
        for d in &report.diagnostics {
            tracing::debug!(attempt = attempt.number, code = %d.code, path = %d.location.path, message = %d.message, "diagnostic");
        }
        if !report.repairs.is_empty() {
            self.emit(|| EventKind::Repairs {
                attempt: attempt.number,
                repairs: report.repairs.clone(),
            });
        }
        if !report.diagnostics.is_empty() {
            self.emit(|| EventKind::Diagnostics {
                attempt: attempt.number,
                diagnostics: report.diagnostics.clone(),
            });
        }
        self.emit(|| EventKind::AttemptEnd {
            attempt: attempt.number,
            provider: attempt.provider.clone(),
            model: attempt.model.clone(),
            finish_reason: attempt.finish_reason.clone(),
            valid: report.valid,
            errors,
            warnings,
            usage: attempt.usage,
            cost: attempt.cost,
            latency: attempt.latency,
            transport_retries: attempt.transport_retries,
        });
    }

    fn emit(&self, kind: impl FnOnce() -> EventKind) {
        if self.engine.sinks.is_empty() {
            return;
        }
        let event = Event {
            step: self.task.step.clone(),
            elapsed: self.spend.elapsed(),
            kind: kind(),
        };
        for sink in &self.engine.sinks {
            sink.emit(&event);
        }
    }
}
