#!/usr/bin/env bash
# The Python package (bindings/python): formatting and lints of the binding crate, the wheel built
# with maturin, installed into a fresh virtual environment, its pytest suite, and `mypy --strict`
# on examples/python/. Called by scripts/test.sh; runs alone too.
#
#   scripts/python.sh            # everything above
#   scripts/python.sh --setup    # only the build tools (scripts/setup.sh calls this)
#   scripts/python.sh --release  # the wheel in the release profile (what a user installs; slower
#                                #   to build) instead of the dev profile
#
# Caches (all under target/, safe to delete): target/python/tools (maturin), target/python/pip
# (pip's download cache), the cargo build (CARGO_TARGET_DIR, default target/: the binding's
# dependencies are shared with the workspace's build). The test environment is made anew on
# every run.
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
    *) echo "usage: scripts/python.sh [--setup] [--release]" >&2; exit 2 ;;
  esac
done

# Pinned tool versions (update together; the versions the suite was last run with).
MATURIN=maturin==1.16.0
PYTEST=pytest==9.2.0
PYDANTIC=pydantic==2.14.4
MYPY=mypy==2.4.1
VIRTUALENV=virtualenv==21.15.11

cache="$root/target/python"
export PIP_CACHE_DIR="$cache/pip"
export PIP_DISABLE_PIP_VERSION_CHECK=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
python=${PYTHON:-python3}
mkdir -p "$cache"

# A virtual environment at $1: `python -m venv`, or virtualenv where the venv module is missing
# (Debian's python3 without python3-venv).
make_venv() {
  rm -rf "$1"
  if ! "$python" -m venv "$1" >/dev/null 2>&1; then
    rm -rf "$1"
    if [ ! -d "$cache/virtualenv" ]; then
      # (Debian marks its python3 externally managed; a --target directory is ours.)
      PIP_BREAK_SYSTEM_PACKAGES=1 "$python" -m pip install --quiet --target "$cache/virtualenv" "$VIRTUALENV"
    fi
    PYTHONPATH="$cache/virtualenv" "$python" -m virtualenv --quiet "$1"
  fi
}

# The build tools, kept while the pinned version does not change.
tools="$cache/tools"
if [ "$(cat "$tools/.pins" 2>/dev/null)" != "$MATURIN" ]; then
  echo "== python: installing $MATURIN into $tools"
  make_venv "$tools"
  "$tools/bin/pip" install --quiet "$MATURIN"
  echo "$MATURIN" > "$tools/.pins"
fi
[ "$mode" = setup ] && exit 0

crate=bindings/python
echo "== python: cargo fmt --check (binding)"
cargo fmt --manifest-path "$crate/Cargo.toml" -- --check
echo "== python: cargo clippy -D warnings (binding)"
cargo clippy --manifest-path "$crate/Cargo.toml" --all-targets --locked --quiet -- -D warnings

echo "== python: building the wheel ($profile profile)"
wheels="$cache/wheels-$profile"
rm -rf "$wheels"
flags=()
[ "$profile" = release ] && flags+=(--release)
"$tools/bin/maturin" build --quiet "${flags[@]}" --locked --manifest-path "$crate/Cargo.toml" \
  --interpreter "$python" --out "$wheels"
wheel=$(ls "$wheels"/rectify-*.whl)
echo "   $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB"

echo "== python: a fresh virtual environment with the wheel"
venv="$cache/venv-test"
make_venv "$venv"
"$venv/bin/pip" install --quiet "$wheel" "$PYTEST" "$PYDANTIC" "$MYPY"

echo "== python: pytest bindings/python/tests"
# From the tests' directory, so `import rectify` finds the installed wheel, not the sources.
(cd "$crate/tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider)

echo "== python: mypy --strict examples/python and the package"
"$venv/bin/python" -m mypy --strict --cache-dir "$cache/mypy" examples/python "$crate/python/rectify"
echo "== python: the examples run"
for example in examples/python/*.py; do
  "$venv/bin/python" "$example" >/dev/null
done
echo "== python: done in $((SECONDS - start)) s"
