#!/usr/bin/env bash
# The README's quick start: on a fresh machine, install what the build needs, build rectify and
# ask the embedded model (no API key, no server) for schema-valid JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --locked -q -p rectify-cli
target/release/rectify ask \
  "Extract the invoice from this sentence: ACME Corp owes 1250.00 EUR for the March deliveries." \
  --schema examples/quickstart/invoice.schema.json
