/** Workflows: run one, resume it with a person's decision, read its status. */

import * as path from "node:path";
import native = require("./native");
import { cancellable } from "./abort";
import { ConfigError, abortReason, translate } from "./errors";
import type { RunSummary } from "./types";

/** The options of `run`. */
export interface RunOptions {
  /** The workflow's inputs (`{{ inputs.name }}` in its prompts). */
  inputs?: Record<string, string>;
  /** The working directory (the run store is `.rectify/` in it; default: the current one). */
  workdir?: string;
  /** The run's id (a new one when absent; an id already used is a `ConfigError`). */
  runId?: string;
  /** Steps run at once at most (default 2). */
  maxParallel?: number;
  /**
   * Aborting it stops the run: its agents are killed, the run is recorded as `interrupted`
   * (its lease given up), and the promise rejects with the signal's reason. `resume(runId)`
   * continues it.
   */
  signal?: AbortSignal;
}

/** The decision `resume` carries: exactly one of `approve`, `reject`, `edit`, or none (continue). */
export interface ResumeOptions {
  /** The working directory of the run (default: the current one). */
  workdir?: string;
  /** Approve the waiting step. */
  approve?: boolean;
  /** Reject it with this feedback (the work goes back to its producer). */
  reject?: string;
  /** Replace outputs: output path → file holding its new content. */
  edit?: Record<string, string>;
  /** The waiting step the decision is for (the first one when absent). */
  step?: string;
  /** Steps run at once at most (default 2). */
  maxParallel?: number;
  /** Aborting it stops the run as in `run` (recorded as `interrupted`, resumable). */
  signal?: AbortSignal;
}

/** The options of `status`. */
export interface StatusOptions {
  /** The working directory of the run (default: the current one). */
  workdir?: string;
  /** An already-aborted signal rejects with its reason (the read itself is not interruptible). */
  signal?: AbortSignal;
}

function parse(text: string): RunSummary {
  return JSON.parse(text) as RunSummary;
}

/**
 * Runs a workflow file until it completes, fails, or waits (for a person, or a step that
 * escalated): resolves to the run's summary either way. Rejects with the signal's reason when
 * `signal` aborts (the run is then `interrupted` and `resume` continues it).
 */
export async function run(workflow: string, options: RunOptions = {}): Promise<RunSummary> {
  const text = await cancellable(options.signal, (cancel) =>
    native.runWorkflow(
      workflow,
      {
        workdir: path.resolve(options.workdir ?? "."),
        inputs: options.inputs,
        runId: options.runId,
        maxParallel: options.maxParallel,
      },
      cancel,
    ),
  );
  return parse(text);
}

/**
 * Continues a waiting or interrupted run with a decision (none: continue); resolves to its new
 * summary. Rejects with the signal's reason when `signal` aborts, as `run` does.
 */
export async function resume(runId: string, options: ResumeOptions = {}): Promise<RunSummary> {
  const given = [options.approve === true, options.reject !== undefined, options.edit !== undefined];
  if (given.filter(Boolean).length > 1) {
    throw new ConfigError("resume takes one decision: approve, reject or edit");
  }
  const decision = options.approve
    ? "approve"
    : options.reject !== undefined
      ? "reject"
      : options.edit !== undefined
        ? "edit"
        : "continue";
  const workdir = path.resolve(options.workdir ?? ".");
  const edits = options.edit
    ? Object.fromEntries(Object.entries(options.edit).map(([k, v]) => [k, path.resolve(v)]))
    : undefined;
  const text = await cancellable(options.signal, (cancel) =>
    native.resumeWorkflow(
      runId,
      {
        workdir,
        decision,
        step: options.step,
        feedback: options.reject,
        edits,
        maxParallel: options.maxParallel,
      },
      cancel,
    ),
  );
  return parse(text);
}

/** The summary of a run (a `ConfigError` when `workdir` has no such run). */
export async function status(runId: string, options: StatusOptions = {}): Promise<RunSummary> {
  if (options.signal?.aborted) throw abortReason(options.signal);
  const workdir = path.resolve(options.workdir ?? ".");
  let text: string | null;
  try {
    text = native.runStatus(runId, workdir);
  } catch (e) {
    throw translate(e);
  }
  if (text === null) throw new ConfigError(`no run \`${runId}\` in \`${workdir}\``);
  return parse(text);
}
