#!/usr/bin/env bash
# The whole test suite: formatting, lints (warnings are errors), docs, and every test.
# This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
echo "== cargo test"
# Property tests draw new cases for every commit, and the same cases for the same commit:
# the seed comes from the commit, so a failure in CI is reproduced by running this script on
# that commit (or by setting PROPTEST_RNG_SEED to the value printed here).
if [ -z "${PROPTEST_RNG_SEED:-}" ] && commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
    PROPTEST_RNG_SEED=$((16#$commit))
fi
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-0}"
echo "   proptest seed: $PROPTEST_RNG_SEED"
cargo test --workspace --locked
echo "== fuzz targets, smoke run"
scripts/fuzz_smoke.sh 5
