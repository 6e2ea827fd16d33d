#!/usr/bin/env bash
# The README's quick start: on a fresh machine, install what the build needs, build rectify and
# ask the embedded model (no API key, no server) for schema-valid JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
phase() { echo "quickstart: $1 took $(($SECONDS - $2)) s" >&2; }
start=$SECONDS
scripts/setup.sh --quickstart
phase setup "$start"
start=$SECONDS
cargo build --release --locked -q -p rectify-cli
phase build "$start"
start=$SECONDS
target/release/rectify ask \
  "Extract the invoice from this sentence: ACME Corp owes 1250.00 EUR for the March deliveries." \
  --schema examples/quickstart/invoice.schema.json
phase ask "$start"
