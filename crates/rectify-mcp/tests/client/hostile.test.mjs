// 1,000 malformed or hostile requests, written as raw bytes (no SDK in the way): broken JSON,
// wrong shapes, unknown methods, bad arguments, oversized and deeply nested payloads, and
// paths that try to leave the root. The server answers what it can with protocol or tool
// errors, reads nothing outside the root, and still answers a good request afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { BIN, makeFixture, serverArgs, startHttp } from './fixture.mjs';

const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } };

/** A deterministic generator (xorshift), so a failure reproduces. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

/** The hostile requests: [text, id expected to be answered (or null)]. */
function hostile(fixture, count) {
  const random = rng(39);
  const escapes = ['../outside/secret.txt', '../../../../etc/passwd', '/etc/passwd', path.join(fixture.outside, 'secret.txt'),
    'link/secret.txt', 'secret-link.json', 'good.json/../../outside/secret.txt', '..\\..\\outside\\secret.txt',
    'a\u0000b', 'x/'.repeat(3000) + 'y', '', '.', 'link', '%2e%2e/outside/secret.txt'];
  const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const kinds = [
    (id) => [`{"jsonrpc":"2.0","id":${id},"method":`, null],
    (id) => [`\u0000\u00ff garbage ${id} }{][`, null],
    (id) => ['['.repeat(5000) + ']'.repeat(5000), null],
    (id) => [JSON.stringify({ jsonrpc: '2.0', id, method: 'no/such/method' }), id],
    (id) => [JSON.stringify({ jsonrpc: '1.0', id, method: 'tools/list', params: 7 }), null],
    (id) => [JSON.stringify({ id: { deep: [1, 2] }, method: 42 }), null],
    (id) => [JSON.stringify(call(id, 'check', { file: escapes[Math.floor(random() * escapes.length)] })), id],
    (id) => [JSON.stringify(call(id, 'check', { file: 'good.json', schema: ['refout.schema.json'] })), id],
    (id) => [JSON.stringify(call(id, 'check', { file: 'good.json', rules: escapes[Math.floor(random() * escapes.length)] })), id],
    (id) => [JSON.stringify(call(id, 'repair', { content: '{"a": [1, 2,' + '"x", '.repeat(Math.floor(random() * 2000)) })), id],
    (id) => [JSON.stringify(call(id, 'check', { file: 7, content: ['no'] })), id],
    (id) => [JSON.stringify(call(id, 'report', { run: '../../etc/passwd', workdir: '../outside' })), id],
    (id) => [JSON.stringify(call(id, 'status', { run: "x'; drop table runs; --" })), id],
    (id) => [JSON.stringify(call(id, 'resume', { run: 'nope', decision: 'edit', edits: { 'spec.txt': '../outside/secret.txt' } })), id],
    (id) => [JSON.stringify(call(id, 'no-such-tool', {})), id],
    (id) => [JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: `rectify://runs/../../${escapes[0]}` } }), id],
    (id) => [JSON.stringify({ jsonrpc: '2.0', id, method: 'prompts/get', params: { name: 'fix-diagnostics', arguments: { file: escapes[0] } } }), id],
    (id) => [JSON.stringify(call(id, 'check', { content: 'x'.repeat(1 << 20), format: 'json' })), id],
  ];
  const out = [];
  for (let i = 1; i <= count; i++) out.push(kinds[Math.floor(random() * kinds.length)](i));
  return out;
}

/** Posts `body` with a `Host` header of our choosing (fetch may not set one); the status. */
function postWithHost(url, host, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('stdio: 1,000 hostile requests leave the server answering, nothing outside the root read', async () => {
  const fixture = makeFixture();
  const child = spawn(BIN, serverArgs(fixture), { stdio: ['pipe', 'pipe', 'ignore'] });
  const answers = new Map();
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const msg = JSON.parse(line);
      if (msg.id !== undefined) answers.set(msg.id, msg);
    }
  });
  const send = (text) => new Promise((res) => child.stdin.write(`${text}\n`, res));
  await send(JSON.stringify(INIT));
  await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const requests = hostile(fixture, 1000);
  for (const [textLine] of requests) await send(textLine);
  // An oversized line (over the 16 MiB a line may hold) is dropped, not read.
  await send('{"jsonrpc":"2.0","id":5000,"method":"tools/call","params":{"name":"check","arguments":{"content":"' + 'y'.repeat(17 << 20) + '"}}}');
  await send(JSON.stringify({ jsonrpc: '2.0', id: 9999, method: 'tools/call', params: { name: 'check', arguments: { file: 'good.json', schema: ['schema.json'] } } }));
  const start = Date.now();
  while (!answers.has(9999) && Date.now() - start < 120000) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(answers.get(9999)?.result?.structuredContent, { valid: true, diagnostics: [], repairs: [] });
  const expected = requests.filter(([, id]) => id !== null).map(([, id]) => id);
  await new Promise((r) => setTimeout(r, 500));
  const missing = expected.filter((id) => !answers.has(id));
  assert.deepEqual(missing, [], 'every well-formed request is answered');
  for (const id of expected) {
    const a = answers.get(id);
    assert.ok(a.error || a.result, `answer ${id}`);
  }
  const all = JSON.stringify([...answers.values()]);
  assert.ok(!all.includes(fixture.secret), 'the secret outside the root was never read');
  assert.equal(child.exitCode, null, 'the server is still running');
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
});

test('http: malformed and hostile posts get HTTP or JSON-RPC errors; the server keeps answering', async () => {
  const fixture = makeFixture();
  const { child, url } = await startHttp(fixture);
  try {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INIT) });
    assert.equal(init.status, 200);
    const session = init.headers.get('mcp-session-id');
    await init.text();
    const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await (await fetch(url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const statuses = new Map();
    for (const [body] of hostile(fixture, 300)) {
      const r = await fetch(url, { method: 'POST', headers: withSession, body });
      const answer = await r.text();
      assert.ok(!answer.includes(fixture.secret));
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
    // Oversized body, a foreign Host (DNS rebinding), no session, a wrong method.
    const big = await fetch(url, { method: 'POST', headers: withSession, body: 'z'.repeat(17 << 20) });
    assert.equal(big.status, 413);
    await big.text();
    assert.equal(await postWithHost(url, 'evil.example', JSON.stringify(INIT)), 403);
    const noSession = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.ok(noSession.status >= 400 && noSession.status < 500, String(noSession.status));
    await noSession.text();
    assert.ok([...statuses.keys()].every((s) => s < 500), JSON.stringify([...statuses]));
    const ok = await fetch(url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', id: 777, method: 'tools/call', params: { name: 'check', arguments: { file: 'good.json' } } }) });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /"valid":true/);
  } finally {
    child.kill();
  }
});
