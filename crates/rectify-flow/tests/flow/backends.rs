//! The in-memory store answers as the SQLite store does: random sequences of changes are
//! applied to both, and after each one every read of both must agree (times aside: each store
//! stamps its own clock).

use std::sync::Arc;

use proptest::prelude::*;
use rectify_core::{Diagnostic, Location};
use rectify_flow::store::{
    CallOutcome, CallRecord, Event, RunRecord, RunStatus, StepRecord, StepStatus, StepStatusField,
    Store, WaitRecord,
};

const RUNS: [&str; 3] = ["run-a", "run-b", "run-c"];
const STEPS: [&str; 3] = ["plan", "code", "implement[T1]"];
const EVENTS: [Event; 5] = [
    Event::Started,
    Event::Attempt,
    Event::Revise,
    Event::Done,
    Event::Failed,
];

#[derive(Clone, Debug)]
enum Op {
    Create(usize, i64),
    Status(usize, u8),
    Memory(usize, String),
    Step(usize, usize, u32, u8, usize, bool),
    Pending(usize, Vec<usize>),
    Call(usize, usize, String, Vec<(usize, Vec<u8>)>),
    Artifact(usize, usize, Vec<u8>),
    Wait(usize, usize, bool),
    Resolve(usize, usize),
    Decide(usize, usize, u32, u8, bool),
    Event(usize, usize),
    TakeLease(usize, bool),
    Heartbeat(usize),
    Release(usize, u8),
    Prune(bool),
}

fn op() -> impl Strategy<Value = Op> {
    let run = 0..RUNS.len();
    let step = 0..STEPS.len();
    let bytes = proptest::collection::vec(0u8..4, 0..3);
    prop_oneof![
        3 => (run.clone(), 0i64..3).prop_map(|(r, t)| Op::Create(r, 1_000 + t)),
        1 => (run.clone(), 0u8..5).prop_map(|(r, s)| Op::Status(r, s)),
        1 => (run.clone(), "[a-zé]{0,4}").prop_map(|(r, m)| Op::Memory(r, m)),
        4 => (run.clone(), step.clone(), 0u32..4, 0u8..4, 0..EVENTS.len(), any::<bool>())
            .prop_map(|(r, s, a, st, e, d)| Op::Step(r, s, a, st, e, d)),
        1 => (run.clone(), proptest::collection::vec(step.clone(), 0..4))
            .prop_map(|(r, s)| Op::Pending(r, s)),
        3 => (run.clone(), step.clone(), "[a-z{}\" ]{0,6}", proptest::collection::vec((0usize..2, bytes.clone()), 0..3))
            .prop_map(|(r, s, raw, f)| Op::Call(r, s, raw, f)),
        1 => (run.clone(), step.clone(), bytes).prop_map(|(r, s, b)| Op::Artifact(r, s, b)),
        1 => (run.clone(), step.clone(), any::<bool>()).prop_map(|(r, s, h)| Op::Wait(r, s, h)),
        1 => (run.clone(), step.clone()).prop_map(|(r, s)| Op::Resolve(r, s)),
        1 => (run.clone(), step.clone(), 0u32..4, 0u8..4, any::<bool>())
            .prop_map(|(r, s, a, st, h)| Op::Decide(r, s, a, st, h)),
        1 => (run.clone(), step).prop_map(|(r, s)| Op::Event(r, s)),
        1 => (run.clone(), any::<bool>()).prop_map(|(r, e)| Op::TakeLease(r, e)),
        1 => run.clone().prop_map(Op::Heartbeat),
        1 => (run, 0u8..5).prop_map(|(r, s)| Op::Release(r, s)),
        1 => any::<bool>().prop_map(Op::Prune),
    ]
}

fn status(n: u8) -> RunStatus {
    [
        RunStatus::Running,
        RunStatus::Waiting,
        RunStatus::Completed,
        RunStatus::Failed,
        RunStatus::Interrupted,
    ][usize::from(n % 5)]
}

