#!/usr/bin/env bash
# Issue 33's speed-up goal: 8 independent command-agent units that each sleep 200 ms, at
# --max-parallel 4, in a git repository of 10,000 files. The ideal is 2 batches = 400 ms; the
# goal is <= 1.25x the ideal (500 ms). Each view kind is timed in the same run (overlay when
# this process may mount, and copy), 5 runs each (RUNS), median printed, with the ideal beside it.
#
#   crates/rectify-bench/scripts/parallel_units.sh            # debug binary, built if missing
#   RECTIFY_BIN=target/release/rectify crates/rectify-bench/scripts/parallel_units.sh
#   MODES=overlay RUNS=9 ...                                  # one view kind, more runs
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=${RECTIFY_BIN:-target/debug/rectify}
if [ ! -x "$bin" ]; then
  cargo build --quiet --locked -p rectify-cli --no-default-features --features workflow
fi
bin=$(realpath "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo"
python3 - "$repo" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(100):
    os.makedirs(f"{root}/src/m{d:02}", exist_ok=True)
    for f in range(100):
        with open(f"{root}/src/m{d:02}/f{f:02}.rs", "w") as fh:
            fh.write(f"// module {d} file {f}\npub fn f{f}() -> u32 {{ {d * 100 + f} }}\n" * 3)
PY
git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" -c user.email=b@b -c user.name=b commit -qm files
echo ".rectify/" > "$repo/.gitignore"
cfg=$work/cfg
mkdir -p "$cfg/agents"
cat > "$cfg/agent.sh" <<'SH'
sleep 0.2
mkdir -p out
echo "{\"n\": 1}" > "out/$RECTIFY_STEP.json"
SH
printf -- "---\nname: a\nprovider: sh\n---\nYou write.\n" > "$cfg/agents/a.md"
{
  echo "name: par"
  echo "providers:"
  echo "  sh: {kind: command, command: [sh, \"$cfg/agent.sh\"]}"
  echo "agents:"
  echo "  a: agents/a.md"
  echo "steps:"
  for i in 1 2 3 4 5 6 7 8; do
    echo "  - {id: u$i, agent: a, prompt: go, outputs: [{path: out/u$i.json}]}"
  done
} > "$cfg/workflow.yaml"
files=$(git -C "$repo" ls-files | wc -l)
echo "repository: $files files in git; $bin"
runs=${RUNS:-5}
for mode in ${MODES:-overlay copy}; do
  times=()
  for run in $(seq "$runs"); do
    rm -rf "$repo/out" "$repo/.rectify"
    start=$(date +%s%N)
    RECTIFY_ISOLATION=$mode "$bin" run "$cfg/workflow.yaml" --workdir "$repo" --max-parallel 4 \
      --output json > "$work/out.json" || { echo "run failed ($mode)"; cat "$work/out.json"; exit 1; }
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
    [ "$(ls "$repo/out" | wc -l)" = 8 ] || { echo "missing outputs ($mode)"; exit 1; }
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  echo "$mode: runs (ms) $sorted; median $median ms = $(python3 -c "print(f'{$median/400:.2f}')")x the ideal 400 ms (goal <= 1.25x)"
done
