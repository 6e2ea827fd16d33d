#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain. Safe to run repeatedly.
set -euo pipefail
command -v cargo >/dev/null || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 1; }
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt
echo "setup: nothing else to install"
