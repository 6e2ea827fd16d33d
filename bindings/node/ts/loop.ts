/**
 * The validate → repair → feedback → retry loop from TypeScript: your own `execute` function as
 * the model (`validateWithRetry`), or a provider (`Client`).
 */

import native = require("./native");
import {
  ConfigError,
  ExhaustedError,
  ProviderError,
  RefusedError,
  abortReason,
} from "./errors";
import { cancellable } from "./abort";
import {
  type Infer,
  type Schema,
  type Shape,
  type NativeProblem,
  type Validator,
  finalValue,
  problemsOf,
  shapeOf,
  zodParse,
  zodProblems,
} from "./schema";
import type { Attempt, Candidate, Diagnostic, Repair } from "./types";

/**
 * How a provider's messages carry the feedback: `prefix` puts a `## PREVIOUS VALIDATION FAILED`
 * block before the prompt, `append` adds the bad answer and the feedback as turns, `suffix`
 * appends `Feedback: ...`, `fresh` asks again without the bad answer. Your own `execute`
 * receives the feedback itself whatever the mode.
 */
export type FeedbackMode = "prefix" | "append" | "suffix" | "fresh";

/** What `execute` is told besides the feedback. */
export interface ExecuteContext {
  /** 1-based number of this call. */
  attempt: number;
  /** The signal of the call, when one was given (pass it on to `fetch` and the like). */
  signal?: AbortSignal;
}

/**
 * Your model, agent or client: called with `undefined` first, then with the feedback on the
 * previous answer; resolves to the model's text (a value that is not a string is sent as its
 * JSON).
 */
export type Execute = (feedback: string | undefined, context: ExecuteContext) => Promise<unknown> | unknown;

/** The checks every run of the loop takes. */
export interface CheckOptions<S extends Schema> {
  /** Calls of the model at most (default 3). */
  maxAttempts?: number;
  /** A rules file (cross-field and cross-file rules). */
  rules?: string;
  /** The reference documents the rules name: name → file. */
  refs?: Record<string, string>;
  /** Checks of the validated value that JSON Schema cannot express. */
  validators?: ReadonlyArray<Validator<Infer<S>>>;
  /** Also apply unsafe repairs. */
  unsafe?: boolean;
  /** Aborting it rejects the call with the signal's reason and stops the loop. */
  signal?: AbortSignal;
}

/** The options of `validateWithRetry`. */
export interface RetryOptions<S extends Schema> extends CheckOptions<S> {
  /** A Zod schema (3 or 4), a JSON Schema object, or a JSON Schema file. */
  schema: S;
  /** Your model (see `Execute`). */
  execute: Execute;
  /** How feedback is carried (for providers; `execute` receives the feedback itself). */
  feedback?: FeedbackMode;
}

/** The outcome the native loop returns: the JSON of `rectify ask --output json`. */
interface NativeOutcome {
  status: "valid" | "exhausted" | "refused" | "provider_failed" | string;
  /** The accepted value, or the best candidate's. */
  value: unknown;
  /** The accepted value's warnings, or the best candidate's problems. */
  diagnostics: Diagnostic[];
  repairs: Repair[];
  message: string | null;
  /** A run without a valid value, classified and worded by the core. */
  error: { class: "exhausted" | "refused" | "provider" | "config" | string; message: string } | null;
  best_attempt: number | null;
  provider_error: { kind: string; message: string } | null;
  attempts: Attempt[];
}

/** The best candidate of an outcome that is not valid. */
function bestOf(outcome: NativeOutcome): Candidate | null {
  const n = outcome.best_attempt;
  if (n === null) return null;
  const attempt = outcome.attempts.find((a) => a.number === n);
  return { attempt: n, value: outcome.value, raw: attempt?.raw ?? "", diagnostics: outcome.diagnostics };
}

/** What the caller's code threw during a run (kept, and thrown again when the run ends). */
class Thrown {
  set = false;
  error: unknown = undefined;
  keep(e: unknown): void {
    if (!this.set) {
      this.set = true;
      this.error = e;
    }
  }
}

/**
 * The validator the native loop calls on values that passed the JSON Schema and the rules:
 * the Zod schema (`safeParseAsync`, so async refinements run), then each of `validators`
 * (awaited). Resolves to the problems' JSON.
 */
function validatorOf<S extends Schema>(
  shape: Shape,
  validators: ReadonlyArray<Validator<Infer<S>>>,
  thrown: Thrown,
): ((json: string) => Promise<string>) | undefined {
  if (!shape.zod && validators.length === 0) return undefined;
  const zod = shape.zod;
  return async (json: string): Promise<string> => {
    if (thrown.set) return "[]";
    try {
      let value: unknown = JSON.parse(json);
      if (zod) {
        const parsed = await zodParse(zod, value);
        if (!parsed.success) return JSON.stringify(zodProblems(parsed.error.issues));
        value = parsed.data;
      }
      const problems: NativeProblem[] = [];
      for (const v of validators) problems.push(...problemsOf(await v(value as Infer<S>)));
      return JSON.stringify(problems);
    } catch (e) {
      thrown.keep(e);
      return JSON.stringify([{ message: "the validator threw", pointer: "", code: "validator.threw" }]);
    }
  };
}

