/**
 * The seed's story from TypeScript (`validateWithRetry` with Zod and an `executeAgent(feedback)`
 * callback), ported line for line onto rectify: the same schema, the same callback, the same
 * hand-off to a person — with the loop, the repairs and the feedback done by rectify.
 *
 * Runs as is, offline: `spawnClaudeCode` stands in for your own agent call. It answers like
 * agents do: prose around a fenced block, a trailing comma, a field missing, a task that names
 * a phase that does not exist.
 *
 *     scripts/node.sh   # compiles this with `tsc --strict` and runs it
 */

import { z } from "zod";
import { ExhaustedError, validateWithRetry } from "rectify";

// The seed: `const MAX_RETRIES = 3;` — now the `maxAttempts` option.
const MAX_RETRIES = 3;

// The seed's `ValidationResult<T>`, for callers that want a result rather than an exception.
export interface ValidationResult<T> {
  success: boolean;
  data?: T;
  errors?: string[];
  retryCount: number;
}

// The seed's `validateWithRetry<T>(schema, executeAgent)`, as a thin wrapper over rectify's.
export async function validateWithRetryResult<S extends z.ZodType>(
  schema: S,
  executeAgent: (feedback?: string) => Promise<unknown>,
): Promise<ValidationResult<z.infer<S>>> {
  let calls = 0;
  try {
    const data = await validateWithRetry({
      schema,
      maxAttempts: MAX_RETRIES,
      execute: (feedback) => {
        calls += 1;
        return executeAgent(feedback);
      },
    });
    return { success: true, data, retryCount: calls };
  } catch (e) {
    if (!(e instanceof ExhaustedError)) throw e;
    const errors = e.diagnostics.map((d) => `${d.path}: ${d.message}`);
    return { success: false, errors, retryCount: e.attempts.length };
  }
}

// The seed's usage in a workflow node.
const PlanningOutputSchema = z
  .object({
    scope: z.string(),
    strategy: z.string(),
    risks: z.array(z.string()),
    phases: z.array(z.string()).min(1),
    tasks: z.array(z.object({ id: z.string().regex(/^T\d+$/), title: z.string(), phaseId: z.string() })).min(1),
  })
  // A check JSON Schema cannot express: every task belongs to a phase of the plan.
  .superRefine((plan, ctx) => {
    plan.tasks.forEach((task, i) => {
      if (!plan.phases.includes(task.phaseId)) {
        ctx.addIssue({
          code: "custom",
          path: ["tasks", i, "phaseId"],
          message: `"${task.phaseId}" is not one of the phases ${JSON.stringify(plan.phases)}`,
        });
      }
    });
  });

const ANSWERS = [
  // 1: prose, a fence, a trailing comma (repaired), a missing title (fed back).
  'Here is the plan:\n```json\n{"scope": "auth", "strategy": "incremental", "risks": [], "phases": ["P1"], "tasks": [{"id": "T1", "phaseId": "P1"},]}\n```',
  // 2: the shape is right, but a task names a phase that does not exist (the refinement, fed back).
  '{"scope": "auth", "strategy": "incremental", "risks": [], "phases": ["P1"], "tasks": [{"id": "T1", "title": "Set up", "phaseId": "P2"}]}',
  // 3: right.
  '{"scope": "auth", "strategy": "incremental", "risks": ["tokens"], "phases": ["P1", "P2"], "tasks": [{"id": "T1", "title": "Set up", "phaseId": "P2"}]}',
];

/** Stands in for the agent: answers from a script and shows what it was told. */
function agent(answers: string[]): (options: { prompt: string }) => Promise<string> {
  let calls = 0;
  return async ({ prompt }) => {
    if (prompt !== basePrompt) console.log(`--- call ${calls + 1}, prompt:\n${prompt}\n`);
    const answer = answers[Math.min(calls, answers.length - 1)];
    calls += 1;
    return answer;
  };
}

const basePrompt = "Write the plan for the feature as JSON.";

interface State {
  status: "planning" | "planned" | "hitl_waiting";
  plan?: z.infer<typeof PlanningOutputSchema>;
  hitlQuestion?: string;
}

async function planningNode(state: State, spawnClaudeCode: (o: { prompt: string }) => Promise<string>): Promise<State> {
  const result = await validateWithRetryResult(PlanningOutputSchema, async (feedback) => {
    return spawnClaudeCode({
      prompt: feedback ? `${basePrompt}\n\nFeedback: ${feedback}` : basePrompt,
    });
  });

  if (!result.success) {
    // Transition to HITL state
    return { ...state, status: "hitl_waiting", hitlQuestion: (result.errors ?? []).join("\n") };
  }
  return { ...state, status: "planned", plan: result.data };
}

async function main(): Promise<void> {
  const planned = await planningNode({ status: "planning" }, agent(ANSWERS));
  console.log(`${planned.status}: ${JSON.stringify(planned.plan)}\n`);

  // A stubborn agent: never right. The person gets what is left to fix.
  const stuck = await planningNode({ status: "planning" }, agent(ANSWERS.slice(0, 2)));
  console.log(`${stuck.status}: ${stuck.hitlQuestion}`);
  if (planned.status !== "planned" || stuck.status !== "hitl_waiting") process.exitCode = 1;
}

void main();
