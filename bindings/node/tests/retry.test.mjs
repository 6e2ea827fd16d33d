// validateWithRetry: the caller's execute as the model, Zod schemas (4 and 3), errors, signals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { validateWithRetry, ExhaustedError, ConfigError } from "rectify";

/** A model that answers from a script and records the feedback of every call. */
function scripted(...answers) {
  const feedback = [];
  const execute = async (fb) => {
    feedback.push(fb);
    return answers[Math.min(feedback.length, answers.length) - 1];
  };
  return { execute, feedback };
}

const Plan = z
  .object({
    phases: z.array(z.string()).min(1),
    tasks: z.array(z.object({ id: z.string().regex(/^T\d+$/), title: z.string(), phaseId: z.string() })).min(1),
  })
  .superRefine((plan, ctx) => {
    plan.tasks.forEach((t, i) => {
      if (!plan.phases.includes(t.phaseId)) {
        ctx.addIssue({ code: "custom", path: ["tasks", i, "phaseId"], message: `phase ${t.phaseId} does not exist` });
      }
    });
  });

test("a repairable answer passes at the first call", async () => {
  const model = scripted('Sure!\n```json\n{"phases": ["P1"], "tasks": [{"id": "T1", "title": "a", "phaseId": "P1"},]}\n```');
  const plan = await validateWithRetry({ schema: Plan, execute: model.execute });
  assert.deepEqual(plan.tasks[0], { id: "T1", title: "a", phaseId: "P1" });
  assert.deepEqual(model.feedback, [undefined]);
});

test("a schema error, then a Zod refinement's error, are fed back", async () => {
  const model = scripted(
    '{"phases": ["P1"], "tasks": [{"id": "T1", "phaseId": "P1"}]}',
    '{"phases": ["P1"], "tasks": [{"id": "T1", "title": "a", "phaseId": "P2"}]}',
    '{"phases": ["P1", "P2"], "tasks": [{"id": "T1", "title": "a", "phaseId": "P2"}]}',
  );
  const plan = await validateWithRetry({ schema: Plan, execute: model.execute, maxAttempts: 3 });
  assert.deepEqual(plan.phases, ["P1", "P2"]);
  assert.equal(model.feedback.length, 3);
  assert.match(model.feedback[1], /title/);
  assert.match(model.feedback[2], /phase P2 does not exist/);
  assert.match(model.feedback[2], /tasks\[0\]\.phaseId/);
});

test("the value is parsed by the caller's schema: transforms and defaults apply", async () => {
  const Invoice = z.object({
    number: z.string().transform((s) => s.toUpperCase()),
    total: z.coerce.number(),
    currency: z.string().default("EUR"),
  });
  const model = scripted('{"number": "inv-7", "total": 12.5}');
  const invoice = await validateWithRetry({ schema: Invoice, execute: model.execute });
  assert.deepEqual(invoice, { number: "INV-7", total: 12.5, currency: "EUR" });
});

test("an async Zod refinement (safeParseAsync) is fed back, and an async validator too", async () => {
  const taken = new Set(["ada"]);
  const User = z.object({
    handle: z.string().refine(async (h) => {
      await new Promise((r) => setImmediate(r));
      return !taken.has(h);
    }, "this handle is taken"),
  });
  // Zod itself refuses this schema synchronously: what the loop must not call.
  assert.throws(() => User.safeParse({ handle: "x" }));
  const model = scripted('{"handle": "ada"}', '{"handle": "bob"}', '{"handle": "cy"}');
  const validators = [async (u) => (u.handle === "bob" ? "bob is reserved" : undefined)];
  const user = await validateWithRetry({ schema: User, execute: model.execute, validators, maxAttempts: 3 });
  assert.deepEqual(user, { handle: "cy" });
  assert.match(model.feedback[1], /this handle is taken/);
  assert.match(model.feedback[2], /bob is reserved/);
});

test("Zod 3 schemas work through zod-to-json-schema, refinements included", async () => {
  const Range = z3
    .object({ min: z3.number(), max: z3.number() })
    .refine((r) => r.min <= r.max, { message: "min exceeds max", path: ["max"] });
  const model = scripted('{"min": 1}', '{"min": 3, "max": 1}', '{"min": 1, "max": 3}');
  const range = await validateWithRetry({ schema: Range, execute: model.execute });
  assert.deepEqual(range, { min: 1, max: 3 });
  assert.match(model.feedback[1], /max/);
  assert.match(model.feedback[2], /min exceeds max/);
});

test("a JSON Schema object and validators", async () => {
  const model = scripted('{"n": 3}', '{"n": 4}');
  const seen = [];
  const value = await validateWithRetry({
    schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: model.execute,
    validators: [(v) => { seen.push(v.n); return v.n % 2 === 0 ? undefined : { message: "n must be even", path: ["n"] }; }],
  });
  assert.deepEqual(value, { n: 4 });
  assert.deepEqual(seen, [3, 4]);
  assert.match(model.feedback[1], /n must be even/);
});

