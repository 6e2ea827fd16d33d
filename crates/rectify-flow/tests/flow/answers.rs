//! Answer steps: the agent's answer is read with the step's format and checked; Markdown is
//! checked as a document (headings, sections, length), not forced into JSON.

use rectify_flow::RunStatus;

use crate::support::{Fixture, step};

#[test]
fn a_json_answer_is_repaired_checked_saved_and_readable_by_later_steps() {
    let f = Fixture::new();
    f.file(
        "n.schema.json",
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    f.script(
        "writer",
        r#"case "$RECTIFY_STEP" in
  count) printf 'Sure! ```json\n{"n": 3,}\n```' ;;
  *) cat "$LOG/writer-$n.txt" >/dev/null; echo done ;;
esac"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: count\n    agent: writer\n    prompt: count\n    answer: {{format: json, schema: n.schema.json, save: out/n.json}}\n  - id: use\n    needs: [count]\n    agent: writer\n    prompt: \"n is {{{{ steps.count.output.n }}}}\"\n    answer: {{format: text}}\n",
        f.agents_yaml(&["writer"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert!(step(&s, "count").repairs >= 1);
    let saved: serde_json::Value = serde_json::from_str(&f.read("out/n.json")).unwrap();
    assert_eq!(saved, serde_json::json!({"n": 3}));
    assert!(
        f.prompt("writer", 2).contains("n is 3"),
        "{}",
        f.prompt("writer", 2)
    );
}

#[test]
fn a_markdown_answer_is_checked_as_a_document_and_revised() {
    let f = Fixture::new();
    f.file(
        "plan.rules.yaml",
        "rules:\n  - id: tasks\n    markdown: {heading: \"^### Task \\\\d+:\", min_count: 2}\n  - id: goal\n    markdown: {section: \"^## Goal\", nonempty: true}\n",
    );
    f.script(
        "architect",
        r#"if grep -q 'PREVIOUS VALIDATION FAILED' "$LOG/architect-$n.txt"; then
  printf '# Plan\n\n## Goal\nShip it.\n\n### Task 1: a\n\n### Task 2: b\n'
else
  printf '# Plan\n\n### Task 1: a\n'
fi"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: architect\n    prompt: plan\n    answer: {{format: markdown, rules: plan.rules.yaml, save: plan.md}}\n    on_invalid: {{revise: 3}}\n",
        f.agents_yaml(&["architect"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(
        (step(&s, "plan").attempts, step(&s, "plan").revisions),
        (2, 1)
    );
    let second = f.prompt("architect", 2);
    assert!(second.contains("## PREVIOUS VALIDATION FAILED"), "{second}");
    assert!(
        second.contains("Goal"),
        "the section problem is fed back: {second}"
    );
    assert!(f.read("plan.md").contains("### Task 2: b"));
}

#[test]
fn a_markdown_answer_in_a_markdown_fence_after_a_line_of_prose_is_unwrapped_before_its_checks() {
    let f = Fixture::new();
    f.file(
        "plan.rules.yaml",
        "rules:\n  - id: tasks\n    markdown: {heading: \"^### Task \\\\d+:\", min_count: 2}\n  - id: goal\n    markdown: {section: \"^## Goal\", nonempty: true}\n",
    );
    f.script(
        "architect",
        r#"printf 'Here is the plan:\n\n```markdown\n# Plan\n\n## Goal\nShip it.\n\n```sh\ncargo test\n```\n\n### Task 1: a\n\n### Task 2: b\n```\n'"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: plan\n    agent: architect\n    prompt: plan\n    answer: {{format: markdown, rules: plan.rules.yaml, save: plan.md}}\n    on_invalid: {{revise: 0}}\n",
        f.agents_yaml(&["architect"])
    ));
    let (s, _) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    let plan = step(&s, "plan");
    assert_eq!(
        (plan.attempts, plan.repairs),
        (1, 2),
        "the fence and the prose"
    );
    assert_eq!(
        f.read("plan.md"),
        "# Plan\n\n## Goal\nShip it.\n\n```sh\ncargo test\n```\n\n### Task 1: a\n\n### Task 2: b\n"
    );
}

/// An API model that answers `answers` in turn (text, why it stopped) and keeps each prompt.
struct Scripted {
    answers: std::sync::Mutex<Vec<(&'static str, rectify_provider::FinishReason)>>,
    prompts: std::sync::Mutex<Vec<String>>,
}

impl rectify_provider::Provider for Scripted {
    fn complete<'a>(
        &'a self,
        request: &'a rectify_provider::Request,
    ) -> rectify_provider::CompletionFuture<'a> {
        let prompt = request
            .messages
            .iter()
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
            .join("\n");
        self.prompts.lock().unwrap().push(prompt);
        let (text, finish) = self.answers.lock().unwrap().remove(0);
        Box::pin(async move {
            Ok(rectify_provider::Response {
                text: text.to_owned(),
                finish_reason: finish,
                usage: rectify_provider::Usage::default(),
                model: "scripted".to_owned(),
                latency: std::time::Duration::ZERO,
                transport_retries: 0,
                raw: String::new(),
                notices: Vec::new(),
            })
        })
    }

    fn capabilities(&self) -> rectify_provider::Capabilities {
        rectify_provider::Capabilities::default()
    }

    fn name(&self) -> &'static str {
        "scripted"
    }
}

struct One(std::sync::Arc<Scripted>);

impl rectify_flow::ProviderFactory for One {
    fn provider(
        &self,
        _spec: &rectify_provider::spec::ProviderSpec,
        _context: &rectify_flow::engine::CallContext,
    ) -> Result<std::sync::Arc<dyn rectify_provider::Provider>, rectify_provider::ProviderError>
    {
        Ok(self.0.clone())
    }
}

/// Runs the fixture's workflow with every agent answered by a [`Scripted`] model.
fn run_scripted(
    f: &Fixture,
    answers: Vec<(&'static str, rectify_provider::FinishReason)>,
) -> (rectify_flow::RunSummary, std::sync::Arc<Scripted>) {
    let model = std::sync::Arc::new(Scripted {
        answers: std::sync::Mutex::new(answers),
        prompts: std::sync::Mutex::new(Vec::new()),
    });
    let wf = rectify_flow::load(&f.root.join("workflow.yaml")).unwrap();
    let mut options = rectify_flow::RunOptions::new(&f.work);
    options.factory = std::sync::Arc::new(One(model.clone()));
    let store = std::sync::Arc::new(rectify_flow::Store::in_memory().unwrap());
    let s = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(rectify_flow::run(wf, store, options))
        .unwrap();
    (s, model)
}

/// A workflow with one API-answered JSON step that may revise three times.
fn refusal_fixture() -> Fixture {
    let f = Fixture::new();
    f.file(
        "n.schema.json",
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    f.file("agents/counter.md", "---\nname: counter\n---\nYou count.\n");
    f.workflow(
        "name: t\nproviders:\n  api: {kind: openai, model: m}\nagents:\n  counter: agents/counter.md\ndefaults: {provider: api}\nsteps:\n  - id: count\n    agent: counter\n    prompt: count\n    answer: {format: json, schema: n.schema.json, save: out/n.json}\n    on_invalid: {revise: 3}\n",
    );
    f
}

/// One retry decision (issue 35): a refusal is asked again once, with the refusal as
/// feedback, in a workflow as in `rectify ask`.
#[test]
fn a_refusal_is_asked_again_with_the_refusal_as_feedback() {
    use rectify_provider::FinishReason;
    let f = refusal_fixture();
    let (s, model) = run_scripted(
        &f,
        vec![
            ("I can't help with that.", FinishReason::Refusal),
            ("{\"n\": 4}", FinishReason::Stop),
        ],
    );
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "count").attempts, 2, "{s:#?}");
    let prompts = model.prompts.lock().unwrap();
    assert!(prompts[1].contains("refused"), "{}", prompts[1]);
}

/// One retry decision (issue 35): a second refusal in a row ends the step with revisions
/// left (before, a workflow paid for every revision; `rectify ask` stopped at the second).
#[test]
fn a_second_refusal_in_a_row_ends_the_step_with_revisions_left() {
    use rectify_provider::FinishReason;
    let f = refusal_fixture();
    let (s, model) = run_scripted(
        &f,
        vec![
            ("I can't help with that.", FinishReason::Refusal),
            ("Still no.", FinishReason::Refusal),
            ("{\"n\": 4}", FinishReason::Stop),
        ],
    );
    assert_ne!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(model.prompts.lock().unwrap().len(), 2, "no third call");
    let count = step(&s, "count");
    assert_eq!((count.attempts, count.revisions), (2, 1), "{s:#?}");
    assert!(
        count
            .diagnostics
            .iter()
            .any(|d| d.code == rectify_loop::REFUSED),
        "{s:#?}"
    );
}

/// One judge (issue 35): an answer cut off at the token limit is invalid in a workflow as in
/// `rectify ask`, even when repair could close it (`{"n": 3` → `{"n": 3}`); the step asks
/// again, saying why, and saves the complete answer.
#[test]
fn a_truncated_answer_is_asked_again_even_when_repair_could_close_it() {
    use rectify_provider::FinishReason;
    let f = Fixture::new();
    f.file(
        "n.schema.json",
        r#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    f.file("agents/counter.md", "---\nname: counter\n---\nYou count.\n");
    f.workflow(
        "name: t\nproviders:\n  api: {kind: openai, model: m}\nagents:\n  counter: agents/counter.md\ndefaults: {provider: api}\nsteps:\n  - id: count\n    agent: counter\n    prompt: count\n    answer: {format: json, schema: n.schema.json, save: out/n.json}\n    on_invalid: {revise: 2}\n",
    );
    let (s, model) = run_scripted(
        &f,
        vec![
            ("{\"n\": 3", FinishReason::Length),
            ("{\"n\": 4}", FinishReason::Stop),
        ],
    );
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "count").attempts, 2, "{s:#?}");
    let saved: serde_json::Value = serde_json::from_str(&f.read("out/n.json")).unwrap();
    assert_eq!(saved, serde_json::json!({"n": 4}));
    let prompts = model.prompts.lock().unwrap();
    assert!(
        prompts[1].contains("cut off at the output token limit"),
        "{}",
        prompts[1]
    );
}

/// An API model that streams `answers` in turn, 4 bytes at a time, and stops when the
/// caller's sink says so; it counts the bytes it handed over.
struct Streamed {
    answers: std::sync::Mutex<Vec<String>>,
    sent: std::sync::Mutex<Vec<usize>>,
}

impl Streamed {
    /// The next answer, handed to `sink` piece by piece until it says stop. An answer that
    /// starts with `BREAK:` breaks off, as a dropped connection does, after half of it.
    fn answer(
        &self,
        sink: &mut dyn rectify_provider::StreamSink,
    ) -> Result<rectify_provider::Response, rectify_provider::ProviderError> {
        let answer = self.answers.lock().unwrap().remove(0);
        let (answer, breaks) = match answer.strip_prefix("BREAK:") {
            Some(rest) => (rest.to_owned(), Some(rest.len() / 2)),
            None => (answer, None),
        };
        let mut text = String::new();
        let mut finish = rectify_provider::FinishReason::Stop;
        for piece in answer.as_bytes().chunks(4) {
            if breaks.is_some_and(|at| text.len() >= at) {
                self.sent.lock().unwrap().push(text.len());
                let kind = rectify_provider::ErrorKind::Truncated {
                    message: "the connection was reset".into(),
                };
                return Err(rectify_provider::ProviderError::new("streamed", kind));
            }
            let piece = std::str::from_utf8(piece).unwrap();
            text.push_str(piece);
            if sink.text(piece).is_break() {
                finish = rectify_provider::FinishReason::Other(rectify_provider::STOPPED.into());
                break;
            }
        }
        self.sent.lock().unwrap().push(text.len());
        Ok(rectify_provider::Response {
            text,
            finish_reason: finish,
            usage: rectify_provider::Usage::default(),
            model: "streamed".to_owned(),
            latency: std::time::Duration::ZERO,
            transport_retries: 0,
            raw: String::new(),
            notices: Vec::new(),
        })
    }
}

impl rectify_provider::Provider for Streamed {
    fn complete<'a>(
        &'a self,
        _request: &'a rectify_provider::Request,
    ) -> rectify_provider::CompletionFuture<'a> {
        let response = self.answer(&mut |_: &str| std::ops::ControlFlow::Continue(()));
        Box::pin(async move { response })
    }

    fn complete_streaming<'a>(
        &'a self,
        _request: &'a rectify_provider::Request,
        sink: &'a mut dyn rectify_provider::StreamSink,
    ) -> rectify_provider::CompletionFuture<'a> {
        let response = self.answer(sink);
        Box::pin(async move { response })
    }

    fn streams(&self) -> bool {
        true
    }

    fn capabilities(&self) -> rectify_provider::Capabilities {
        rectify_provider::Capabilities::default()
    }

    fn name(&self) -> &'static str {
        "streamed"
    }
}

