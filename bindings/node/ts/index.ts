/**
 * rectify for TypeScript: parse leniently, repair, check and retry LLM structured output with
 * your Zod schemas, on rectify's Rust core.
 *
 * ```ts
 * import { z } from "zod";
 * import { validateWithRetry } from "rectify";
 *
 * const Plan = z.object({ scope: z.string(), risks: z.array(z.string()) });
 * const plan = await validateWithRetry({
 *   schema: Plan,
 *   execute: (feedback) => callMyAgent(feedback),
 *   maxAttempts: 3,
 * });
 * ```
 *
 * @packageDocumentation
 */

export { repair, check } from "./check";
export type { RepairOptions, CheckOptions } from "./check";
export { validateWithRetry } from "./loop";
export type { Execute, ExecuteContext, FeedbackMode, RetryOptions } from "./loop";
export { Client } from "./client";
export type { ClientOptions, ExtractOptions, ProviderName } from "./client";
export { run, resume, status } from "./flow";
export type { RunOptions, ResumeOptions, StatusOptions } from "./flow";
export {
  RectifyError,
  ConfigError,
  ProviderError,
  RefusedError,
  ExhaustedError,
} from "./errors";
export type { Found, Infer, JsonSchema, Problem, Schema, Validator, ZodSchemaLike } from "./schema";
export type * from "./types";

import native = require("./native");

/** Whether this build has the embedded model (`provider: "local"`). */
export const hasLocalModel: boolean = native.hasLocalModel();
