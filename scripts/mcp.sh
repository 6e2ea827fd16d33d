#!/usr/bin/env bash
# The MCP server (issue 39) driven by a real client: the official TypeScript SDK
# (`@modelcontextprotocol/sdk`, pinned in crates/rectify-mcp/tests/client/package-lock.json)
# starts the built `rectify mcp` and talks to it over stdio and Streamable HTTP (`node --test`).
# The client's packages and npm's cache live under target/mcp/.
#
# Usage: scripts/mcp.sh           build rectify (if needed) and run the client tests
#        scripts/mcp.sh --setup   only install the client's packages
#        scripts/mcp.sh --bench   the issue's goals measured on a release build (the `check`
#                                 tool on 1 MB against `rectify check`; idle memory)
# RECTIFY_BIN=PATH uses that binary instead of building; RECTIFY_MCP_BUILT=1 uses the one
# `cargo test --workspace` just built (scripts/test.sh); RECTIFY_MCP_CARGO_ARGS adds cargo
# flags (e.g. `--no-default-features --features mcp`, a build without llama.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
src=crates/rectify-mcp/tests/client
work=target/mcp/client
command -v node >/dev/null || { echo "mcp.sh: node (>= 18) is needed for the MCP client tests" >&2; exit 1; }
mkdir -p "$work"
if ! cmp -s "$src/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules" ]; then
    cp "$src/package.json" "$src/package-lock.json" "$work/"
    (cd "$work" && npm ci --cache ../npm-cache --no-audit --no-fund --loglevel=error)
fi
[ "${1:-}" = --setup ] && exit 0
cp "$src"/*.mjs "$work/"
profile=debug
if [ "${1:-}" = --bench ]; then
    profile=release
    RECTIFY_MCP_CARGO_ARGS="--release ${RECTIFY_MCP_CARGO_ARGS:-}"
fi
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$(pwd)/$target" ;; esac
if [ -z "${RECTIFY_BIN:-}" ]; then
    if [ -z "${RECTIFY_MCP_BUILT:-}" ]; then
        # shellcheck disable=SC2086
        cargo build --locked -q -p rectify-cli ${RECTIFY_MCP_CARGO_ARGS:-}
    fi
    RECTIFY_BIN="$target/$profile/rectify"
fi
export RECTIFY_BIN
# The README's MCP configuration is what the configuration test reads.
export RECTIFY_README="$(pwd)/README.md"
cd "$work"
if [ "${1:-}" = --bench ]; then
    exec node bench.mjs
fi
node --test --test-concurrency=1 ./*.test.mjs
