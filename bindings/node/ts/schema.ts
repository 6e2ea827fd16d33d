/**
 * Schemas: a Zod schema (Zod 4 through its own `toJSONSchema`, Zod 3 through
 * `zod-to-json-schema`), a JSON Schema object, or the path of a JSON Schema file. A Zod schema
 * is checked twice: its JSON Schema by rectify (so repairs and diagnostics know the shape), then
 * the schema itself with `safeParse`, so refinements and transforms apply and their issues are
 * problems like the schema's.
 */

import { ConfigError } from "./errors";

/** A JSON Schema object. */
export type JsonSchema = { [key: string]: unknown } | boolean;

/** What a Zod issue carries (Zod 3 and 4). */
interface ZodIssueLike {
  code?: string;
  path?: ReadonlyArray<PropertyKey>;
  message: string;
  expected?: unknown;
  received?: unknown;
}

type SafeParse =
  | { success: true; data: unknown }
  | { success: false; error: { issues: ZodIssueLike[] } };

/** A Zod schema, 3 or 4 (the part of it rectify uses). */
export interface ZodSchemaLike {
  safeParse(value: unknown): SafeParse;
  parse(value: unknown): unknown;
  /** Used when present (Zod 3 and 4 have it): async refinements and transforms run too. */
  safeParseAsync?(value: unknown): Promise<SafeParse>;
  /** Used when present, as `safeParseAsync`. */
  parseAsync?(value: unknown): Promise<unknown>;
}

/** Anything rectify takes as a schema. */
export type Schema = ZodSchemaLike | JsonSchema | string;

/** The type a schema validates to: `z.infer` for Zod (its output, after transforms). */
export type Infer<S> = S extends { _zod: { output: infer O } }
  ? O
  : S extends { _output: infer O }
    ? O
    : unknown;

/** A problem a validator reports: what is wrong and, optionally, where. */
export interface Problem {
  /** What is wrong (fed back to the model). */
  message: string;
  /** Where: a JSON Pointer (`/tasks/0/phaseId`) or the keys and indexes. */
  path?: string | ReadonlyArray<PropertyKey>;
  /** A stable code (default `validator.failed`). */
  code?: string;
  /** `warning` does not block acceptance. */
  severity?: "error" | "warning";
  /** What was expected. */
  expected?: string;
  /** What was found. */
  received?: string;
}

/** What a validator finds: nothing when the value is right, or a message or problems. */
export type Found = void | undefined | null | string | Problem | ReadonlyArray<string | Problem>;

/**
 * A check of the validated value (Zod's output, or the value for a JSON Schema) that JSON
 * Schema cannot express. Returns (or resolves to) nothing when the value is right, or a message
 * or problems to feed back; what it throws (or rejects with) reaches the caller and stops the
 * run.
 */
export type Validator<T> = (value: T) => Found | Promise<Found>;

/** The problem in the shape the native side reads (a pointer, not a path). */
export interface NativeProblem {
  message: string;
  pointer: string;
  code?: string;
  severity?: string;
  expected?: string;
  received?: string;
}

