/** The errors rectify raises: every one is a `RectifyError`. */

import type { Attempt, Candidate, Diagnostic } from "./types";

/** The base class of rectify's errors. */
export class RectifyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An invalid schema, rules file or option, a missing key, no provider configured. */
export class ConfigError extends RectifyError {}

/** The provider failed after its transport retries (network, HTTP status, a command that failed). */
export class ProviderError extends RectifyError {
  /** The calls made before it failed. */
  readonly attempts: Attempt[];
  constructor(message: string, attempts: Attempt[] = []) {
    super(message);
    this.attempts = attempts;
  }
}

/** The model refused to answer. */
export class RefusedError extends RectifyError {
  /** The calls made. */
  readonly attempts: Attempt[];
  constructor(message: string, attempts: Attempt[] = []) {
    super(message);
    this.attempts = attempts;
  }
}

/**
 * No answer passed every check within `maxAttempts`: hand it to a person with the best
 * candidate and what is still wrong with it.
 */
export class ExhaustedError extends RectifyError {
  /** The best answer (fewest errors), if any call answered. */
  readonly best: Candidate | null;
  /** The best answer's problems. */
  readonly diagnostics: Diagnostic[];
  /** Every call, in order, with its feedback. */
  readonly attempts: Attempt[];
  constructor(
    message: string,
    fields: { best: Candidate | null; diagnostics: Diagnostic[]; attempts: Attempt[] },
  ) {
    super(message);
    this.best = fields.best;
    this.diagnostics = fields.diagnostics;
    this.attempts = fields.attempts;
  }
}

/** The error a native call rejected with, as one of rectify's (a configuration error) or as is. */
export function translate(e: unknown): unknown {
  if (e instanceof Error && (e as { code?: unknown }).code === "InvalidArg") {
    return new ConfigError(e.message);
  }
  return e;
}

/** Runs `f`, translating what it throws. */
export function translated<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw translate(e);
  }
}

/** The reason of an aborted signal (a `DOMException` named `AbortError` when none was given). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
