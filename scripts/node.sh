#!/usr/bin/env bash
# The Node package (bindings/node): formatting and lints of the binding crate, the addon built
# with napi-rs, the TypeScript layer compiled with `tsc --strict`, the package packed with
# `npm pack` and installed into a fresh project, its `node --test` suite, and `tsc --strict` on
# examples/node/ (which then run). Called by scripts/test.sh; runs alone too.
#
#   scripts/node.sh            # everything above
#   scripts/node.sh --setup    # only the build tools (scripts/setup.sh calls this)
#   scripts/node.sh --release  # the addon in the release profile (what a user installs; slower
#                              #   to build) instead of the dev profile
#
# Caches (all under target/, safe to delete): target/node/tools (@napi-rs/cli, typescript,
# @types/node), target/node/npm (npm's download cache), the cargo build (CARGO_TARGET_DIR,
# default target/: the binding's dependencies are shared with the workspace's build). The test
# project is made anew on every run.
set -euo pipefail
start=$SECONDS
cd "$(dirname "$0")/.."
root=$PWD
mode=test
profile=dev
for arg in "$@"; do
  case "$arg" in
    --setup) mode=setup ;;
    --release) profile=release ;;
    *) echo "usage: scripts/node.sh [--setup] [--release]" >&2; exit 2 ;;
  esac
done

# Pinned versions (update together; the versions the suite was last run with).
NAPI_CLI=@napi-rs/cli@3.10.12
TYPESCRIPT=typescript@5.9.3
TYPES_NODE=@types/node@20.19.43
ZOD=zod@4.6.7
ZOD_TO_JSON_SCHEMA=zod-to-json-schema@3.25.2

command -v node >/dev/null || { echo "error: node (>= 20) not found; install Node.js" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || { echo "error: node $(node --version) is too old; the package needs Node >= 20" >&2; exit 1; }

cache="$root/target/node"
export npm_config_cache="$cache/npm"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$cache"

# The build tools, kept while the pinned versions do not change.
tools="$cache/tools"
pins="$NAPI_CLI $TYPESCRIPT $TYPES_NODE"
if [ "$(cat "$tools/.pins" 2>/dev/null)" != "$pins" ]; then
  echo "== node: installing $pins into $tools"
  rm -rf "$tools"
  mkdir -p "$tools"
  echo '{"private": true}' > "$tools/package.json"
  npm install --prefix "$tools" --silent --no-save $pins
  echo "$pins" > "$tools/.pins"
fi
[ "$mode" = setup ] && exit 0

crate=bindings/node
echo "== node: cargo fmt --check (binding)"
cargo fmt --manifest-path "$crate/Cargo.toml" -- --check
echo "== node: cargo clippy -D warnings (binding)"
cargo clippy --manifest-path "$crate/Cargo.toml" --all-targets --locked --quiet -- -D warnings

echo "== node: building the addon ($profile profile)"
flags=()
[ "$profile" = release ] && flags+=(--release)
rm -rf "$crate/native" "$crate/dist"
# tsc finds @types/node through the package's node_modules (a link to the tools, git-ignored).
ln -sfn "$tools/node_modules" "$crate/node_modules"
"$tools/node_modules/.bin/napi" build --platform "${flags[@]}" --manifest-path "$crate/Cargo.toml" \
  --package-json-path "$crate/package.json" --output-dir "$crate/native" --js index.js --dts index.d.ts \
  -- --locked --quiet
addon=$(ls "$crate"/native/rectify.*.node)
echo "   $(basename "$addon"): $(du -k "$addon" | cut -f1) KiB"
echo "== node: tsc --strict (the TypeScript layer)"
"$tools/node_modules/.bin/tsc" -p "$crate"

echo "== node: npm pack, installed into a fresh project"
rm -f "$cache"/rectify-*.tgz
tarball="$cache/$(cd "$crate" && npm pack --silent --pack-destination "$cache")"
env="$cache/env-test"
rm -rf "$env"
mkdir -p "$env"
echo '{"private": true, "type": "commonjs"}' > "$env/package.json"
npm install --prefix "$env" --silent "$tarball" "$ZOD" "$ZOD_TO_JSON_SCHEMA" "$TYPESCRIPT" "$TYPES_NODE"

echo "== node: node --test bindings/node/tests"
# From a copy in the test project, so `require("rectify")` finds the installed package.
cp -r "$crate/tests" "$env/tests"
(cd "$env" && node --test --test-reporter=spec tests/*.test.mjs)

echo "== node: tsc --strict examples/node, and the examples run"
mkdir -p "$env/examples"
cp examples/node/*.ts "$env/examples/"
cat > "$env/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022", "module": "commonjs", "moduleResolution": "node10", "lib": ["ES2022"],
    "types": ["node"], "strict": true, "noUnusedLocals": true, "esModuleInterop": true,
    "outDir": "out", "rootDir": "examples"
  },
  "include": ["examples/*.ts"]
}
JSON
(cd "$env" && node_modules/.bin/tsc -p .)
for example in "$env"/out/*.js; do
  (cd "$env" && node "$example" >/dev/null)
done
echo "== node: done in $((SECONDS - start)) s"
