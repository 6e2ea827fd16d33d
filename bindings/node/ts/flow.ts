/** Workflows: run one, resume it with a person's decision, read its status. */

import * as path from "node:path";
import native = require("./native");
import { ConfigError, translate } from "./errors";
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
}

function parse(text: string): RunSummary {
  return JSON.parse(text) as RunSummary;
}

/**
 * Runs a workflow file until it completes, fails, or waits (for a person, or a step that
 * escalated): resolves to the run's summary either way.
 */
export async function run(workflow: string, options: RunOptions = {}): Promise<RunSummary> {
  try {
    return parse(
      await native.runWorkflow(workflow, {
        workdir: path.resolve(options.workdir ?? "."),
        inputs: options.inputs,
        runId: options.runId,
        maxParallel: options.maxParallel,
      }),
    );
  } catch (e) {
    throw translate(e);
  }
}

/** Continues a waiting run with a decision; resolves to its new summary. */
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
  try {
    return parse(
      await native.resumeWorkflow(runId, {
        workdir,
        decision,
        step: options.step,
        feedback: options.reject,
        edits,
        maxParallel: options.maxParallel,
      }),
    );
  } catch (e) {
    throw translate(e);
  }
}

/** The summary of a run (a `ConfigError` when `workdir` has no such run). */
export async function status(runId: string, options: { workdir?: string } = {}): Promise<RunSummary> {
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