fn step_record(id: &str, attempts: u32, status: u8, diagnostics: bool) -> StepRecord {
    let statuses = [
        StepStatus::Running,
        StepStatus::Done,
        StepStatus::DoneWithWarnings,
        StepStatus::Failed,
    ];
    StepRecord {
        id: id.to_owned(),
        status: StepStatusField(statuses[usize::from(status % 4)]),
        attempts,
        revisions: attempts / 2,
        verdict: (status == 2).then(|| "WARN".to_owned()),
        warnings: if status == 2 {
            vec!["a finding".to_owned()]
        } else {
            Vec::new()
        },
        diagnostics: if diagnostics {
            vec![
                Diagnostic::error("schema.required", Location::root(), "missing `n`").expected("n"),
            ]
        } else {
            Vec::new()
        },
        input_tokens: u64::from(attempts) * 10,
        output_tokens: 7,
        cost: (attempts > 1).then_some(0.25),
        output: (status == 1).then(|| serde_json::json!({"n": attempts, "x": 1.5})),
        started_ms: Some(5),
        ended_ms: (status == 1).then_some(9),
        ..StepRecord::default()
    }
}

/// Applies one change; the result reduced to what both stores must agree on.
fn apply(store: &Store, op: &Op) -> String {
    match op {
        Op::Create(r, t) => {
            let run = RunRecord {
                id: RUNS[*r].to_owned(),
                workflow: "wf".to_owned(),
                workflow_path: "workflow.yaml".to_owned(),
                workflow_hash: "h".to_owned(),
                workflow_source: "name: wf".to_owned(),
                workdir: "/w".to_owned(),
                inputs: serde_json::json!({"topic": "ü", "n": 3}),
                status: RunStatus::Running,
                memory: None,
                created_ms: *t,
                updated_ms: *t,
            };
            format!("{:?}", store.create_run(&run, &STEPS[..2]).is_ok())
        }
        Op::Status(r, s) => format!("{:?}", store.set_run_status(RUNS[*r], status(*s)).is_ok()),
        Op::Memory(r, m) => format!("{:?}", store.set_memory(RUNS[*r], m).is_ok()),
        Op::Step(r, s, a, st, e, d) => {
            let record = step_record(STEPS[*s], *a, *st, *d);
            format!(
                "{:?}",
                store.put_step(RUNS[*r], &record, EVENTS[*e]).is_ok()
            )
        }
        Op::Pending(r, steps) => {
            let ids: Vec<&str> = steps.iter().map(|s| STEPS[*s]).collect();
            format!("{:?}", store.put_pending(RUNS[*r], &ids).is_ok())
        }
        Op::Call(r, s, raw, files) => {
            let call = CallRecord {
                step: STEPS[*s].to_owned(),
                role: "producer".to_owned(),
                seq: 1,
                prompt_hash: "p".to_owned(),
                raw: raw.clone(),
                input_tokens: 3,
                output_tokens: 4,
                outcome: CallOutcome::default(),
                at_ms: 0,
            };
            let files: Vec<(String, Vec<u8>)> = files
                .iter()
                .map(|(p, b)| (format!("out{p}.json"), b.clone()))
                .collect();
            format!("{:?}", store.record_call(RUNS[*r], &call, &files).is_ok())
        }
        Op::Artifact(r, s, b) => {
            format!(
                "{:?}",
                store
                    .put_artifact(RUNS[*r], STEPS[*s], "plan.yaml", "original", b)
                    .ok()
            )
        }
        Op::Wait(r, s, human) => {
            let wait = WaitRecord {
                step: STEPS[*s].to_owned(),
                reason: if *human { "human" } else { "exhausted" }.to_owned(),
                message: Some("approve?".to_owned()),
                diagnostics: Vec::new(),
                files: vec!["plan.yaml".to_owned()],
                best: None,
            };
            format!("{:?}", store.put_wait(RUNS[*r], &wait).is_ok())
        }
        Op::Resolve(r, s) => format!(
            "{:?}",
            store
                .resolve_wait(RUNS[*r], STEPS[*s], Event::Approved)
                .is_ok()
        ),
        Op::Decide(r, s, a, st, human) => {
            let record = step_record(STEPS[*s], *a, *st, false);
            let decision = if *human {
                Event::Approved
            } else {
                Event::Edited
            };
            format!("{:?}", store.decide(RUNS[*r], &record, decision).is_ok())
        }
        Op::Event(r, s) => format!(
            "{:?}",
            store.event(RUNS[*r], STEPS[*s], Event::Noted).is_ok()
        ),
        Op::TakeLease(r, expect_holder) => {
            let holder = store.lease(RUNS[*r]).unwrap();
            let expected = if *expect_holder {
                holder.as_ref().map(|(p, h, _)| (*p, h.as_str()))
            } else {
                None
            };
            format!("{:?}", store.take_lease(RUNS[*r], expected).ok())
        }
        Op::Heartbeat(r) => format!("{:?}", store.heartbeat(RUNS[*r]).ok()),
        Op::Release(r, s) => format!("{:?}", store.release(RUNS[*r], status(*s)).ok()),
        Op::Prune(all) => format!("{:?}", store.prune(if *all { i64::MAX } else { 0 }).ok()),
    }
}

