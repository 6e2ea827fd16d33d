/**
 * Deterministic repair and checking, no model involved.
 *
 *     scripts/node.sh   # compiles this with `tsc --strict` and runs it
 */

import { z } from "zod";
import { check, repair } from "rectify";

/** An invoice as a model reads it. */
const Invoice = z.object({ number: z.string(), total: z.number() });

function main(): void {
  const answer = "Sure! ```json\n{'number': 'INV-7', total: '12.50',}\n```";
  const result = repair(answer, { schema: Invoice, unsafe: true });
  const invoice: z.infer<typeof Invoice> | null = result.value;
  console.log("value:", invoice);
  for (const r of result.repairs) {
    const where = r.location.span ? `${r.location.span.line}:${r.location.span.column}` : r.location.path;
    console.log(`  repaired[${r.code}] ${where} (${r.applicability})`);
  }

  const checked = check('{\n  "number": 7\n}', { schema: Invoice });
  for (const d of checked.diagnostics) {
    console.log(`${d.line}:${d.column} ${d.path}: ${d.message} [${d.code}]`);
  }
  if (invoice?.total !== 12.5 || checked.valid) process.exitCode = 1;
}

main();
