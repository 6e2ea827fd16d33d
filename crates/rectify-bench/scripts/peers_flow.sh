#!/usr/bin/env bash
# Side-by-side workflow overhead (issue 11): rectify's engine and LangGraph on the seed-004
# graph (11 producers that answer at once, each with its validate/repair pair), in one run,
# with ratios measured in that run.
#
#   crates/rectify-bench/scripts/peers_flow.sh
#
# 1. `cargo bench -p rectify-bench --bench flow` (criterion): per-step overhead with the store
#    in memory and durable (SQLite on a temporary directory), bytes stored per run, and a
#    working directory with 10 runs for `rectify status`;
# 2. LangGraph and its SQLite checkpointer, installed from PyPI into a venv under
#    target/peers-flow/ (LANGGRAPH_VERSION pins it, default the 1.2.22), running the
#    same graph (scripts/flow/langgraph_seed004.py);
# 3. `rectify status` timed over 50 runs (scripts/flow/table.py), with RECTIFY_BIN, else
#    target/release/rectify, else — with BUILD_RELEASE=1 — `cargo build --release -p
#    rectify-cli` (builds llama.cpp: long), else the debug binary target/debug/rectify.
#
# MEASURE (seconds per criterion bench, default 5) and PEER_SECONDS (per LangGraph variant,
# default 5) trade time for precision.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/peers-flow"
here="$root/crates/rectify-bench/scripts/flow"
mkdir -p "$out"

if [ ! -x "$out/venv/bin/python" ]; then
    python3 -m venv "$out/venv"
fi
if ! "$out/venv/bin/python" -c "import langgraph.checkpoint.sqlite" 2>/dev/null; then
    "$out/venv/bin/pip" install --quiet "langgraph==${LANGGRAPH_VERSION:-1.2.22}" langgraph-checkpoint-sqlite
fi

echo "== rectify: cargo bench -p rectify-bench --bench flow" >&2
(cd "$root" && FLOW_STATUS_DIR="$out/status-work" cargo bench -p rectify-bench --bench flow -- \
    --warm-up-time 1 --measurement-time "${MEASURE:-5}") | tee "$out/bench.log" >&2

echo "== LangGraph" >&2
"$out/venv/bin/python" "$here/langgraph_seed004.py" --seconds "${PEER_SECONDS:-5}" > "$out/langgraph.json"

bin="${RECTIFY_BIN:-}"
kind="given"
if [ -z "$bin" ] && [ -x "$target/release/rectify" ]; then
    bin="$target/release/rectify"; kind="release"
fi
if [ -z "$bin" ] && [ "${BUILD_RELEASE:-0}" = 1 ]; then
    (cd "$root" && cargo build --release -p rectify-cli) >&2
    bin="$target/release/rectify"; kind="release"
fi
if [ -z "$bin" ] && [ -x "$target/debug/rectify" ]; then
    bin="$target/debug/rectify"; kind="debug build: unoptimized"
fi

echo >&2
"$out/venv/bin/python" "$here/table.py" --criterion "$target/criterion" --bench-log "$out/bench.log" \
    --langgraph "$out/langgraph.json" --rectify "$bin" --rectify-kind "$kind" | tee "$out/table.txt"
