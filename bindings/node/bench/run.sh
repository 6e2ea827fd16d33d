#!/usr/bin/env bash
# The Node benchmarks of docs/BENCHMARKS.md ("Node package"): the release addon packed and
# installed with the peers from npm (pinned) into a fresh project, then bench.mjs. Run with no
# build beside it.
#
#   bindings/node/bench/run.sh                 # every section
#   bindings/node/bench/run.sh repair          # or: retry, import
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
cache="$root/target/node"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
export npm_config_cache="$cache/npm" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
scripts/node.sh --setup
tools="$cache/tools/node_modules/.bin"
crate=bindings/node
rm -rf "$crate/native" "$crate/dist"
ln -sfn "$cache/tools/node_modules" "$crate/node_modules"
"$tools/napi" build --platform --release --manifest-path "$crate/Cargo.toml" \
  --package-json-path "$crate/package.json" --output-dir "$crate/native" --js index.js --dts index.d.ts \
  -- --locked --quiet
"$tools/tsc" -p "$crate"
bench="$cache/env-bench"
rm -rf "$bench"
mkdir -p "$bench"
tarball="$bench/$(cd "$crate" && npm pack --silent --pack-destination "$bench")"
echo '{"private": true, "type": "commonjs"}' > "$bench/package.json"
npm install --prefix "$bench" --silent "$tarball" zod@4.6.7 zod-to-json-schema@3.25.2 jsonrepair@3.15.0 ai@5.0.277

# The 10 MB documents of the repair benchmarks (crates/rectify-bench/scripts/ten_mb.py).
python3 crates/rectify-bench/scripts/ten_mb.py "$bench"

addon=$(ls "$crate"/native/rectify.*.node)
echo "addon: $(basename "$addon"), $(du -k "$addon" | cut -f1) KiB; package: $(basename "$tarball"), $(du -k "$tarball" | cut -f1) KiB"
cp "$crate/bench/bench.mjs" "$bench/bench.mjs"
(cd "$bench" && node --expose-gc bench.mjs "$root" "$@")
