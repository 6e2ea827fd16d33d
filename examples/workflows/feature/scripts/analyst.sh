# The analyst: the spec of the feature named in the prompt.
set -eu
out=$(printf '%s\n' "$RECTIFY_OUTPUTS" | sed -n 1p)
feature=$(sed -n 's/^Write the spec for: //p' | head -n 1)
mkdir -p "$(dirname "$out")"
cat > "$out" <<YAML
title: >-
  $feature
goal: Finance can download the invoices of a period as one CSV file.
requirements:
  - id: R1
    text: The export contains one row per invoice with number, date, customer and total.
  - id: R2
    text: Separators and quotes inside fields are escaped as RFC 4180 says.
  - id: R3
    text: The invoices page has an Export button for the selected period.
YAML