/** A schema, ready: its JSON Schema (text) or file, and the Zod schema to parse with. */
export interface Shape {
  /** The JSON Schema as JSON text. */
  json?: string;
  /** A schema file. */
  path?: string;
  /** The Zod schema, when one was given. */
  zod?: ZodSchemaLike;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/** True for a Zod schema (3 or 4). */
export function isZod(schema: unknown): schema is ZodSchemaLike {
  return (
    isObject(schema) &&
    typeof schema.safeParse === "function" &&
    ("_zod" in schema || "_def" in schema)
  );
}

function load(name: string): Record<string, unknown> | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

type ToJsonSchema = (schema: unknown, options?: Record<string, unknown>) => unknown;

/** Zod 4's `toJSONSchema` (from `zod/v4/core`, `zod`, or `zod/v4` of Zod 3.25). */
function zod4ToJsonSchema(): ToJsonSchema {
  for (const name of ["zod/v4/core", "zod", "zod/v4"]) {
    const f = load(name)?.toJSONSchema;
    if (typeof f === "function") return f as ToJsonSchema;
  }
  throw new ConfigError("a Zod 4 schema needs the `zod` package (>= 3.25) installed beside rectify");
}

/** The JSON Schema of a Zod schema: what the model's answer must look like before parsing. */
export function zodToJsonSchema(schema: ZodSchemaLike): JsonSchema {
  if ("_zod" in schema) {
    // `io: "input"`: the answer is the input of the schema (before transforms and defaults);
    // refinements and custom types are left to `safeParse`.
    return zod4ToJsonSchema()(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  }
  const convert = load("zod-to-json-schema")?.zodToJsonSchema;
  if (typeof convert !== "function") {
    throw new ConfigError(
      "a Zod 3 schema needs the `zod-to-json-schema` package installed beside rectify (or use Zod 4)",
    );
  }
  const out = (convert as ToJsonSchema)(schema, {
    $refStrategy: "none",
    target: "jsonSchema7",
    effectStrategy: "input",
  });
  return out as JsonSchema;
}

const shapes = new WeakMap<object, Shape>();

/** The shape of a schema (Zod schemas are converted once and remembered). */
export function shapeOf(schema: Schema | undefined): Shape {
  if (schema === undefined || schema === null) return {};
  if (typeof schema === "string") return { path: schema };
  if (typeof schema === "boolean") return { json: JSON.stringify(schema) };
  if (isZod(schema)) {
    const known = shapes.get(schema);
    if (known) return known;
    let json: string;
    try {
      json = JSON.stringify(zodToJsonSchema(schema));
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      throw new ConfigError(`cannot convert the Zod schema to JSON Schema: ${String(e)}`, {
        cause: e,
      });
    }
    const shape = { json, zod: schema };
    shapes.set(schema, shape);
    return shape;
  }
  if (isObject(schema)) return { json: JSON.stringify(schema) };
  throw new ConfigError(
    `a schema is a Zod schema, a JSON Schema object or a file path, not ${typeof schema}`,
  );
}

function escape(key: PropertyKey): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A JSON Pointer from a path of keys and indexes (or a pointer already). */
export function pointerOf(path: string | ReadonlyArray<PropertyKey> | undefined): string {
  if (path === undefined) return "";
  if (typeof path === "string") return path;
  return path.map((k) => `/${escape(k)}`).join("");
}

function brief(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Zod's issues as problems (`zod.<code>`, the issue's path and message). */
export function zodProblems(issues: ReadonlyArray<ZodIssueLike>): NativeProblem[] {
  return issues.map((issue) => ({
    message: issue.message,
    pointer: pointerOf(issue.path),
    code: `zod.${issue.code ?? "invalid"}`,
    expected: brief(issue.expected),
    received: brief(issue.received),
  }));
}

/** What a validator found, as problems. */
export function problemsOf(out: Found): NativeProblem[] {
  if (out === undefined || out === null) return [];
  const list: ReadonlyArray<string | Problem> =
    typeof out === "string" || !Array.isArray(out) ? [out as string | Problem] : out;
  return list.map((p) =>
    typeof p === "string"
      ? { message: p, pointer: "" }
      : {
          message: p.message,
          pointer: pointerOf(p.path),
          code: p.code,
          severity: p.severity,
          expected: p.expected,
          received: p.received,
        },
  );
}

/** Parses `value` with the Zod schema, async refinements and transforms included. */
export async function zodParse(zod: ZodSchemaLike, value: unknown): Promise<SafeParse> {
  return zod.safeParseAsync ? zod.safeParseAsync(value) : zod.safeParse(value);
}

/** The value a valid answer stands for: parsed by the Zod schema (transforms applied). */
export async function finalValue(shape: Shape, value: unknown): Promise<unknown> {
  if (!shape.zod) return value;
  return shape.zod.parseAsync ? shape.zod.parseAsync(value) : shape.zod.parse(value);
}