test("an answer that is not text is sent as its JSON", async () => {
  const value = await validateWithRetry({
    schema: z.object({ ok: z.boolean() }),
    execute: async () => ({ ok: true }),
  });
  assert.deepEqual(value, { ok: true });
});

test("exhausted: ExhaustedError with the best candidate, its diagnostics and every attempt", async () => {
  const model = scripted('{"phases": [], "tasks": []}', '{"phases": ["P1"], "tasks": [{"id": "T1", "title": "a", "phaseId": "P9"}]}');
  await assert.rejects(validateWithRetry({ schema: Plan, execute: model.execute, maxAttempts: 2 }), (e) => {
    assert.ok(e instanceof ExhaustedError);
    assert.equal(e.attempts.length, 2);
    assert.match(e.attempts[0].feedback, /phases: expected at least 1 item/);
    assert.equal(model.feedback[1], e.attempts[0].feedback);
    assert.equal(e.best.attempt, 2);
    assert.deepEqual(e.best.value.phases, ["P1"]);
    assert.equal(e.diagnostics[0].code, "zod.custom");
    assert.match(e.message, /phase P9 does not exist/);
    return true;
  });
});

test("an execute that throws: the error reaches the caller unchanged, with its stack", async () => {
  class AgentDown extends Error {}
  let calls = 0;
  const error = new AgentDown("the agent is down");
  await assert.rejects(
    validateWithRetry({ schema: Plan, execute: async () => { calls += 1; throw error; } }),
    (e) => {
      assert.equal(e, error);
      assert.match(e.stack, /retry\.test\.mjs/);
      return true;
    },
  );
  assert.equal(calls, 1);
});

test("a validator that throws stops the run with its error", async () => {
  const error = new RangeError("validator bug");
  const model = scripted('{"n": 1}');
  await assert.rejects(
    validateWithRetry({ schema: { type: "object" }, execute: model.execute, validators: [() => { throw error; }] }),
    (e) => e === error,
  );
  assert.equal(model.feedback.length, 1);
});

test("an AbortSignal cancels a call waiting on execute", async () => {
  const controller = new AbortController();
  let started = 0;
  const run = validateWithRetry({
    schema: Plan,
    signal: controller.signal,
    execute: (_fb, ctx) => {
      started += 1;
      assert.equal(ctx.signal, controller.signal);
      return new Promise(() => {});
    },
  });
  setTimeout(() => controller.abort(), 50);
  const t0 = Date.now();
  await assert.rejects(run, (e) => e.name === "AbortError");
  assert.ok(Date.now() - t0 < 2000);
  assert.equal(started, 1);
  const already = AbortSignal.abort(new Error("no longer needed"));
  await assert.rejects(validateWithRetry({ schema: Plan, signal: already, execute: async () => "{}" }), /no longer needed/);
});

test("the event loop stays free while the loop runs", async () => {
  let ticks = 0;
  const timer = setInterval(() => { ticks += 1; }, 5);
  const model = scripted('{"b": 1}', '{"a": "x"}');
  const value = await validateWithRetry({
    schema: z.object({ a: z.string() }),
    execute: async (fb) => { await new Promise((r) => setTimeout(r, 40)); return model.execute(fb); },
  });
  clearInterval(timer);
  assert.deepEqual(value, { a: "x" });
  assert.ok(ticks >= 5, `only ${ticks} ticks`);
});

test("configuration errors are ConfigErrors", async () => {
  await assert.rejects(validateWithRetry({ schema: { type: 12 }, execute: async () => "{}" }), ConfigError);
  await assert.rejects(validateWithRetry({ schema: {}, execute: async () => "{}", maxAttempts: 0 }), ConfigError);
  await assert.rejects(validateWithRetry({ schema: {}, execute: async () => "{}", feedback: "loud" }), ConfigError);
  await assert.rejects(validateWithRetry({ schema: {}, execute: "not a function" }), ConfigError);
  await assert.rejects(validateWithRetry({ schema: {}, execute: async () => "{}", rules: "/nonexistent.yaml" }), ConfigError);
});

test("concurrent runs do not mix their answers", async () => {
  const runs = Array.from({ length: 8 }, (_, i) =>
    validateWithRetry({
      schema: z.object({ i: z.number().refine((n) => n === i, "wrong run") }),
      execute: async (fb) => (fb ? `{"i": ${i}}` : `{"i": ${i + 100}}`),
    }),
  );
  assert.deepEqual((await Promise.all(runs)).map((v) => v.i), [0, 1, 2, 3, 4, 5, 6, 7]);
});
