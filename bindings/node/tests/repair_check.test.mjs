// repair() and check(): one document, no model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { repair, check, ConfigError, RectifyError } from "rectify";

test("repair extracts a fenced answer and fixes a trailing comma", () => {
  const out = repair('Here is the plan:\n```json\n{"phases": ["P1"], "tasks": [],}\n```');
  assert.equal(out.valid, true);
  assert.deepEqual(out.value, { phases: ["P1"], tasks: [] });
  const codes = out.repairs.map((r) => r.code);
  assert.ok(codes.includes("json.trailing_comma"), codes.join(","));
  assert.ok(out.repairs.every((r) => r.applicability === "safe"));
  assert.deepEqual(out.diagnostics, []);
});

test("repair takes bytes, and a schema guides it", () => {
  const bytes = new TextEncoder().encode("{'total': '12.5'}");
  const plain = repair(bytes);
  assert.deepEqual(plain.value, { total: "12.5" });
  const typed = repair("{'total': '12.5'}", { schema: z.object({ total: z.number() }), unsafe: true });
  assert.deepEqual(typed.value, { total: 12.5 });
});

test("repair of text with no document says so in its diagnostics", () => {
  const out = repair("I cannot help with that.");
  assert.equal(out.valid, false);
  assert.ok(out.diagnostics.length > 0);
  assert.equal(out.diagnostics[0].severity, "error");
});

test("repair of a large truncated document keeps what was written", () => {
  const items = Array.from({ length: 20000 }, (_, i) => `{"id": ${i}, "name": "item ${i}",}`);
  const out = repair(`[${items.join(",")}, {"id": 20000, "name": "cut`);
  assert.ok(Array.isArray(out.value));
  assert.ok(out.value.length >= 20000);
  assert.deepEqual(out.value[19999], { id: 19999, name: "item 19999" });
});

test("check reports path, line, column, expected, received and code", () => {
  const out = check('{\n  "id": "T1",\n  "total": "x"\n}', {
    schema: { type: "object", properties: { total: { type: "number" } }, required: ["id", "total"] },
  });
  assert.equal(out.valid, false);
  const [d] = out.diagnostics;
  assert.equal(d.code, "schema.type");
  assert.equal(d.path, "total");
  assert.equal(d.pointer, "/total");
  assert.equal(d.line, 3);
  assert.equal(d.column, 12);
  assert.equal(d.expected, "number");
  assert.equal(d.received, '"x"');
});

test("check of a value against a Zod schema runs its refinements", () => {
  const Range = z
    .object({ min: z.number(), max: z.number() })
    .refine((r) => r.min <= r.max, { message: "min must not exceed max", path: ["min"] });
  assert.deepEqual(check({ min: 1, max: 2 }, { schema: Range }), { valid: true, diagnostics: [], repairs: [] });
  const bad = check({ min: 3, max: 2 }, { schema: Range });
  assert.equal(bad.valid, false);
  assert.equal(bad.diagnostics[0].message, "min must not exceed max");
  assert.equal(bad.diagnostics[0].pointer, "/min");
  assert.equal(bad.diagnostics[0].code, "zod.custom");
  const wrongType = check({ min: "3", max: 2 }, { schema: Range });
  assert.equal(wrongType.diagnostics[0].code, "schema.type");
});

test("check reads a schema file and YAML text", () => {
  const dir = mkdtempSync(join(tmpdir(), "rectify-node-"));
  const schema = join(dir, "schema.json");
  writeFileSync(schema, JSON.stringify({ type: "object", required: ["name"] }));
  const out = check("title: x\n", { schema, format: "yaml" });
  assert.equal(out.valid, false);
  assert.equal(out.diagnostics[0].code, "schema.required");
  assert.ok(check("name: x\n", { schema }).valid);
});

test("bad input is a clear error, never a crash", () => {
  assert.throws(() => check({}, { schema: { type: "nonsense" } }), (e) => {
    assert.ok(e instanceof ConfigError);
    assert.ok(e instanceof RectifyError);
    assert.match(e.message, /schema is not valid/);
    return true;
  });
  assert.throws(() => check("{}", { schema: "/nonexistent/schema.json" }), ConfigError);
  assert.throws(() => repair("{}", { format: "toml" }), /unknown format `toml`/);
  assert.throws(() => repair(42), TypeError);
  assert.throws(() => check({}, { schema: 42 }), ConfigError);
});
