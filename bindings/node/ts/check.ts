/** `repair` and `check`: one document, no model. */

import native = require("./native");
import { translated } from "./errors";
import { type Infer, type Schema, shapeOf, zodProblems } from "./schema";
import type { CheckResult, Diagnostic, RepairResult } from "./types";

/** The options of `repair`. */
export interface RepairOptions<S extends Schema> {
  /** A schema that guides the repair (types, required keys); a Zod schema or JSON Schema. */
  schema?: S;
  /** Also apply unsafe repairs (they may change the meaning). */
  unsafe?: boolean;
  /** The text's format (sniffed when absent). */
  format?: "json" | "yaml" | "markdown";
}

/**
 * Repairs a model's text deterministically: extracts the document from prose and code fences,
 * fixes trailing commas, quotes, comments, truncation, ... Only safe repairs apply unless
 * `unsafe` is set. Synchronous: it does not wait on anything.
 */
export function repair<S extends Schema = Schema>(
  text: string | Uint8Array,
  options: RepairOptions<S> = {},
): RepairResult<Infer<S>> {
  const shape = shapeOf(options.schema);
  const input = typeof text === "string" ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  const out = translated(() =>
    native.repair(input, { schema: shape.json, unsafe: options.unsafe, format: options.format }),
  );
  return JSON.parse(out) as RepairResult<Infer<S>>;
}

/** The options of `check`. */
export interface CheckOptions {
  /** A Zod schema (its refinements included), a JSON Schema object, or a JSON Schema file. */
  schema?: Schema;
  /** A rules file. */
  rules?: string;
  /** The reference documents the rules name: name → file. */
  refs?: Record<string, string>;
  /** The format of a text document (sniffed when absent). */
  format?: "json" | "yaml" | "markdown";
}

function zodDiagnostics(issues: Parameters<typeof zodProblems>[0]): Diagnostic[] {
  return zodProblems(issues).map((p) => ({
    severity: "error",
    code: p.code ?? "zod.invalid",
    path: p.pointer
      .split("/")
      .slice(1)
      .map((k, i) => (/^\d+$/.test(k) ? `[${k}]` : i === 0 ? k : `.${k}`))
      .join(""),
    pointer: p.pointer,
    line: null,
    column: null,
    message: p.message,
    expected: p.expected ?? null,
    received: p.received ?? null,
    source: "zod",
  }));
}

/**
 * Checks a document (text: JSON, YAML or Markdown, with line and column in its diagnostics) or
 * a value against a schema and rules. Invalid content is data: the result says what is wrong.
 */
export function check(document: string | unknown, options: CheckOptions = {}): CheckResult {
  const shape = shapeOf(options.schema);
  const opts = {
    schema: shape.json,
    schemaPath: shape.path,
    rules: options.rules,
    refs: options.refs,
    format: options.format,
  };
  const out = translated(() =>
    typeof document === "string"
      ? native.checkText(document, opts)
      : native.checkValue(JSON.stringify(document ?? null), opts),
  );
  const result = JSON.parse(out) as CheckResult;
  if (result.valid && shape.zod) {
    const value = typeof document === "string" ? repair(document, { format: options.format }).value : document;
    const parsed = shape.zod.safeParse(value);
    if (!parsed.success) {
      result.diagnostics.push(...zodDiagnostics(parsed.error.issues));
      result.valid = false;
    }
  }
  return result;
}