/** The value of a valid outcome, or the error that says why there is none. */
async function finish(outcome: NativeOutcome, shape: Shape): Promise<unknown> {
  const { status, attempts } = outcome;
  if (status === "valid") return finalValue(shape, outcome.value);
  // The class and the words are the core's (`rectify::failure_of`), as on the command line.
  const error = outcome.error ?? { class: "config", message: `the run ended as \`${status}\`` };
  if (error.class === "exhausted") {
    throw new ExhaustedError(error.message, {
      best: bestOf(outcome),
      diagnostics: outcome.diagnostics,
      attempts,
    });
  }
  if (error.class === "refused") throw new RefusedError(error.message, attempts);
  if (error.class === "provider") throw new ProviderError(error.message, attempts);
  throw new ConfigError(error.message);
}

/** What a run of the loop needs besides its model. */
export interface RunArgs<S extends Schema> extends CheckOptions<S> {
  schema: S | undefined;
  feedback?: FeedbackMode;
  prompt?: string;
  system?: string;
}

/**
 * Runs the loop: `start` calls the native side with the options, the validator and the
 * cancellation handle. Settles with the value, the caller's own error, the signal's reason, or
 * one of rectify's errors.
 */
export async function runLoop<S extends Schema>(
  args: RunArgs<S>,
  thrown: Thrown,
  start: (
    options: import("../native/index.js").NativeLoopOptions,
    validate: ((json: string) => Promise<string>) | undefined,
    cancel: native.Cancel,
  ) => Promise<string>,
): Promise<Infer<S>> {
  const { signal } = args;
  if (signal?.aborted) throw abortReason(signal);
  const shape = shapeOf(args.schema);
  const validate = validatorOf(shape, args.validators ?? [], thrown);
  let text: string;
  try {
    text = await cancellable(signal, (cancel) =>
      start(
        {
          schema: shape.json,
          schemaPath: shape.path,
          rules: args.rules,
          refs: args.refs,
          maxAttempts: args.maxAttempts,
          feedback: args.feedback,
          unsafe: args.unsafe,
          prompt: args.prompt,
          system: args.system,
        },
        validate,
        cancel,
      ),
    );
  } catch (e) {
    // The signal's reason first, then what the caller's code threw, then rectify's error.
    if (signal?.aborted || !thrown.set) throw e;
    throw thrown.error;
  }
  if (thrown.set) throw thrown.error;
  if (signal?.aborted) throw abortReason(signal);
  return (await finish(JSON.parse(text) as NativeOutcome, shape)) as Infer<S>;
}

export { Thrown };

/**
 * Calls `execute` until its answer passes every check, and resolves to the value.
 *
 * Each answer is extracted from its prose and code fences and repaired deterministically
 * (trailing commas, quotes, comments, truncation, ...), then checked: the JSON Schema of
 * `schema`, the `rules` file, then the Zod schema itself with `safeParse` (refinements and
 * transforms included) and your `validators`. Problems are fed back to `execute` and it is
 * called again, up to `maxAttempts` calls. The loop runs in Rust off the event loop; `execute`
 * and the validators run on it.
 *
 * Resolves to `z.infer<typeof schema>` (parsed by your Zod schema) or the value. Rejects with
 * an `ExhaustedError` (the best candidate, its diagnostics and every attempt) when no answer
 * passes, with what `execute` or a validator threw (unchanged, with its stack), with the
 * signal's reason when `signal` aborts, or with a `ConfigError`.
 */
export async function validateWithRetry<S extends Schema>(
  options: RetryOptions<S>,
): Promise<Infer<S>> {
  const { execute, signal } = options;
  if (typeof execute !== "function") throw new ConfigError("`execute` must be a function");
  const thrown = new Thrown();
  let calls = 0;
  const model = async (feedback: string | null): Promise<string> => {
    if (thrown.set) throw new Error("stopped: the caller's code threw");
    if (signal?.aborted) throw new Error("stopped: the signal aborted");
    calls += 1;
    try {
      const out = await execute(feedback ?? undefined, { attempt: calls, signal });
      if (typeof out === "string") return out;
      const json = JSON.stringify(out);
      if (json === undefined) {
        throw new TypeError(`execute must resolve to the model's text, not ${typeof out}`);
      }
      return json;
    } catch (e) {
      thrown.keep(e);
      throw e;
    }
  };
  return runLoop({ ...options, feedback: options.feedback ?? "prefix" }, thrown, (o, v, c) =>
    native.validateWithRetry(model, o, v, c),
  );
}
