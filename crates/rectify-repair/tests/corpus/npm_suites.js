#!/usr/bin/env node
// Writes best_effort_json_parser.jsonl (next to this file) from the test suite of the npm
// package best-effort-json-parser. Regenerate with (Node 20, network for `npm pack`), from anywhere:
//
//     node crates/rectify-repair/tests/corpus/npm_suites.js
//
// It runs `npm pack` for best-effort-json-parser@1.5.1 and typescript@4.9.5
// (only to strip the types of the .spec.ts file) in a temporary directory, then evaluates the
// upstream test files with stubbed test frameworks: `parse` records its input and returns a
// token, and the stubbed `assert.equal` / chai `expect(...).equals` record the value the test
// expects for that token. Nothing of either library's own code runs. Cases that expect a throw,
// whose input is not a string or whose expected value is not JSON (undefined) are counted and
// skipped; a summary goes to stderr.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const vm = require('vm');
const { execFileSync } = require('child_process');

const OUT_DIR = __dirname;
const PACKAGES = {
  bestEffort: 'best-effort-json-parser@1.5.1',
  typescript: 'typescript@4.9.5',
};

function fetchPackage(spec, tmp) {
  const dir = path.join(tmp, spec.replace(/[@/]/g, '_'));
  fs.mkdirSync(dir);
  const tgz = execFileSync('npm', ['pack', spec, '--silent'], { cwd: dir, encoding: 'utf8' }).trim();
  execFileSync('tar', ['xzf', tgz.split('\n').pop()], { cwd: dir });
  return path.join(dir, 'package');
}

// ---- recording parse ----------------------------------------------------------------------

const MARK = '@@npm_suites_case@@';

class Recorder {
  constructor() {
    this.cases = [];
    this.test = null; // title path of the running test
  }

  // The stand-in for the library's parse(): records the call, returns a token standing for
  // the result. Property reads on the token (r[0], r.key, r.length) give path tokens.
  parse(input, options) {
    const c = { input, options, test: this.test, full: [], parts: [], throws: false };
    this.cases.push(c);
    return this.token(c, []);
  }

  token(c, p) {
    const rec = this;
    const target = function () {};
    return new Proxy(target, {
      get(_t, key) {
        if (key === TOKEN) return { c, path: p };
        if (key === 'toJSON') return () => MARK + rec.cases.indexOf(c);
        if (typeof key === 'symbol' || key === 'then' || key === 'constructor') return undefined;
        return rec.token(c, p.concat([key]));
      },
    });
  }

  // Records `actual == expected` when one side is a token (or the JSON text of one).
  equal(a, b) {
    for (const [x, y] of [[a, b], [b, a]]) {
      const t = tokenOf(x);
      if (t) {
        if (t.path.length === 0) t.c.full.push(y);
        else t.c.parts.push({ path: t.path, value: y });
        return;
      }
      if (typeof x === 'string' && x.startsWith(`"${MARK}`)) {
        const c = this.cases[Number(JSON.parse(x).slice(MARK.length))];
        c.full.push(JSON.parse(y)); // jeq(): both sides went through JSON.stringify
        return;
      }
    }
  }
}

const TOKEN = Symbol('token');
function tokenOf(x) {
  return (typeof x === 'function' || (typeof x === 'object' && x !== null)) && x[TOKEN]
    ? x[TOKEN]
    : null;
}

// Stubbed mocha: runs every test at once, depth first, with its title path recorded.
function mochaGlobals(rec) {
  const titles = [];
  const hooks = [[]];
  const describe = (title, fn) => {
    titles.push(title);
    hooks.push([]);
    fn(() => {});
    hooks.pop();
    titles.pop();
  };
  const it = (title, fn) => {
    rec.test = titles.concat([title]).join(' > ');
    for (const level of hooks) for (const h of level) h();
    try {
      fn((err) => {
        if (err) rec.failed.push(`${rec.test}: done(${err})`);
      });
    } catch (e) {
      rec.failed.push(`${rec.test}: ${e.message}`);
    }
    rec.test = null;
  };
  return {
    describe,
    context: describe,
    it,
    beforeEach: (h) => hooks[hooks.length - 1].push(h),
    afterEach: () => {},
  };
}

function runScript(code, filename, globals, requireFn) {
  const module = { exports: {} };
  const sandbox = { ...globals, require: requireFn, module, exports: module.exports, console, Buffer };
  vm.runInNewContext(`(function(){${code}\n})()`, sandbox, { filename });
}

// ---- best-effort-json-parser --------------------------------------------------------------

function bestEffort(pkg, tsPkg) {
  const ts = require(path.join(tsPkg, 'lib', 'typescript.js'));
  const rec = new Recorder();
  rec.failed = [];
  const file = path.join(pkg, 'src', 'parse.spec.ts');
  const js = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2019, esModuleInterop: true },
  }).outputText;
  const parse = (s) => {
    const t = rec.parse(s);
    parse.lastParseReminding = undefined; // loops over the remainder stop after one call
    return t;
  };
  const chain = (subject) => {
    const names = [];
    const p = new Proxy(function () {}, {
      get(_t, key) {
        if (typeof key === 'symbol') return undefined;
        names.push(key);
        if (key === 'undefined' || key === 'null') record(subject, key === 'null' ? null : undefined);
        return p;
      },
      apply(_t, _this, args) {
        const last = names[names.length - 1];
        if (['equal', 'equals', 'eq', 'eql', 'eqls'].includes(last)) record(subject, args[0]);
        if (['throw', 'throws', 'Throw'].includes(last) && typeof subject === 'function') {
          const before = rec.cases.length;
          subject();
          for (const c of rec.cases.slice(before)) c.throws = true;
        }
        return p;
      },
    });
    return p;
  };
  const record = (subject, value) => {
    if (tokenOf(subject)) rec.equal(subject, value);
  };
  const sinonFake = () => Object.assign(() => {}, { called: true, firstCall: { firstArg: '' } });
  const req = (name) => {
    if (name === 'sinon') return { fake: sinonFake, spy: sinonFake, restore: () => {} };
    if (name === 'chai') return { expect: chain };
    if (name === './parse') return { parse, setErrorLogger: () => {} };
    throw new Error(`unexpected require ${name}`);
  };
  runScript(js, file, mochaGlobals(rec), req);
  return finish(rec, 'src/parse.spec.ts', () => null, {});
}

