#!/bin/sh
# A stand-in for an architect agent, so that the example runs with no model and no API key.
# rectify gives it the prompt on stdin and reads the plan from its stdout. Like a model in a
# hurry, its first plan is a sketch: an empty goal, `### Step` headings and too short. When its
# prompt starts with the `## PREVIOUS VALIDATION FAILED` block, it writes the whole plan.
# ARCHITECT_NEVER_LEARNS=1 makes it send the sketch every time, to see the run escalate.
# Each prompt is kept as .prompts/architect-N.txt.
set -eu
mkdir -p .prompts
n=1
while ! (set -C; : > ".prompts/architect-$n.txt") 2>/dev/null; do n=$((n + 1)); done
cat > ".prompts/architect-$n.txt"
if grep -q '^## PREVIOUS VALIDATION FAILED' ".prompts/architect-$n.txt" &&
  [ "${ARCHITECT_NEVER_LEARNS:-0}" != 1 ]; then
  cat <<'MD'
# Implementation plan: CSV export of invoices

## Goal

Finance downloads the invoices of a period as one RFC 4180 CSV file, streamed so that a
year of invoices does not have to fit in memory.

### Task 1: Stream the invoices of a period

Add `InvoiceRepo::stream(from, to)` returning the invoices in date order, page by page.
Test: a period spanning three pages yields every invoice once, in order.

### Task 2: Write the CSV

Add `export::csv` writing number, date, customer and total, quoting fields that hold a
separator, a quote or a line break. Test: a customer named `Smith, "Jr"` round-trips.

### Task 3: Serve and link the export

Add `GET /invoices/export?from=&to=` streaming `text/csv`, and an Export button on the
invoices page for the selected period. Test: the endpoint's first line is the header.
MD
else
  cat <<'MD'
# Plan

## Goal

## Steps

### Step 1: Export

Write the CSV.
MD
fi
