/**
 * The shapes rectify returns: the wire format of `rectify check --output json`,
 * `rectify repair --output json` and `rectify run --output json` (the same fields in every
 * binding and in the CLI, so the names are the protocol's: `snake_case`).
 */

/** One problem found in a document or value. */
export interface Diagnostic {
  /** `error` blocks acceptance; `warning` does not. */
  severity: "error" | "warning";
  /** A stable code (`schema.required`, `syntax.unexpected`, `zod.custom`, ...). */
  code: string;
  /** Where, as a dotted path (`tasks[0].phaseId`; empty for the root). */
  path: string;
  /** Where, as a JSON Pointer (`/tasks/0/phaseId`). */
  pointer: string;
  /** 1-based line in the text, when the problem was found in text. */
  line: number | null;
  /** 1-based column in the text, when the problem was found in text. */
  column: number | null;
  /** What is wrong, in a sentence for a person or a model. */
  message: string;
  /** What was expected, when it can be said briefly. */
  expected: string | null;
  /** What was found instead. */
  received: string | null;
  /** Which check found it (`schema`, `rules`, `parse`, `validator:javascript`, ...). */
  source: string;
}

/** A span of the text: byte offsets and the 1-based line and column of the start. */
export interface Span {
  start: number;
  end: number;
  line: number;
  column: number;
}

/** One deterministic repair that was applied. */
export interface Repair {
  /** A stable code (`json.trailing_comma`, `extract.fence`, ...). */
  code: string;
  /** Where it was applied. */
  location: { pointer: string; path: string; span?: Span };
  /** The text before. */
  before: string;
  /** The text after. */
  after: string;
  /** `safe` repairs apply by default; `unsafe` ones only with `unsafe: true`. */
  applicability: "safe" | "unsafe";
}

/** What `repair` returns. */
export interface RepairResult<T = unknown> {
  /** True when the value was recovered and has no error left. */
  valid: boolean;
  /** The repaired value (`null` when nothing could be recovered). */
  value: T | null;
  /** What was repaired, in order. */
  repairs: Repair[];
  /** What is still wrong (or what could not be repaired). */
  diagnostics: Diagnostic[];
}

/** What `check` returns. */
export interface CheckResult {
  /** True when there is no error (warnings allowed). */
  valid: boolean;
  /** Every problem found. */
  diagnostics: Diagnostic[];
  /** Repairs made before the check (none: `check` reads the document as it is). */
  repairs: Repair[];
}

/** One call of the model in a run of the loop (an attempt of `rectify ask --output json`). */
export interface Attempt {
  /** 1-based. */
  number: number;
  /** The provider rung (0 unless a fallback provider answered). */
  rung: number;
  /** The provider (`fn:javascript` for your own `execute`). */
  provider: string;
  /** The model the provider named. */
  model: string;
  /** The sampling temperature, when one was set. */
  temperature: number | null;
  /** Why the model stopped (`stop`, `length`, ...). */
  finish_reason: string;
  /** The model's text, as it answered. */
  raw: string;
  /** True when this answer passed every check. */
  valid: boolean;
  /** The value read from it (after repairs), if any. */
  value: unknown;
  /** Its problems. */
  diagnostics: Diagnostic[];
  /** The repairs applied to it. */
  repairs: Repair[];
  /** Tokens in, as the provider reported them. */
  input_tokens: number;
  /** Tokens out. */
  output_tokens: number;
  /** Cost in USD, when priced. */
  cost: number | null;
  /** How long the call took, in milliseconds. */
  latency_ms: number;
  /** Transport retries within this call. */
  transport_retries: number;
  /** The feedback on this answer, sent with the next call (`null` when there was none). */
  feedback: string | null;
  /** Notes of the provider about this call. */
  notices: string[];
}

/** The best answer of a run that never passed. */
export interface Candidate {
  /** The attempt it came from. */
  attempt: number;
  /** Its value (after repairs), if one could be read. */
  value: unknown;
  /** The model's text. */
  raw: string;
  /** What is still wrong with it. */
  diagnostics: Diagnostic[];
}

/** The status of a workflow run. */
export type RunStatus = "completed" | "waiting" | "failed" | "running" | "interrupted";

/** What a waiting run waits for. */
export interface Waiting {
  /** The step. */
  step: string;
  /** `human` (a pause for a person) or `exhausted` (a step that escalated). */
  reason: "human" | "exhausted" | string;
  /** The question, or why the step escalated. */
  message: string | null;
  /** The problems of the best candidate. */
  diagnostics: Diagnostic[];
  /** The files concerned. */
  files: string[];
  /** The best candidate answer, when the step answers (cut at 1 MiB: see `best_bytes`). */
  best: string | null;
  /** The whole length of `best` in bytes, when it was cut. */
  best_bytes?: number;
  /** The `rectify resume` command lines that continue the run. */
  continue: string[];
}

/** One step of a run. */
export interface StepSummary {
  /** The step id (`step[key]` for a `foreach` item). */
  id: string;
  /** `done`, `done_with_warnings`, `waiting`, `failed`, `pending`, `running` or `skipped`. */
  status: string;
  /** Producer runs. */
  attempts: number;
  /** Deterministic repairs applied to its outputs. */
  repairs: number;
  /** Runs of the repair agent. */
  repair_runs: number;
  /** Producer runs with feedback. */
  revisions: number;
  /** Producer runs after a FAIL verdict. */
  validations: number;
  /** The last verdict. */
  verdict: string | null;
  /** Warnings (validator WARN findings, confinement). */
  warnings: string[];
  /** Errors of its last check, when it did not finish. */
  diagnostics?: Diagnostic[];
  /** Tokens over all its calls. */
  tokens: { input: number; output: number };
  /** Cost over all its calls (0 when unpriced). */
  cost_usd: number;
}

/** The summary of a workflow run (`rectify run --output json`). */
export interface RunSummary {
  /** The run id. */
  run_id: string;
  /** The workflow's name. */
  workflow: string;
  /** Where the run stands. */
  status: RunStatus;
  /** What the run waits for (the first open wait), when it waits. */
  waiting: Waiting | null;
  /** Every open wait (several when parallel branches escalated). */
  waits?: Waiting[];
  /** Why the run failed when it is not its content. */
  failure?: "provider" | "config";
  /** The steps in the order they started. */
  steps: StepSummary[];
  /** Things the person should know. */
  notes?: string[];
}
