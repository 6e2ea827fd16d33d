#!/usr/bin/env bash
# `rectify repair` of a 10 MB broken document against node's `JSON.parse` of the valid one
# (issue 35): whole processes, timed alternately in one run, medians and their ratio.
#
#   crates/rectify-bench/scripts/repair_10mb.sh            # N=7 runs of each
#   RUNS=11 NO_BUILD=1 crates/rectify-bench/scripts/repair_10mb.sh
#   BEFORE=/tmp/rectify-old crates/rectify-bench/scripts/repair_10mb.sh   # and another build
#
# The broken document is 40,000 records (about 10 MB) written deterministically with
# unquoted keys, trailing commas, `//` and `/* */` comments; the valid document is the same
# records as pretty JSON. `rectify repair FILE` (the release binary, built without default
# features, stdout and stderr to /dev/null) is timed against
# `node -e 'JSON.parse(fs.readFileSync(FILE, "utf8"))'` on the valid document. Before timing,
# the repaired output is checked to equal the valid document's value. With BEFORE set to
# another rectify binary (an older commit's), it is timed too, in the same alternation, and its
# output and stderr must be the current binary's.
#
# Run it with no build beside it; CARGO_TARGET_DIR is honoured. Node (20) must be on PATH.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
target="${CARGO_TARGET_DIR:-$root/target}"
runs="${RUNS:-7}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${NO_BUILD:-}" ]; then
    (cd "$root" && cargo build --quiet --release --locked -p rectify-cli --no-default-features)
fi
cli="$target/release/rectify"

python3 "$root/crates/rectify-bench/scripts/ten_mb.py" "$work"

# The repair must give the valid document's value (and exit 0).
"$cli" repair "$work/broken.json" > "$work/repaired.json" 2> /dev/null
python3 - "$work" <<'PY'
import json, sys
d = sys.argv[1]
a = json.load(open(f"{d}/repaired.json", encoding="utf-8"))
b = json.load(open(f"{d}/valid.json", encoding="utf-8"))
assert a == b, "the repaired document differs from the valid one"
PY
repairs=$("$cli" repair "$work/broken.json" 2>&1 > /dev/null | grep -c '^repaired\[' || true)
before="${BEFORE:-}"
if [ -n "$before" ]; then
    "$cli" repair "$work/broken.json" > "$work/now.out" 2> "$work/now.err"
    "$before" repair "$work/broken.json" > "$work/before.out" 2> "$work/before.err"
    cmp -s "$work/now.out" "$work/before.out" && cmp -s "$work/now.err" "$work/before.err" \
        || { echo "BEFORE writes another output than $cli" >&2; exit 1; }
fi

python3 - "$work" "$cli" "$runs" "$repairs" "$before" <<'PY'
import os, statistics, subprocess, sys, time
d, cli, runs, repairs, before = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
broken, valid = f"{d}/broken.json", f"{d}/valid.json"
rectify = [cli, "repair", broken]
node = ["node", "-e", 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))', valid]
def once(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
old = [before, "repair", broken] if before else None
once(rectify); once(node)  # warm the page cache
r, n, b = [], [], []
for _ in range(runs):
    r.append(once(rectify))
    n.append(once(node))
    if old:
        b.append(once(old))
mb = lambda p: os.path.getsize(p) / 1e6
print(f"broken {mb(broken):.1f} MB ({repairs} repairs), valid {mb(valid):.1f} MB, {runs} runs each, load {os.getloadavg()[0]:.2f}")
print("rectify repair  ms:", " ".join(f"{x * 1000:.0f}" for x in sorted(r)))
print("node JSON.parse ms:", " ".join(f"{x * 1000:.0f}" for x in sorted(n)))
if old:
    print("BEFORE repair   ms:", " ".join(f"{x * 1000:.0f}" for x in sorted(b)))
mr, mn = statistics.median(r), statistics.median(n)
print(f"median rectify {mr * 1000:.0f} ms, node {mn * 1000:.0f} ms, ratio {mr / mn:.2f}x (goal <= 0.5x)")
if old:
    mb_ = statistics.median(b)
    print(f"median BEFORE {mb_ * 1000:.0f} ms, ratio {mb_ / mn:.2f}x")
print(f"load after the runs {os.getloadavg()[0]:.2f}")
PY
