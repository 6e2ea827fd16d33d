# The planner: plan.yaml, with `meta.validation` asking for the validator after every coder
# task (not after the docs task).
set -eu
cat > plan.yaml <<'YAML'
meta:
  validation:
    enabled: true
    run_after: [coder]
    validators: [validator]
    max_validation_attempts: 1
tasks:
  - id: T1
    agent: coder
    title: Stream the invoices of a period
    description: InvoiceRepo::stream(from, to), in date order, page by page.
  - id: T2
    agent: coder
    title: Write invoices as CSV
    description: export::csv, quoting fields as RFC 4180 says.
  - id: T3
    agent: coder
    title: Add the export endpoint
    description: GET /invoices/export?from=&to= streams text/csv.
    dependsOn: [T1, T2]
  - id: T4
    agent: docs
    title: Document the export
    description: A section in docs/invoices.md.
    dependsOn: [T3]
YAML
