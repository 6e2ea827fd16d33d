// The Node package against its npm peers, in one process, ratios measured in one run (issue 38).
// Run by bindings/node/bench/run.sh, which installs the release addon and the peers into a fresh
// project (target/node/env-bench) and writes the 10 MB documents there.
//
// Sections:
// 1. repair: rectify's repair vs npm jsonrepair on the repair corpora of
//    crates/rectify-repair/tests/corpus/ (cases right, time) and on the 10 MB broken document
//    of crates/rectify-bench/scripts/repair_10mb.sh.
// 2. retry: validateWithRetry vs the seed's plain Zod loop vs the AI SDK's generateObject in a
//    retry loop, all driven by the same scripted model; calls made and time per attempt.
// 3. import: `require("rectify")` and `import("rectify")` in fresh processes.
import { readFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";

const require = createRequire(join(process.cwd(), "package.json"));
const root = process.argv[2];
const sections = process.argv.slice(3);
const want = (name) => sections.length === 0 || sections.includes(name);
const CORPUS = join(root, "crates/rectify-repair/tests/corpus");
const CORPORA = [
  "json_repair", "jsonrepair_rs", "best_effort_json_parser", "llm_parsers", "llm_frameworks",
  "agent_frameworks", "crate_parsers", "pypi_repairers", "registry_suites",
];

async function best(runs, f) {
  let b = Infinity;
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const t = performance.now();
    await f();
    b = Math.min(b, performance.now() - t);
  }
  return b;
}

const ERROR = Symbol("error");

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function same(got, expected) {
  if (expected === null || expected === undefined) return got === ERROR || got === null;
  return got !== ERROR && canonical(got) === canonical(expected);
}

// ---------------------------------------------------------------------------------------------
// 1. repair

