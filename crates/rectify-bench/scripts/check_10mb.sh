#!/usr/bin/env bash
# End-to-end `rectify check` on a ~11 MB JSON document with a schema (issue 2), in MB/s.
# Usage: crates/rectify-bench/scripts/check_10mb.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo build --release --locked -q -p rectify-cli
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, random, sys
random.seed(5)
d = sys.argv[1]
W = ["invoice", "export", "phase", "review", "customer", "ledger", "quarterly", "report", "draft",
     "approved", "pending", "résumé"]
items, size, i = [], 0, 0
while size < 10 * 1024 * 1024:
    o = {"id": f"T{i}", "phaseId": f"phase-{random.randint(0, 8)}",
         "title": " ".join(random.choice(W) for _ in range(3)),
         "amount": round(random.random() * 100000, 2), "done": random.random() < .5,
         "tags": [random.choice(W), random.choice(W)],
         "owner": {"name": random.choice(W) + " " + random.choice(W),
                   "email": f"user{random.randint(0, 999)}@example.org"},
         "notes": "Line with \"quotes\" and a tab\t, " + " ".join(random.choice(W) for _ in range(3))}
    size += len(json.dumps(o, indent=2, ensure_ascii=False).encode()) + 2
    items.append(o)
    i += 1
open(f"{d}/doc.json", "w").write(json.dumps(items, indent=2, ensure_ascii=False))
schema = {"type": "array", "items": {"type": "object", "required": ["id", "phaseId", "title", "amount"],
          "properties": {"id": {"type": "string"}, "amount": {"type": "number"},
                         "done": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}}}}}
open(f"{d}/schema.json", "w").write(json.dumps(schema))
PY
bytes=$(stat -c %s "$dir/doc.json")
for run in 1 2 3 4 5; do
  start=$(date +%s.%N)
  target/release/rectify check "$dir/doc.json" --schema "$dir/schema.json" 2>/dev/null
  end=$(date +%s.%N)
  python3 -c "import sys; b,s,e=int(sys.argv[1]),float(sys.argv[2]),float(sys.argv[3]); print(f'run {sys.argv[4]}: {b/1e6:.1f} MB in {e-s:.3f} s = {b/1e6/(e-s):.1f} MB/s')" "$bytes" "$start" "$end" "$run"
done