// ---- common -------------------------------------------------------------------------------

function notJson(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Number.isFinite(v) ? null : String(v);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return null;
  if (Array.isArray(v)) {
    for (const x of v) if (notJson(x)) return notJson(x);
    return null;
  }
  if (Object.prototype.toString.call(v) === '[object Object]') {
    for (const x of Object.values(v)) if (notJson(x)) return notJson(x);
    return null;
  }
  return typeof v;
}

function getPath(v, p) {
  return p.reduce((x, k) => (x === undefined || x === null ? undefined : x[k]), v);
}

// The expected value built from assertions on parts: arrays when every key is an index or
// `length`, objects otherwise (keys in the order they appear in the input).
function fromParts(parts, input) {
  const at = (x) => input.indexOf(x.path[0]);
  parts = parts.slice().sort((a, b) => at(a) - at(b));
  const keys = parts.map((x) => x.path[0]);
  const isArray = keys.every((k) => /^\d+$/.test(k) || k === 'length');
  const out = isArray ? [] : {};
  for (const { path: p, value } of parts) {
    if (p.length !== 1) throw new Error(`nested partial assertion ${p.join('.')}`);
    if (p[0] === 'length') continue;
    out[isArray ? Number(p[0]) : p[0]] = value;
  }
  const len = parts.find((x) => x.path[0] === 'length');
  if (isArray && len && out.length !== Number(len.value)) throw new Error('length mismatch');
  if (isArray && out.some((x, i) => !(i in out))) throw new Error('hole in array');
  return out;
}

function finish(rec, file, skipReason, completions) {
  const kept = [];
  const skipped = {};
  const partial = [];
  const seen = new Map();
  const skip = (why, c) => {
    skipped[why] = (skipped[why] || []).concat([c.test]);
  };
  for (const c of rec.cases) {
    const why = skipReason(c);
    if (why) { skip(why, c); continue; }
    if (c.throws) { skip('expects an error', c); continue; }
    if (typeof c.input !== 'string') { skip(`input is not a string (${c.input === null ? 'null' : typeof c.input})`, c); continue; }
    let expected;
    if (c.full.length > 0) {
      if (c.full.length > 1 || c.parts.length > 0) throw new Error(`several expectations: ${c.test}`);
      expected = c.full[0];
    } else if (c.parts.length > 0) {
      expected = c.test in completions ? completions[c.test] : fromParts(c.parts, c.input);
      for (const { path: p, value } of c.parts)
        if (getPath(expected, p) != value) throw new Error(`completion disagrees: ${c.test}`);
      partial.push(c);
    } else {
      skip('no single expected value (the test checks several parse() calls against their remainder)', c);
      continue;
    }
    const bad = notJson(expected);
    if (bad) { skip(`expected value is not JSON (${bad})`, c); continue; }
    if (seen.has(c.input)) {
      const prev = seen.get(c.input);
      if (JSON.stringify(prev.expected) !== JSON.stringify(expected))
        throw new Error(`duplicate input with another expected value: ${c.test}`);
      skip('duplicate input', c);
      continue;
    }
    const item = { source: `${file}: ${c.test}`, input: c.input, expected, partial: partial.includes(c) };
    seen.set(c.input, item);
    kept.push(item);
  }
  return { kept, skipped, failed: rec.failed, total: rec.cases.length };
}

function write(name, prefix, result) {
  const lines = result.kept.map((k, i) =>
    JSON.stringify({
      id: `${prefix}-${String(i).padStart(4, '0')}`,
      source: k.source,
      input: k.input,
      expected: k.expected,
      measured_only: i % 4 === 3,
    }),
  );
  fs.writeFileSync(path.join(OUT_DIR, name), lines.join('\n') + '\n');
  const measured = result.kept.filter((_, i) => i % 4 === 3).length;
  console.error(`${name}: ${result.total} parse() calls, ${result.kept.length} cases, ${measured} measured only`);
  for (const [why, tests] of Object.entries(result.skipped)) console.error(`  skipped ${tests.length}: ${why}`);
  result.kept.forEach((k, i) => {
    if (k.partial) console.error(`  ${prefix}-${String(i).padStart(4, '0')} completed from partial assertions`);
  });
  for (const f of result.failed) console.error(`  upstream test would fail: ${f}`);
}

function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'npm_suites-'));
  try {
    const best = fetchPackage(PACKAGES.bestEffort, tmp);
    const ts = fetchPackage(PACKAGES.typescript, tmp);
    write('best_effort_json_parser.jsonl', 'best_effort_json_parser', bestEffort(best, ts));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main();