async function repairSection() {
  const { repair } = require("rectify");
  const { jsonrepair } = require("jsonrepair");
  const rectifyValue = (text) => {
    const r = repair(text, { unsafe: true });
    return r.valid ? r.value : ERROR;
  };
  const jsonrepairValue = (text) => {
    try {
      return JSON.parse(jsonrepair(text));
    } catch {
      return ERROR;
    }
  };
  const out = [
    "| corpus | cases | rectify right | jsonrepair right | rectify time | jsonrepair time | speed ratio |",
    "|---|---|---|---|---|---|---|",
  ];
  const totals = [0, 0, 0, 0, 0];
  for (const name of CORPORA) {
    const path = join(CORPUS, `${name}.jsonl`);
    if (!existsSync(path)) continue;
    const cases = readFileSync(path, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
      .filter((c) => typeof c.input === "string");
    const okR = cases.filter((c) => same(rectifyValue(c.input), c.expected)).length;
    const okJ = cases.filter((c) => same(jsonrepairValue(c.input), c.expected)).length;
    const texts = cases.map((c) => c.input);
    const tR = await best(5, () => texts.forEach(rectifyValue));
    const tJ = await best(5, () => texts.forEach(jsonrepairValue));
    out.push(`| ${name} | ${cases.length} | ${okR} | ${okJ} | ${tR.toFixed(1)} ms | ${tJ.toFixed(1)} ms | ${(tJ / tR).toFixed(1)}× |`);
    [cases.length, okR, okJ, tR, tJ].forEach((v, i) => (totals[i] += v));
  }
  const [n, r, j, tr, tj] = totals;
  out.push(`| **all** | ${n} | **${r} (${((100 * r) / n).toFixed(1)}%)** | ${j} (${((100 * j) / n).toFixed(1)}%) | ${tr.toFixed(1)} ms | ${tj.toFixed(1)} ms | **${(tj / tr).toFixed(1)}×** |`);
  out.push("");

  const broken = readFileSync("broken.json", "utf8");
  const brokenBytes = readFileSync("broken.json");
  const valid = readFileSync("valid.json", "utf8");
  const expected = JSON.stringify(JSON.parse(valid));
  const r0 = repair(broken);
  const rightR = JSON.stringify(r0.value) === expected;
  const tValue = await best(5, () => repair(broken).value);
  const tBytes = await best(5, () => repair(brokenBytes).value);
  const tParse = await best(5, () => JSON.parse(valid));
  // jsonrepair slows down faster than the document grows on this input: it is timed on
  // prefixes (cut after a record), and on the whole document in a child process with a time
  // limit (JSONREPAIR_LIMIT seconds, default 300).
  const prefix = (bytes) => `${broken.slice(0, broken.indexOf("  // record", bytes))}]`;
  const sizes = [100e3, 200e3, 400e3, 800e3];
  const scaling = [];
  for (const size of sizes) {
    const text = prefix(size);
    const tj = await best(1, () => JSON.parse(jsonrepair(text)));
    const tr = await best(3, () => repair(text).value);
    scaling.push(`| ${(text.length / 1e6).toFixed(2)} MB prefix | ${tr.toFixed(1)} ms | ${tj.toFixed(1)} ms | **${(tj / tr).toFixed(0)}×** |`);
  }
  const limit = Number(process.env.JSONREPAIR_LIMIT ?? 300);
  const script = "const {jsonrepair}=require('jsonrepair');const fs=require('fs');const t=performance.now();" +
    "const v=JSON.parse(jsonrepair(fs.readFileSync('broken.json','utf8')));" +
    "console.log(performance.now()-t, JSON.stringify(v)===JSON.stringify(JSON.parse(fs.readFileSync('valid.json','utf8'))))";
  let whole;
  try {
    const [ms, right] = execFileSync(process.execPath, ["-e", script], { timeout: limit * 1e3, encoding: "utf8" }).trim().split(" ");
    whole = { text: `${(Number(ms) / 1e3).toFixed(3)} s`, ratio: `**${(Number(ms) / tValue).toFixed(0)}×**`, right };
  } catch {
    whole = { text: `not finished after ${limit} s`, ratio: `**> ${((limit * 1e3) / tValue).toFixed(0)}×**`, right: "—" };
  }
  const mb = (brokenBytes.length / 1e6).toFixed(1);
  out.push(
    "| document | rectify `repair` | jsonrepair | ratio | rectify right | jsonrepair right |",
    "|---|---|---|---|---|---|",
    `| broken, ${mb} MB, ${r0.repairs.length} repairs: the value (string in; \`repair(text).value\` vs \`JSON.parse(jsonrepair(text))\`) | ${(tValue / 1e3).toFixed(3)} s | ${whole.text} | ${whole.ratio} | ${rightR} | ${whole.right} |`,
    `| the same, a Buffer in (\`repair(buffer).value\`) | ${(tBytes / 1e3).toFixed(3)} s | | | | |`,
    "",
    `(Same run: \`JSON.parse\` of the valid document, pretty-printed, ${(tParse / 1e3).toFixed(3)} s.)`,
    "",
    "| prefix of the same document | rectify `repair(text).value` | `JSON.parse(jsonrepair(text))` | ratio |",
    "|---|---|---|---|",
    ...scaling,
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// 2. retry

async function retrySection(rounds, perRound) {
  const { z } = require("zod");
  const { validateWithRetry } = require("rectify");
  const { generateObject, NoObjectGeneratedError } = require("ai");
  const { MockLanguageModelV2 } = require("ai/test");

  const Contact = z.object({
    name: z.string(),
    email: z.string().refine((v) => v.includes("@"), "an email address has an @"),
  });
  const valid = '{"name": "Ada Lovelace", "email": "ada@example.org"}';
  const scenarios = {
    "missing field, then valid": ['{"name": "Ada Lovelace"}', valid],
    "refinement fails, then valid": ['{"name": "Ada Lovelace", "email": "ada-at-example.org"}', valid],
    "fenced, trailing comma, then valid": ['```json\n{"name": "Ada Lovelace", "email": "ada@example.org",}\n```', valid],
    "valid at once": [valid],
  };
  const script = (answers) => {
    let calls = 0;
    return { next: () => answers[Math.min(calls++, answers.length - 1)], calls: () => calls };
  };

  async function runRectify(answers) {
    const s = script(answers);
    await validateWithRetry({ schema: Contact, maxAttempts: 3, execute: async () => s.next() });
    return s.calls();
  }

  // The seed's loop (000): safeParse of the agent's answer, the issues fed back, 3 attempts.
  async function runPlainZod(answers) {
    const s = script(answers);
    let lastErrors = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const feedback = attempt > 1 ? `Previous response failed validation. Errors: ${lastErrors.join(", ")}. Please fix and retry.` : undefined;
      void feedback;
      const response = s.next();
      let parsed;
      try {
        parsed = JSON.parse(response);
      } catch (e) {
        lastErrors = [String(e)];
        continue;
      }
      const result = Contact.safeParse(parsed);
      if (result.success) return s.calls();
      lastErrors = result.error.issues.map((e) => `${e.path.join(".")}: ${e.message}`);
    }
    return s.calls();
  }

  // The AI SDK: generateObject over a scripted model; it has no retry on a schema failure of
  // its own (`maxRetries` is for transport errors), so the caller loops on
  // NoObjectGeneratedError with the error as feedback, as its docs suggest.
  async function runAiSdk(answers) {
    const s = script(answers);
    const model = new MockLanguageModelV2({
      doGenerate: async () => ({
        content: [{ type: "text", text: s.next() }],
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30 },
        warnings: [],
      }),
    });
    let feedback = "";
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await generateObject({ model, schema: Contact, prompt: `Extract the contact.${feedback}`, maxRetries: 0 });
        return s.calls();
      } catch (e) {
        if (!NoObjectGeneratedError.isInstance(e)) throw e;
        feedback = `\n\nYour previous answer was invalid: ${e.cause?.message ?? e.message}`;
      }
    }
    return s.calls();
  }

  const runners = [runRectify, runPlainZod, runAiSdk];
  const out = [
    "| scenario | rectify calls | plain Zod loop calls | AI SDK calls | rectify per attempt | plain Zod per attempt | AI SDK per attempt |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const [name, answers] of Object.entries(scenarios)) {
    const calls = [];
    const times = [];
    for (const run of runners) {
      const c = await run(answers);
      calls.push(c);
      for (let i = 0; i < 20; i++) await run(answers); // warm up
      const t = await best(rounds, async () => {
        for (let i = 0; i < perRound; i++) await run(answers);
      });
      times.push(t / (perRound * c));
    }
    out.push(`| ${name} | ${calls[0]} | ${calls[1]} | ${calls[2]} | ${times[0].toFixed(3)} ms | ${times[1].toFixed(3)} ms | ${times[2].toFixed(3)} ms |`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// 3. import

// The time of the `require` (or `import`) itself, measured inside a fresh process: process
// start-up times on a loaded machine vary by more than the require takes.
function requireTime(code, esm = false, runs = 15) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const args = esm
      ? ["--input-type=module", "-e", `const t = performance.now(); ${code}; console.log(performance.now() - t)`]
      : ["-e", `const t = performance.now(); ${code}; console.log(performance.now() - t)`];
    times.push(Number(execFileSync(process.execPath, args, { encoding: "utf8" }).trim()));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}

function importSection() {
  const row = (what, t) => `| ${what} | ${t.toFixed(1)} ms |`;
  return [
    "| in a fresh process | time (median of 15) |",
    "|---|---|",
    row("`require('rectify')`", requireTime("require('rectify')")),
    row("`await import('rectify')` (ESM)", requireTime("await import('rectify')", true)),
    row("`require('zod')`", requireTime("require('zod')")),
    row("`require('jsonrepair')`", requireTime("require('jsonrepair')")),
    row("`require('ai')`", requireTime("require('ai')")),
  ];
}

const lines = [];
if (want("repair")) lines.push("### repair", "", ...(await repairSection()), "");
if (sections.length === 0) console.error("repair done");
if (want("retry")) lines.push("### retry", "", ...(await retrySection(5, 200)), "");
if (want("import")) lines.push("### import", "", ...importSection(), "");
console.log(lines.join("\n"));
