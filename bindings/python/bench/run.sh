#!/usr/bin/env bash
# The Python benchmarks of docs/BENCHMARKS.md ("Python package"): the release wheel and the peers
# from PyPI (pinned) in a fresh virtual environment, then bench.py. Run with no build beside it.
#
#   bindings/python/bench/run.sh                 # every section
#   bindings/python/bench/run.sh repair          # or: retry, import
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
cache="$root/target/python"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
export PIP_CACHE_DIR="$cache/pip" PIP_DISABLE_PIP_VERSION_CHECK=1
scripts/python.sh --setup
wheels="$cache/wheels-bench"
rm -rf "$wheels"
"$cache/tools/bin/maturin" build --quiet --release --locked --manifest-path bindings/python/Cargo.toml \
  --interpreter python3 --out "$wheels"
wheel=$(ls "$wheels"/rectify-*.whl)
venv="$cache/venv-bench"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet "$wheel" pydantic==2.14.4 json_repair==0.64.6 instructor==1.17.0 \
  openai==3.3.0 pydantic-ai-slim==2.68.0
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
"$venv/bin/python" bindings/python/bench/bench.py "$@"