/// Everything the store can be asked, with the times each store stamps itself set to 0.
fn reads(store: &Store) -> String {
    let mut out = String::new();
    let mut runs = store.runs().unwrap();
    for r in &mut runs {
        r.updated_ms = 0;
    }
    out.push_str(&format!("{runs:?}\n"));
    for id in RUNS {
        let mut calls = store.calls(id).unwrap();
        for c in &mut calls {
            c.at_ms = 0;
        }
        let mut events = store.events(id).unwrap();
        for e in &mut events {
            e.at_ms = 0;
        }
        let mut links = store.links(id).unwrap();
        for l in &mut links {
            l.at_ms = 0;
        }
        let artifacts: Vec<_> = links
            .iter()
            .map(|l| store.artifact(&l.hash).unwrap())
            .collect();
        // Waits are ordered by when they were made, then by step; each store stamps its
        // own clock, so two waits made in the same millisecond in one store may not be in
        // the other: compare them by step.
        let mut waits = store.waits(id).unwrap();
        waits.sort_by(|a, b| a.step.cmp(&b.step));
        let lease = store.lease(id).unwrap().map(|(p, h, _)| (p, h));
        out.push_str(&format!(
            "{id}: {:?}\nsteps {:?}\ncalls {calls:?}\nevents {events:?}\nlinks {links:?} {artifacts:?}\nwaits {waits:?}\nlease {lease:?}\nbytes {}\n",
            store.run(id).unwrap().map(|r| (r.status, r.memory)),
            store.steps(id).unwrap(),
            store.run_bytes(id).unwrap(),
        ));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_memory_store_answers_as_the_sqlite_store(ops in proptest::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        let file = Store::open(dir.path()).unwrap();
        let memory = Store::in_memory().unwrap();
        for (i, op) in ops.iter().enumerate() {
            let (a, b) = (apply(&file, op), apply(&memory, op));
            prop_assert_eq!(&a, &b, "change {} {:?}", i, op);
            let (a, b) = (reads(&file), reads(&memory));
            prop_assert_eq!(a, b, "after change {} {:?}", i, op);
        }
    }
}

#[test]
fn a_change_to_a_run_the_store_does_not_have_is_an_error_in_both() {
    let dir = tempfile::tempdir().unwrap();
    for store in [
        Store::open(dir.path()).unwrap(),
        Store::in_memory().unwrap(),
    ] {
        let step = step_record("plan", 1, 0, false);
        assert!(store.put_step("nope", &step, Event::Started).is_err());
        assert!(store.event("nope", "plan", Event::Noted).is_err());
        assert!(store.steps("nope").unwrap().is_empty());
        assert!(store.run("nope").unwrap().is_none());
    }
}

/// A whole run (an answer sent back once, then accepted) stores the same record in memory as
/// in the file: steps and counters, every raw answer, the events and what each was for.
#[test]
fn a_run_on_the_memory_store_records_what_the_file_store_records() {
    let record = |memory: bool| {
        let f = crate::support::Fixture::new();
        crate::store::revised(&f);
        let store = if memory {
            Arc::new(Store::in_memory().unwrap())
        } else {
            Arc::new(Store::open(&f.work).unwrap())
        };
        let (summary, store) = f.run_on(store, &[]);
        assert_eq!(summary.status, RunStatus::Completed, "{summary:#?}");
        let id = &summary.run_id;
        let steps = store.steps(id).unwrap();
        let calls: Vec<String> = store
            .calls(id)
            .unwrap()
            .into_iter()
            .map(|c| c.raw)
            .collect();
        let events: Vec<(String, String, usize)> = store
            .events(id)
            .unwrap()
            .into_iter()
            .map(|e| (e.step, e.kind, e.diagnostics.len()))
            .collect();
        let steps: Vec<_> = steps
            .into_iter()
            .map(|s| (s.id, s.status, s.attempts, s.revisions, s.output))
            .collect();
        (steps, calls, events, store.run_bytes(id).unwrap() > 0)
    };
    let file = record(false);
    assert_eq!(file.1.len(), 2, "two answers: {file:?}");
    assert_eq!(record(true), file);
}