struct OneStreamed(std::sync::Arc<Streamed>);

impl rectify_flow::ProviderFactory for OneStreamed {
    fn provider(
        &self,
        _spec: &rectify_provider::spec::ProviderSpec,
        _context: &rectify_flow::engine::CallContext,
    ) -> Result<std::sync::Arc<dyn rectify_provider::Provider>, rectify_provider::ProviderError>
    {
        Ok(self.0.clone())
    }
}

/// Streaming (issue 40): an answer step whose answer goes wrong in its first field is
/// stopped there, recorded with what arrived, and asked again at once; the valid answer is
/// never stopped.
#[test]
fn an_answer_that_goes_wrong_early_is_stopped_and_asked_again() {
    let f = Fixture::new();
    f.file(
        "s.schema.json",
        r#"{"type": "object", "required": ["status", "notes"], "properties": {"status": {"enum": ["open", "closed"]}, "notes": {"type": "array", "items": {"type": "string"}}}}"#,
    );
    f.file("agents/triage.md", "---\nname: triage\n---\nYou triage.\n");
    f.workflow(
        "name: t\nproviders:\n  api: {kind: openai, model: m}\nagents:\n  triage: agents/triage.md\ndefaults: {provider: api}\nsteps:\n  - id: triage\n    agent: triage\n    prompt: triage\n    answer: {format: json, schema: s.schema.json, save: out/s.json}\n    on_invalid: {revise: 2}\n",
    );
    let notes: Vec<String> = (0..200).map(|i| format!("note {i}")).collect();
    let bad = serde_json::json!({"status": "OPENED!", "notes": notes}).to_string();
    let good = serde_json::json!({"status": "open", "notes": notes}).to_string();
    let model = std::sync::Arc::new(Streamed {
        answers: std::sync::Mutex::new(vec![bad.clone(), good.clone()]),
        sent: std::sync::Mutex::new(Vec::new()),
    });
    let wf = rectify_flow::load(&f.root.join("workflow.yaml")).unwrap();
    let mut options = rectify_flow::RunOptions::new(&f.work);
    options.factory = std::sync::Arc::new(OneStreamed(model.clone()));
    let store = std::sync::Arc::new(rectify_flow::Store::in_memory().unwrap());
    let s = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(rectify_flow::run(
            wf,
            std::sync::Arc::clone(&store),
            options,
        ))
        .unwrap();
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "triage").attempts, 2, "{s:#?}");
    let sent = model.sent.lock().unwrap().clone();
    assert!(
        sent[0] < 40,
        "stopped after {} of {} bytes",
        sent[0],
        bad.len()
    );
    assert_eq!(sent[1], good.len(), "the valid answer is read whole");
    let saved: serde_json::Value = serde_json::from_str(&f.read("out/s.json")).unwrap();
    assert_eq!(saved["status"], "open");
    // What arrived of the stopped answer is the recorded attempt.
    let report =
        serde_json::to_string(&rectify_flow::Report::load(&store, &s.run_id).unwrap()).unwrap();
    assert!(report.contains("OPENED!"), "{report}");
    // It was sent back for its status, not for the notes that had not arrived yet.
    assert!(report.contains("schema.enum"), "{report}");
    assert!(!report.contains("schema.required"), "{report}");
}

