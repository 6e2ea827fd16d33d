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
cargo test --workspace --locked
