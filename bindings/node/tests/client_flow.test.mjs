// Client (a command agent, an OpenAI-compatible server) and workflows with a human pause.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Client, ConfigError, ProviderError, RefusedError, run, resume, status, validateWithRetry } from "rectify";

const Invoice = z.object({ number: z.string(), total: z.number() });

function tempDir() {
  return mkdtempSync(join(tmpdir(), "rectify-node-"));
}

/** A command agent: its first answer misses `total`, later ones are right; prompts are saved. */
function agentScript(dir) {
  const script = join(dir, "agent.sh");
  writeFileSync(
    script,
    `cat > "${dir}/prompt.$$"\n` +
      `n=$(cat "${dir}/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/count"\n` +
      `if [ "$n" -eq 1 ]; then echo 'Here you go: {"number": "INV-7"}'; ` +
      `else printf '\`\`\`json\\n{"number": "INV-7", "total": 12.5,}\\n\`\`\`\\n'; fi\n`,
  );
  return script;
}

/** An HTTP server speaking OpenAI's chat completions, on this event loop. */
async function fakeOpenAI(t) {
  const state = { status: 200, answers: [], requests: [] };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      state.requests.push(JSON.parse(body || "{}"));
      let payload;
      if (state.status !== 200) {
        payload = { error: { message: "the server is broken", type: "invalid_request_error" } };
      } else {
        const answer = state.answers[Math.min(state.requests.length, state.answers.length) - 1];
        const message = answer.startsWith("REFUSE:")
          ? { role: "assistant", content: null, refusal: answer.slice(7) }
          : { role: "assistant", content: answer };
        payload = {
          id: "x", object: "chat.completion", model: "fake",
          choices: [{ index: 0, finish_reason: "stop", message }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        };
      }
      res.writeHead(state.status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => server.close());
  state.baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
  return state;
}

function withEnv(t, vars) {
  const old = {};
  for (const [k, v] of Object.entries(vars)) {
    old[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  t.after(() => {
    for (const [k, v] of Object.entries(old)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

test("Client with a command agent: extract retries with the feedback", async () => {
  const dir = tempDir();
  const client = new Client({ provider: "command", command: ["sh", agentScript(dir)] });
  assert.equal(client.provider, "command");
  const invoice = await client.extract(Invoice, "Invoice INV-7 comes to 12.50 EUR.");
  assert.deepEqual(invoice, { number: "INV-7", total: 12.5 });
  assert.equal(readFileSync(join(dir, "count"), "utf8").trim(), "2");
  const prompts = readdirSync(dir).filter((f) => f.startsWith("prompt.")).map((f) => readFileSync(join(dir, f), "utf8"));
  assert.ok(prompts.some((p) => p.includes("INV-7 comes to 12.50")));
  assert.ok(prompts.some((p) => p.includes("total") && p.includes("missing")));
});

test("Client against an OpenAI-compatible server", async (t) => {
  const server = await fakeOpenAI(t);
  withEnv(t, { OPENAI_API_KEY: "test-key" });
  server.answers = ['{"number": "INV-7"}', '{"number": "INV-7", "total": 3}'];
  const client = new Client({ provider: "openai", baseUrl: server.baseUrl, model: "fake" });
  assert.equal((await client.extract(Invoice, "Invoice?")).total, 3);
  assert.equal(server.requests.length, 2);
  const last = server.requests[1].messages;
  assert.ok(last.some((m) => m.role === "user" && m.content.includes("total")));
});

test("a provider that fails is a ProviderError; a refusal a RefusedError", async (t) => {
  const server = await fakeOpenAI(t);
  withEnv(t, { OPENAI_API_KEY: "test-key" });
  const client = new Client({ provider: "openai", baseUrl: server.baseUrl, model: "fake" });
  server.status = 400;
  await assert.rejects(client.extract(Invoice, "Invoice?"), (e) => e instanceof ProviderError && /broken|400/.test(e.message));
  server.status = 200;
  server.answers = ["REFUSE:I cannot help with invoices"];
  await assert.rejects(client.extract(Invoice, "Invoice?"), (e) => {
    assert.ok(e instanceof RefusedError);
    assert.match(e.message, /cannot help with invoices/);
    assert.ok(e.attempts.length >= 1);
    return true;
  });
});

test("Client.fromEnv picks the provider as rectify ask does", async (t) => {
  withEnv(t, { RECTIFY_PROVIDER: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, ANTHROPIC_API_KEY: undefined, RECTIFY_MODEL: undefined });
  assert.throws(() => Client.fromEnv(), ConfigError);
  assert.throws(() => new Client({ provider: "nonsense" }), ConfigError);
  const server = await fakeOpenAI(t);
  withEnv(t, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.baseUrl });
  server.answers = ['{"number": "A", "total": 1}'];
  const client = Client.fromEnv();
  assert.equal(client.provider, "openai");
  assert.deepEqual(await client.extract({ type: "object", required: ["number"] }, "x"), { number: "A", total: 1 });
});

/** Whether process `pid` has ended (gone, or a zombie not yet reaped). */
function gone(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").startsWith("Z");
  } catch {
    return true;
  }
}

/** Resolves when `done()` holds, checking every 20 ms (no deadline: the runner's timeout is it). */
async function until(done) {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}

/** The pid a slow agent wrote to `file`, once it is there. */
async function pidIn(file) {
  await until(() => existsSync(file) && readFileSync(file, "utf8").trim() !== "");
  return Number(readFileSync(file, "utf8"));
}

test("an AbortSignal stops a command agent that hangs", async () => {
  const dir = tempDir();
  const pidFile = join(dir, "pid");
  const agent = ["sh", "-c", `echo $$ > "${pidFile}.tmp"; mv "${pidFile}.tmp" "${pidFile}"; sleep 60; echo '{}'`];
  const client = new Client({ provider: "command", command: agent });
  const abort = new AbortController();
  const call = client.extract(Invoice, "Invoice?", { signal: abort.signal });
  const pid = await pidIn(pidFile);
  abort.abort();
  await assert.rejects(call, (e) => e.name === "AbortError");
  await until(() => gone(pid));
});

test("an AbortSignal that fires by itself (AbortSignal.timeout) rejects with its reason", async () => {
  const client = new Client({ provider: "command", command: ["sh", "-c", "sleep 60; echo '{}'"] });
  await assert.rejects(client.extract(Invoice, "Invoice?", { signal: AbortSignal.timeout(200) }), (e) => e.name === "TimeoutError");
});

function workflow() {
  const dir = tempDir();
  const work = join(dir, "work");
  mkdirSync(join(work, "agents"), { recursive: true });
  writeFileSync(join(work, "agents/a.md"), "---\nname: a\n---\nWork.\n");
  writeFileSync(join(dir, "agent.sh"), 'echo "{\\"step\\": \\"$RECTIFY_STEP\\"}" > "$RECTIFY_STEP.json"\n');
  writeFileSync(
    join(work, "workflow.yaml"),
    "name: paused\n" +
      "providers:\n" +
      `  sh: {kind: command, command: [sh, "${join(dir, "agent.sh")}"]}\n` +
      "defaults: {provider: sh}\n" +
      "agents: {a: agents/a.md}\n" +
      "steps:\n" +
      "  - {id: spec, agent: a, prompt: go, outputs: [{path: spec.json}]}\n" +
      "  - {id: approve, needs: [spec], human: Approve the spec?}\n" +
      "  - {id: code, needs: [approve], agent: a, prompt: go, outputs: [{path: code.json}]}\n",
  );
  return work;
}

test("a workflow pauses for a person and resumes from Node", async () => {
  const work = workflow();
  const summary = await run(join(work, "workflow.yaml"), { workdir: work, runId: "r1" });
  assert.equal(summary.run_id, "r1");
  assert.equal(summary.status, "waiting");
  assert.equal(summary.waiting.step, "approve");
  assert.equal(summary.waiting.reason, "human");
  assert.equal(summary.waiting.message, "Approve the spec?");
  assert.equal(summary.steps.find((s) => s.id === "spec").status, "done");
  assert.ok(!existsSync(join(work, "code.json")));

  const seen = await status("r1", { workdir: work });
  assert.equal(seen.status, "waiting");
  assert.equal(seen.workflow, "paused");

  const done = await resume("r1", { approve: true, workdir: work });
  assert.equal(done.status, "completed");
  assert.equal(done.steps.find((s) => s.id === "code").status, "done");
  assert.ok(existsSync(join(work, "code.json")));
  assert.equal((await status("r1", { workdir: work })).status, "completed");
});

test("reject sends the work back to its producer", async () => {
  const work = workflow();
  await run(join(work, "workflow.yaml"), { workdir: work, runId: "r2" });
  const again = await resume("r2", { reject: "use more detail", workdir: work });
  assert.equal(again.status, "waiting");
  const spec = again.steps.find((s) => s.id === "spec");
  assert.ok(spec.revisions >= 1 || spec.attempts >= 2);
});

test("workflow errors are ConfigErrors", async () => {
  const work = workflow();
  writeFileSync(join(work, "bad.yaml"), "name: bad\nsteps:\n  - {id: x, nonsense: 1}\n");
  await assert.rejects(run(join(work, "bad.yaml"), { workdir: work }), ConfigError);
  await assert.rejects(status("nope", { workdir: tempDir() }), ConfigError);
  await assert.rejects(resume("nope", { approve: true, workdir: tempDir() }), ConfigError);
  await assert.rejects(resume("nope", { approve: true, reject: "x", workdir: work }), ConfigError);
  await run(join(work, "workflow.yaml"), { workdir: work, runId: "r3" });
  await assert.rejects(run(join(work, "workflow.yaml"), { workdir: work, runId: "r3" }), ConfigError);
});

test("a waiting run's summary is the CLI's: diagnostics in the check shape, continue commands", async () => {
  const work = workflow();
  const summary = await run(join(work, "workflow.yaml"), { workdir: work, runId: "r4" });
  assert.ok(summary.waiting.continue.some((c) => c.includes("rectify resume r4") && c.includes("--approve")), summary.waiting.continue.join("\n"));
  assert.equal(summary.waiting.best, null);
});

/**
 * A workflow of two steps whose agent is slow the first time step `slow` runs (it records its
 * pid in `state/<step>.pid` and sleeps a minute) and quick otherwise; `human: true` puts an
 * approval between the steps.
 */
function slowWorkflow({ human, slow }) {
  const dir = tempDir();
  const work = join(dir, "work");
  const state = join(dir, "state");
  mkdirSync(join(work, "agents"), { recursive: true });
  mkdirSync(state);
  writeFileSync(join(work, "agents/a.md"), "---\nname: a\n---\nWork.\n");
  writeFileSync(
    join(dir, "agent.sh"),
    `s="${state}/$RECTIFY_STEP"\n` +
      `if [ "$RECTIFY_STEP" = ${slow} ] && [ ! -e "$s.slowed" ]; then : > "$s.slowed"; echo $$ > "$s.tmp"; mv "$s.tmp" "$s.pid"; sleep 60; fi\n` +
      'echo "{\\"step\\": \\"$RECTIFY_STEP\\"}" > "$RECTIFY_STEP.json"\n',
  );
  const approve = human ? "  - {id: approve, needs: [spec], human: Approve the spec?}\n" : "";
  writeFileSync(
    join(work, "workflow.yaml"),
    "name: slow\n" +
      "providers:\n" +
      `  sh: {kind: command, command: [sh, "${join(dir, "agent.sh")}"]}\n` +
      "defaults: {provider: sh}\n" +
      "agents: {a: agents/a.md}\n" +
      "steps:\n" +
      "  - {id: spec, agent: a, prompt: go, outputs: [{path: spec.json}]}\n" +
      approve +
      `  - {id: code, needs: [${human ? "approve" : "spec"}], agent: a, prompt: go, outputs: [{path: code.json}]}\n`,
  );
  return { work, state, file: join(work, "workflow.yaml") };
}

test("aborting a run kills its agent, records it interrupted, and resume finishes it", async () => {
  const wf = slowWorkflow({ human: false, slow: "spec" });
  const abort = new AbortController();
  const running = run(wf.file, { workdir: wf.work, runId: "slow-run", signal: abort.signal });
  const pid = await pidIn(join(wf.state, "spec.pid"));
  abort.abort();
  await assert.rejects(running, (e) => e.name === "AbortError");
  await until(() => gone(pid));
  const seen = await status("slow-run", { workdir: wf.work });
  assert.equal(seen.status, "interrupted");
  assert.ok(!existsSync(join(wf.work, "spec.json")));

  const done = await resume("slow-run", { workdir: wf.work });
  assert.equal(done.status, "completed");
  assert.deepEqual(JSON.parse(readFileSync(join(wf.work, "spec.json"), "utf8")), { step: "spec" });
  assert.ok(existsSync(join(wf.work, "code.json")));
});

test("aborting resume stops the run as interrupted; resume again finishes it", async () => {
  const wf = slowWorkflow({ human: true, slow: "code" });
  const paused = await run(wf.file, { workdir: wf.work, runId: "slow-resume" });
  assert.equal(paused.status, "waiting");
  const abort = new AbortController();
  const resuming = resume("slow-resume", { approve: true, workdir: wf.work, signal: abort.signal });
  const pid = await pidIn(join(wf.state, "code.pid"));
  abort.abort(new Error("the person closed the tab"));
  await assert.rejects(resuming, /the person closed the tab/);
  await until(() => gone(pid));
  assert.equal((await status("slow-resume", { workdir: wf.work })).status, "interrupted");

  const done = await resume("slow-resume", { workdir: wf.work });
  assert.equal(done.status, "completed");
  assert.ok(existsSync(join(wf.work, "code.json")));
});

test("an already-aborted signal rejects every async entry point before it starts", async () => {
  const wf = slowWorkflow({ human: false, slow: "spec" });
  const signal = AbortSignal.abort();
  const isAbort = (e) => e.name === "AbortError";
  await assert.rejects(run(wf.file, { workdir: wf.work, runId: "never", signal }), isAbort);
  assert.ok(!existsSync(join(wf.state, "spec.slowed")), "no agent started");
  await assert.rejects(status("never", { workdir: wf.work }), ConfigError);
  await assert.rejects(status("never", { workdir: wf.work, signal }), isAbort);
  await assert.rejects(resume("never", { workdir: wf.work, signal }), isAbort);
  let called = false;
  const execute = async () => {
    called = true;
    return "{}";
  };
  await assert.rejects(validateWithRetry({ schema: Invoice, execute, signal }), isAbort);
  assert.equal(called, false);
  const client = new Client({ provider: "command", command: ["sh", "-c", `touch "${wf.state}/asked"; echo '{}'`] });
  await assert.rejects(client.extract(Invoice, "Invoice?", { signal }), isAbort);
  assert.ok(!existsSync(join(wf.state, "asked")));
});