/// Streaming (issue 40): a stream that breaks mid-way is a transport failure, and what
/// arrived is kept in the store with the call, marked broken (never replayed as an answer).
#[test]
fn what_arrived_of_a_broken_stream_is_kept_with_the_failure() {
    let f = Fixture::new();
    f.file(
        "s.schema.json",
        r#"{"type": "object", "required": ["status", "notes"], "properties": {"status": {"enum": ["open", "closed"]}, "notes": {"type": "array", "items": {"type": "string"}}}}"#,
    );
    f.file("agents/triage.md", "---\nname: triage\n---\nYou triage.\n");
    f.workflow(
        "name: t\nproviders:\n  api: {kind: openai, model: m}\nagents:\n  triage: agents/triage.md\ndefaults: {provider: api}\nsteps:\n  - id: triage\n    agent: triage\n    prompt: triage\n    answer: {format: json, schema: s.schema.json, save: out/s.json}\n",
    );
    let good = serde_json::json!({"status": "open", "notes": ["partly here"]}).to_string();
    let model = std::sync::Arc::new(Streamed {
        answers: std::sync::Mutex::new(vec![format!("BREAK:{good}"), good.clone()]),
        sent: std::sync::Mutex::new(Vec::new()),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = std::sync::Arc::new(rectify_flow::Store::in_memory().unwrap());
    let options = || {
        let mut options = rectify_flow::RunOptions::new(&f.work);
        options.factory = std::sync::Arc::new(OneStreamed(model.clone()));
        options
    };
    let wf = rectify_flow::load(&f.root.join("workflow.yaml")).unwrap();
    let s = rt
        .block_on(rectify_flow::run(
            wf,
            std::sync::Arc::clone(&store),
            options(),
        ))
        .unwrap();
    assert_ne!(s.status, RunStatus::Completed, "{s:#?}");
    let calls = store.calls(&s.run_id).unwrap();
    assert_eq!(calls.len(), 1, "{calls:#?}");
    let half = &good[..model.sent.lock().unwrap()[0]];
    assert_eq!(calls[0].raw, half, "what arrived is kept");
    let broken = calls[0].outcome.broken.as_deref().unwrap();
    assert!(broken.contains("the connection was reset"), "{broken}");
    // A failed run is not resumed; the report shows what arrived with the failure.
    let report =
        serde_json::to_string(&rectify_flow::Report::load(&store, &s.run_id).unwrap()).unwrap();
    assert!(report.contains("provider"), "{report}");
}

/// Streaming with a command agent (issue 40): its stdout is read as it writes it, against the
/// answer's schema (which the agent is not sent); a first answer that goes wrong in its first
/// field is stopped there — the agent never gets past its wait — and the agent is asked again.
#[test]
fn a_command_agent_whose_answer_goes_wrong_early_is_stopped_and_asked_again() {
    let f = Fixture::new();
    f.file(
        "s.schema.json",
        r#"{"type": "object", "required": ["status", "notes"], "properties": {"status": {"enum": ["open", "closed"]}, "notes": {"type": "array", "items": {"type": "string"}}}}"#,
    );
    f.script(
        "triage",
        r#"if [ "$n" = 1 ]; then
  printf '{"status": "OPENED!", '
  sleep 60
  touch "$LOG/waited"
  printf '"notes": ["late"]}'
else
  printf '{"status": "open", "notes": []}'
fi"#,
    );
    f.workflow(&format!(
        "name: t\n{}steps:\n  - id: triage\n    agent: triage\n    prompt: triage\n    answer: {{format: json, schema: s.schema.json, save: out/s.json}}\n    on_invalid: {{revise: 2}}\n",
        f.agents_yaml(&["triage"])
    ));
    let (s, store) = f.run(&[]);
    assert_eq!(s.status, RunStatus::Completed, "{s:#?}");
    assert_eq!(step(&s, "triage").attempts, 2, "{s:#?}");
    assert_eq!(f.calls("triage"), 2);
    assert!(
        !f.log.join("waited").exists(),
        "the first answer was waited out"
    );
    let saved: serde_json::Value = serde_json::from_str(&f.read("out/s.json")).unwrap();
    assert_eq!(saved["status"], "open");
    let report =
        serde_json::to_string(&rectify_flow::Report::load(&store, &s.run_id).unwrap()).unwrap();
    assert!(report.contains("OPENED!"), "{report}");
    assert!(!report.contains("late"), "{report}");
    // Sent back for its status only (the agent is not sent the schema, but was read by it).
    assert!(report.contains("schema.enum"), "{report}");
    assert!(!report.contains("schema.required"), "{report}");
}
