// The MCP configuration the README gives a coding agent (the `mcpServers` shape Claude Code,
// Cursor and Gemini CLI read): the server is started exactly as it says, from the project's
// directory, and answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, makeFixture } from './fixture.mjs';

/** The README's ```json blocks that hold an `mcpServers` configuration. */
function readmeConfigs() {
  const readme = fs.readFileSync(process.env.RECTIFY_README, 'utf8');
  return [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((block) => block.includes('"mcpServers"'))
    .map((block) => JSON.parse(block));
}

test("the README's MCP configuration starts a working server", async () => {
  const configs = readmeConfigs();
  assert.equal(configs.length, 1, 'one configuration in the README');
  const servers = Object.entries(configs[0].mcpServers);
  assert.deepEqual(servers.map(([name]) => name), ['rectify']);
  const [, server] = servers[0];
  assert.equal(server.command, 'rectify');
  assert.ok(Array.isArray(server.args) && server.args[0] === 'mcp');
  // As the agent would: the command (here the built binary), its args, in the project.
  const fixture = makeFixture();
  const transport = new StdioClientTransport({ command: BIN, args: server.args, cwd: fixture.root, env: { ...process.env, ...(server.env ?? {}) } });
  const client = new Client({ name: 'coding-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion().name, 'rectify');
    assert.match(client.getInstructions(), /check/);
    const { tools } = await client.listTools();
    assert.equal(tools.length, 7);
    const r = await client.callTool({ name: 'check', arguments: { file: 'bad.json', schema: ['schema.json'] } });
    assert.equal(r.structuredContent.valid, false);
    const out = await client.callTool({ name: 'check', arguments: { file: '../outside/secret.txt' } });
    assert.equal(out.isError, true);
  } finally {
    await client.close();
  }
});
