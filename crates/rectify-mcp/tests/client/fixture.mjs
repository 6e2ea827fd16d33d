// The files the tests serve: a root with documents, schemas, script agents and workflows, and
// beside it (outside the root) a secret the server must never read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const BIN = process.env.RECTIFY_BIN;
if (!BIN) throw new Error('RECTIFY_BIN must name the built rectify binary (scripts/mcp.sh sets it)');

function write(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A fresh fixture: `root` (served), `outside` (never read), `state` (markers of agents). */
export function makeFixture() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rectify-mcp-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  const state = path.join(base, 'state');
  const secret = `SECRET-${process.pid}-${Date.now()}`;
  fs.mkdirSync(state, { recursive: true });
  write(path.join(outside, 'secret.txt'), `${secret}\n`);
  write(path.join(outside, 'secret.schema.json'), JSON.stringify({ const: secret }));
  write(path.join(root, 'schema.json'), JSON.stringify({
    type: 'object', required: ['name'], additionalProperties: false,
    properties: { name: { type: 'string' }, age: { type: 'integer' } },
  }));
  write(path.join(root, 'good.json'), '{"name": "Ada", "age": 36}\n');
  write(path.join(root, 'bad.json'), '{\n  "name": "Ada",\n  "age": "36"\n}\n');
  // A Markdown document wrapped whole in a fence, its front matter's `title` on line 5.
  write(path.join(root, 'fenced.md'), 'Here is the plan:\n\n```markdown\n---\ntitle: 3\n---\n# Plan\n\nBody.\n```\n');
  write(path.join(root, 'title.schema.json'), JSON.stringify({ type: 'object', properties: { title: { type: 'string' } } }));
  write(path.join(root, 'refout.schema.json'), JSON.stringify({ $ref: '../outside/secret.schema.json' }));
  fs.symlinkSync(outside, path.join(root, 'link'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.json'));
  // `ask`'s agent: answers with JSON the schema accepts (after a fenced, broken first try).
  write(path.join(root, 'answer.sh'),
    `cat > /dev/null\nif [ ! -f '${state}/asked' ]; then touch '${state}/asked'; printf '\`\`\`json\\n{"name": "Ada", "age": "x",}\\n\`\`\`\\n'; else echo '{"name": "Ada", "age": 36}'; fi\n`);
  // A workflow that pauses for a person between two script agents.
  script(root, 'writer', 'echo spec > spec.txt');
  script(root, 'coder', 'echo done > code.txt');
  write(path.join(root, 'gated.yaml'), `name: gated\n${agentsYaml(root, ['writer', 'coder'])}steps:\n  - id: spec\n    agent: writer\n    prompt: write\n    outputs: [{path: spec.txt}]\n  - id: approve\n    needs: [spec]\n    human: "Is the spec right?"\n  - id: code\n    needs: [approve]\n    agent: coder\n    prompt: code\n    outputs: [{path: code.txt}]\n`);
  // A workflow whose agent works for a minute (cancelled by the tests): it records its pid.
  script(root, 'slow', `echo $$ > '${state}/slow.pid'\nsleep 60\necho late > slow.txt`);
  write(path.join(root, 'slow.yaml'), `name: slow\n${agentsYaml(root, ['slow'])}steps:\n  - id: s\n    agent: slow\n    prompt: go\n    outputs: [{path: slow.txt}]\n`);
  return { base, root, outside, state, secret };
}

function script(root, name, body) {
  write(path.join(root, `${name}.sh`), `cat > /dev/null\n${body}\n`);
  write(path.join(root, 'agents', `${name}.md`), `---\nname: ${name}\nprovider: ${name}\n---\nYou are the ${name}.\n`);
}

function agentsYaml(root, names) {
  const providers = names.map((n) => `  ${n}: {kind: command, command: [sh, "${path.join(root, `${n}.sh`)}"]}\n`).join('');
  const agents = names.map((n) => `  ${n}: agents/${n}.md\n`).join('');
  return `providers:\n${providers}agents:\n${agents}`;
}

/** The server's command line for `fixture` (ask's agent after `--`). */
export function serverArgs(fixture, extra = []) {
  return ['mcp', '--root', fixture.root, ...extra, '--', 'sh', path.join(fixture.root, 'answer.sh')];
}

/** A client connected over stdio to a server started as a coding agent starts it. */
export async function stdioClient(fixture) {
  const transport = new StdioClientTransport({ command: BIN, args: serverArgs(fixture), stderr: 'pipe' });
  const client = new Client({ name: 'rectify-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Starts `rectify mcp --http 127.0.0.1:0`; resolves with the process and its URL. */
export function startHttp(fixture) {
  const child = spawn(BIN, serverArgs(fixture, ['--http', '127.0.0.1:0']), { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      // Up to the end of the line: stderr may arrive cut inside the port number.
      const m = err.match(/listening on (http:\/\/\S+)\r?\n/);
      if (m) resolve({ child, url: new URL(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`rectify mcp --http exited ${code}: ${err}`)));
  });
}

/** A client connected over Streamable HTTP. */
export async function httpClient(url) {
  const client = new Client({ name: 'rectify-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** Waits until `check()` is true (polling), or fails after `ms`. */
export async function until(check, ms = 20000) {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
