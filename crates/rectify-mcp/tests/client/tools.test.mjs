// rectify mcp driven by the official MCP TypeScript SDK client, over stdio and Streamable
// HTTP: every tool, a workflow paused for a person and resumed through the tools, progress,
// cancellation, resources, the prompt, and paths that leave the root.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, makeFixture, stdioClient, startHttp, httpClient, until } from './fixture.mjs';

const TOOLS = ['ask', 'check', 'repair', 'report', 'resume', 'run', 'status'];

/** The text of a tool result (its first content block). */
const text = (result) => result.content.map((c) => c.text ?? '').join('\n');

/** The tests, for a client made by `connect` over one transport. */
function suite(name, connect) {
  describe(name, () => {
    let fixture;
    let client;
    before(async () => {
      fixture = makeFixture();
      client = await connect(fixture);
    });
    after(async () => {
      await client?.close();
    });

    test('lists the seven tools, each with an input schema', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.ok(tool.description.length > 40, tool.name);
      }
      const check = tools.find((t) => t.name === 'check');
      assert.ok(check.inputSchema.properties.file && check.inputSchema.properties.schema);
      assert.equal(check.annotations.readOnlyHint, true);
      // The documented wire formats (docs/output/*.schema.json): the SDK client validates every
      // structured result against them.
      for (const name of ['check', 'repair', 'ask', 'run', 'status', 'resume', 'report']) {
        assert.equal(tools.find((t) => t.name === name).outputSchema?.type, 'object', name);
      }
    });

    test('check answers with the wire format of `rectify check --output json`', async () => {
      const good = await client.callTool({ name: 'check', arguments: { file: 'good.json', schema: ['schema.json'] } });
      assert.equal(good.isError, false);
      assert.deepEqual(good.structuredContent, { valid: true, diagnostics: [], repairs: [] });
      const bad = await client.callTool({ name: 'check', arguments: { file: 'bad.json', schema: ['schema.json'] } });
      assert.equal(bad.structuredContent.valid, false);
      const [d] = bad.structuredContent.diagnostics;
      assert.equal(d.code, 'schema.type');
      assert.equal(d.path, 'age');
      assert.equal(d.line, 3);
      assert.equal(d.column, 10);
      const inline = await client.callTool({ name: 'check', arguments: { content: 'name: Ada\n', format: 'yaml', schema: ['schema.json'] } });
      assert.equal(inline.structuredContent.valid, true);
    });

    test('check of a fenced Markdown document answers as `rectify check` does, lines included', async () => {
      const args = { file: 'fenced.md', schema: ['title.schema.json'] };
      const r = await client.callTool({ name: 'check', arguments: args });
      const cli = spawnSync(BIN, ['check', 'fenced.md', '--schema', 'title.schema.json', '--output', 'json'], { cwd: fixture.root, encoding: 'utf8' });
      assert.deepEqual(r.structuredContent, JSON.parse(cli.stdout));
      const [d] = r.structuredContent.diagnostics;
      assert.equal(d.code, 'schema.type');
      assert.equal(d.line, 5); // in the whole file, not in the fence's content (line 2)
      assert.deepEqual(r.structuredContent.repairs.map((x) => x.code), ['extract.code_fence', 'extract.prose']);
    });

    test('repair answers with the repaired value and every repair', async () => {
      const r = await client.callTool({ name: 'repair', arguments: { content: '```json\n{"name": "Ada", "tags": ["x",],}\n```' } });
      assert.equal(r.structuredContent.valid, true);
      assert.deepEqual(r.structuredContent.value, { name: 'Ada', tags: ['x'] });
      const codes = r.structuredContent.repairs.map((x) => x.code);
      assert.ok(codes.includes('extract.code_fence') && codes.includes('json.trailing_comma'), codes.join());
    });

    test('paths outside the root are refused and nothing is read', async () => {
      for (const file of ['../outside/secret.txt', path.join(fixture.outside, 'secret.txt'), 'link/secret.txt', 'secret-link.json', 'good.json/../../outside/secret.txt']) {
        const r = await client.callTool({ name: 'check', arguments: { file } });
        assert.equal(r.isError, true, file);
        assert.match(text(r), /outside the server's root|leads out of the server's root/, file);
        assert.ok(!text(r).includes(fixture.secret), file);
      }
      const ref = await client.callTool({ name: 'check', arguments: { file: 'good.json', schema: ['refout.schema.json'] } });
      assert.equal(ref.isError, true);
      assert.match(text(ref), /outside the schema's directory/);
      assert.ok(!text(ref).includes(fixture.secret));
      const wf = await client.callTool({ name: 'run', arguments: { workflow: '../outside/secret.txt' } });
      assert.equal(wf.isError, true);
      const schema = await client.callTool({ name: 'repair', arguments: { content: '{}', schema: 'link/secret.schema.json' } });
      assert.equal(schema.isError, true);
    });

    test('ask retries the configured agent until its answer fits, with progress', async () => {
      fs.rmSync(path.join(fixture.state, 'asked'), { force: true });
      const progress = [];
      const r = await client.callTool(
        { name: 'ask', arguments: { prompt: 'Who?', schema: 'schema.json' } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      );
      assert.equal(r.isError, false, text(r));
      assert.equal(r.structuredContent.status, 'valid');
      assert.deepEqual(r.structuredContent.value, { name: 'Ada', age: 36 });
      assert.ok(progress.some((p) => /attempt 2/.test(p.message)), JSON.stringify(progress));
    });

    test('a workflow pauses for a person and is resumed through the tools', async () => {
      const progress = [];
      const run = await client.callTool(
        { name: 'run', arguments: { workflow: 'gated.yaml', run_id: 'gated-1' } },
        undefined,
        { onprogress: (p) => progress.push(p.message) },
      );
      assert.equal(run.isError, false, text(run));
      assert.equal(run.structuredContent.status, 'waiting');
      assert.equal(run.structuredContent.waiting.step, 'approve');
      assert.ok(progress.some((m) => m.startsWith('[spec]')), progress.join('\n'));
      const status = await client.callTool({ name: 'status', arguments: { run: 'gated-1' } });
      assert.equal(status.structuredContent.status, 'waiting');
      const list = await client.callTool({ name: 'status', arguments: {} });
      assert.ok(list.structuredContent.runs.some((r) => r.id === 'gated-1'));
      const resource = await client.readResource({ uri: 'rectify://runs/gated-1' });
      assert.equal(JSON.parse(resource.contents[0].text).status, 'waiting');
      const resumed = await client.callTool({ name: 'resume', arguments: { run: 'gated-1', decision: 'approve' } });
      assert.equal(resumed.isError, false, text(resumed));
      assert.equal(resumed.structuredContent.status, 'completed');
      assert.equal(fs.readFileSync(path.join(fixture.root, 'code.txt'), 'utf8'), 'done\n');
      const report = await client.callTool({ name: 'report', arguments: { run: 'gated-1' } });
      assert.equal(report.isError, false, text(report));
      assert.ok(JSON.stringify(report.structuredContent).includes('approve'));
      const again = await client.callTool({ name: 'resume', arguments: { run: 'gated-1', decision: 'approve' } });
      assert.equal(again.isError, true);
    });

    test('run without waiting answers at once with the run id', async () => {
      const r = await client.callTool({ name: 'run', arguments: { workflow: 'gated.yaml', run_id: 'gated-bg', wait: false } });
      assert.equal(r.structuredContent.run_id, 'gated-bg');
      let status;
      for (let i = 0; i < 200 && status?.structuredContent?.status !== 'waiting'; i++) {
        status = await client.callTool({ name: 'status', arguments: { run: 'gated-bg' } });
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(status.structuredContent.status, 'waiting');
    });

    test('cancelling a run stops its agent and records it as interrupted', async () => {
      const pidFile = path.join(fixture.state, 'slow.pid');
      fs.rmSync(pidFile, { force: true });
      const abort = new AbortController();
      const call = client.callTool({ name: 'run', arguments: { workflow: 'slow.yaml', run_id: 'slow-1' } }, undefined, { signal: abort.signal, timeout: 120000 });
      await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '');
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      abort.abort();
      await assert.rejects(call);
      await until(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 10000);
      let status;
      for (let i = 0; i < 100; i++) {
        status = await client.callTool({ name: 'status', arguments: { run: 'slow-1' } });
        if (status.structuredContent?.status === 'interrupted') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(status.structuredContent.status, 'interrupted');
    });

    test('resources: the diagnostic catalogue and the runs', async () => {
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === 'rectify://diagnostics'));
      const catalogue = await client.readResource({ uri: 'rectify://diagnostics' });
      assert.match(catalogue.contents[0].text, /schema\.type/);
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'rectify://runs/{id}'));
      await assert.rejects(client.readResource({ uri: 'rectify://runs/no-such-run' }));
      await assert.rejects(client.readResource({ uri: 'file:///etc/passwd' }));
    });

    test('the prompt "fix these diagnostics" is built from a check', async () => {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name), ['fix-diagnostics']);
      const p = await client.getPrompt({ name: 'fix-diagnostics', arguments: { file: 'bad.json', schema: 'schema.json' } });
      const body = p.messages[0].content.text;
      assert.match(body, /age \(line 3, column 10\): expected integer/);
      assert.match(body, /call the `check` tool/);
      await assert.rejects(client.getPrompt({ name: 'fix-diagnostics', arguments: { file: '../outside/secret.txt' } }));
    });

    test('bad arguments are protocol errors and the server stays up', async () => {
      // Arguments that do not fit the input schema are answered as a tool error (the SDK's
      // choice, so a model can correct its call); an unknown tool is a protocol error.
      const typed = await client.callTool({ name: 'check', arguments: { file: 5 } });
      assert.equal(typed.isError, true);
      assert.match(text(typed), /invalid type/);
      await assert.rejects(client.callTool({ name: 'no-such-tool', arguments: {} }), /-32602/);
      const none = await client.callTool({ name: 'check', arguments: {} });
      assert.equal(none.isError, true);
      const still = await client.callTool({ name: 'check', arguments: { file: 'good.json' } });
      assert.equal(still.structuredContent.valid, true);
    });
  });
}

suite('stdio', (fixture) => stdioClient(fixture));

let server;
suite('streamable http', async (fixture) => {
  server = await startHttp(fixture);
  return httpClient(server.url);
});
after(() => server?.child.kill());
