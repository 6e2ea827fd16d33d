// The goals of issue 39, measured (scripts/mcp.sh --bench; docs/BENCHMARKS.md):
// - the `check` tool on a 1 MB document against `rectify check` on the same file, in one run:
//   the median of N calls through the official SDK client (stdio) against the median of N
//   `rectify check --output json` processes;
// - the server's resident memory when idle: after the handshake, and after the checks (1 s
//   after the last: the server gives back what its allocator keeps 100 ms after a call), with
//   its two parts: anonymous (the heap and stacks the server holds) and file-backed (the
//   binary's code pages, clean and shared with the page cache).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = process.env.RECTIFY_BIN;
const N = Number(process.env.RECTIFY_BENCH_RUNS ?? 21);
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rectify-mcp-bench-')));

// A 1 MB document: records against a schema with types, a pattern and required fields, one
// record invalid (so the answer carries a diagnostic).
const schema = {
  type: 'object', required: ['records'],
  properties: { records: { type: 'array', items: { type: 'object', required: ['id', 'name', 'score', 'tags'],
    properties: { id: { type: 'string', pattern: '^r[0-9]+$' }, name: { type: 'string' }, score: { type: 'number' },
      tags: { type: 'array', items: { type: 'string' } } } } } },
};
const records = [];
const render = () => JSON.stringify({ records }, null, 2);
for (let i = 0; i % 100 !== 0 || render().length < 1 << 20; i++) {
  records.push({ id: `r${i}`, name: `record number ${i}`, score: i === 700 ? 'high' : i / 4, tags: ['alpha', 'beta', `t${i % 13}`] });
}
const doc = render();
fs.writeFileSync(path.join(dir, 'doc.json'), doc);
fs.writeFileSync(path.join(dir, 'schema.json'), JSON.stringify(schema));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const field = (pid, name) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${name}:\\s+(\\d+)`))[1]) / 1024;
const rss = (pid) => ({ rss: field(pid, 'VmRSS'), anon: field(pid, 'RssAnon'), file: field(pid, 'RssFile') });

// The whole environment (the SDK passes only a few variables by default), as a shell would.
const transport = new StdioClientTransport({ command: BIN, args: ['mcp', '--root', dir], env: { ...process.env } });
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(transport);
await client.listTools();
await new Promise((r) => setTimeout(r, 1000));
const idle = rss(transport.pid);

// Interleaved, so both see the same machine load.
const cli = [];
const tool = [];
let cliOut;
let toolOut;
for (let i = 0; i < N; i++) {
  let t = process.hrtime.bigint();
  const r = spawnSync(BIN, ['check', 'doc.json', '--schema', 'schema.json', '--output', 'json'], { cwd: dir, maxBuffer: 1 << 26 });
  cli.push(Number(process.hrtime.bigint() - t) / 1e6);
  cliOut = JSON.parse(r.stdout);
  t = process.hrtime.bigint();
  const answer = await client.callTool({ name: 'check', arguments: { file: 'doc.json', schema: ['schema.json'] } });
  tool.push(Number(process.hrtime.bigint() - t) / 1e6);
  toolOut = answer.structuredContent;
}
await new Promise((r) => setTimeout(r, 1000));
const idleAfter = rss(transport.pid);
await client.close();
if (JSON.stringify(toolOut) !== JSON.stringify(cliOut)) throw new Error('the tool and the CLI answered differently');

console.log(JSON.stringify({
  document_bytes: doc.length,
  diagnostics: toolOut.diagnostics.length,
  runs: N,
  cli_check_median_ms: +median(cli).toFixed(1),
  tool_check_median_ms: +median(tool).toFixed(1),
  ratio_tool_over_cli: +(median(tool) / median(cli)).toFixed(2),
  idle_rss_mib_after_handshake: +idle.rss.toFixed(1),
  idle_rss_mib_after_checks: +idleAfter.rss.toFixed(1),
  idle_anon_mib_after_handshake: +idle.anon.toFixed(1),
  idle_anon_mib_after_checks: +idleAfter.anon.toFixed(1),
  idle_file_mib_after_checks: +idleAfter.file.toFixed(1),
  same_answer: true,
}, null, 2));
fs.rmSync(dir, { recursive: true, force: true });
