// Two builds of the addon side by side (issue 38, the size goal): `node addon_size.cjs OLD.node NEW.node`
// times repair() on the repair corpora and on a 4.6 MB broken document, and checks both give the
// same output on every corpus case.
const fs = require('fs');
const path = require('path').join(__dirname, '../../../crates/rectify-repair/tests/corpus/');
const cases = [];
for (const f of fs.readdirSync(path).filter(f => f.endsWith('.jsonl') && !f.startsWith('yaml'))) {
  for (const line of fs.readFileSync(path + f, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try { const c = JSON.parse(line); if (typeof c.input === 'string') cases.push(c.input); } catch {}
  }
}
// the 10 MB document: 40,000 broken records (same shape as repair_10mb.sh)
let big = '// records\n[\n';
for (let i = 0; i < 40000; i++) big += `  {id: ${i}, sku: "SKU-${String(i * 7919 % 99999).padStart(5, '0')}", name: 'record ${i}', tags: ["a", "b",], // c\n  total: ${i}.25, /* x */ ok: true,},\n`;
big += ']\n';
const addons = { old: require(process.argv[2]), new: require(process.argv[3]) };
function best(f, n) { let b = Infinity; for (let i = 0; i < n; i++) { const t = process.hrtime.bigint(); f(); b = Math.min(b, Number(process.hrtime.bigint() - t) / 1e6); } return b; }
const res = {};
for (let round = 0; round < 6; round++) for (const [name, a] of Object.entries(addons)) {
  const corpus = best(() => { for (const c of cases) a.repair(c, { unsafe: true }); }, 5);
  const doc = best(() => a.repair(big, { unsafe: true }), 3);
  res[name] = res[name] || { corpus: Infinity, doc: Infinity };
  res[name].corpus = Math.min(res[name].corpus, corpus); res[name].doc = Math.min(res[name].doc, doc);
}
const same = cases.every(c => addons.old.repair(c, { unsafe: true }) === addons.new.repair(c, { unsafe: true }));
console.log(cases.length, 'cases;', (big.length / 1e6).toFixed(1), 'MB document; same output:', same);
for (const [n, r] of Object.entries(res)) console.log(n, 'corpus', r.corpus.toFixed(1), 'ms; big document', r.doc.toFixed(0), 'ms');
