#!/usr/bin/env bash
# Side-by-side repair timing (issue 3): rectify, the jsonrepair-rs crate, npm `jsonrepair`
# and PyPI `json-repair` on the same inputs, in one run, with ratios against rectify.
#
#   crates/rectify-bench/scripts/peers_repair.sh
#
# Peers are installed from their registries into .bench-peers/ (gitignored). Each peer
# workload is bounded by PEER_TIMEOUT seconds (default 300): the npm package slows down
# quadratically when a fix repeats, so a run that exceeds the bound is reported as such.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
peers="$root/.bench-peers"
inputs="$peers/inputs"
limit="${PEER_TIMEOUT:-300}"
mkdir -p "$peers"

if [ ! -d "$peers/node/node_modules/jsonrepair" ]; then
    mkdir -p "$peers/node"
    (cd "$peers/node" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund jsonrepair)
fi
if [ ! -x "$peers/py/bin/python" ]; then
    python3 -m venv "$peers/py"
    "$peers/py/bin/pip" install --quiet json-repair
fi

cat > "$peers/node/time.mjs" <<'JS'
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jsonrepair } from "jsonrepair";
const dir = process.argv[2];
const read = (n) => readFileSync(join(dir, n), "utf8");
function best(runs, f) {
  let b = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    f();
    b = Math.min(b, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return b;
}
const fix = (t) => { try { return jsonrepair(t).length; } catch { return 0; } };
const small = JSON.parse(read("small.json"));
console.log(`jsonrepair(npm) small ${best(3, () => small.map(fix)).toFixed(6)}`);
for (const name of ["valid", "broken"]) {
  const doc = read(`${name}.json`);
  console.log(`jsonrepair(npm) ${name} ${best(2, () => fix(doc)).toFixed(6)}`);
}
JS

cat > "$peers/time.py" <<'PY'
import json, sys, time
from json_repair import repair_json
d = sys.argv[1]
read = lambda n: open(f"{d}/{n}", encoding="utf-8").read()
def best(runs, f):
    b = float("inf")
    for _ in range(runs):
        t = time.perf_counter(); f(); b = min(b, time.perf_counter() - t)
    return b
def fix(t):
    try:
        return len(repair_json(t))
    except Exception:
        return 0
small = json.loads(read("small.json"))
print(f"json-repair(PyPI) small {best(1, lambda: [fix(t) for t in small]):.6f}", flush=True)
for name in ["valid", "broken"]:
    doc = read(f"{name}.json")
    print(f"json-repair(PyPI) {name} {best(1, lambda: fix(doc)):.6f}", flush=True)
PY

cd "$root"
cargo bench -q -p rectify-bench --bench repair_peers -- export "$inputs"
cargo bench -q -p rectify-bench --bench repair_peers -- time "$inputs" > "$peers/rust.txt"
# A peer that exceeds the bound is reported as `> limit` for the workloads it did not finish.
bounded() {
    local name="$1" out="$2"
    shift 2
    local status=0
    timeout "$limit" "$@" > "$out" || status=$?
    if [ "$status" -eq 124 ]; then
        echo "$name timeout $limit" >> "$out"
    elif [ "$status" -ne 0 ]; then
        echo "$name failed with status $status" >&2
        exit "$status"
    fi
}
bounded "jsonrepair(npm)" "$peers/node.txt" node "$peers/node/time.mjs" "$inputs"
bounded "json-repair(PyPI)" "$peers/py.txt" "$peers/py/bin/python" "$peers/time.py" "$inputs"

npm_version=$(node -p "require('$peers/node/node_modules/jsonrepair/package.json').version")
py_version=$("$peers/py/bin/python" -c "import importlib.metadata as m; print(m.version('json-repair'))")
echo "peers: jsonrepair-rs (crates.io, see Cargo.lock), jsonrepair $npm_version (npm), json-repair $py_version (PyPI); $(nproc) cores"

cat "$peers/rust.txt" "$peers/node.txt" "$peers/py.txt" | python3 -c '
import sys
rows = {}
for line in sys.stdin:
    parts = line.split()
    if len(parts) == 3:
        tool, work, secs = parts
        rows.setdefault(tool, {})[work] = secs
base = rows.get("rectify", {})
works = ["small", "valid", "broken"]
print("| tool | " + " | ".join(f"{w} (s) | ×rectify" for w in works) + " |")
print("|---|" + "---|---|" * len(works))
for tool, vals in rows.items():
    cells = []
    for w in works:
        v = vals.get(w)
        if v is None or w not in base:
            cells += [vals.get("timeout", "–") and ("> " + vals["timeout"] if "timeout" in vals and v is None else "–"), "–"]
            continue
        cells += [f"{float(v):.4f}", f"{float(v) / float(base[w]):.2f}"]
    print(f"| {tool} | " + " | ".join(cells) + " |")
'
