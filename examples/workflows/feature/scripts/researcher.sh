# The researcher: what the planner must know.
set -eu
out=$(printf '%s\n' "$RECTIFY_OUTPUTS" | sed -n 1p)
cat > "$out" <<'YAML'
findings:
  - topic: invoice queries
    detail: Invoices of a period are read by InvoiceRepo::between, already paginated.
    source: src/invoices/repo.rs
  - topic: downloads
    detail: The web client has no download helper yet; reports open in a new tab.
    source: web/reports.tsx
risks:
  - Large periods may hold 100 000 invoices; the export must stream.
YAML
