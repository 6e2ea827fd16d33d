# The planner: plan.yaml and tasks.yaml. Like a model that loses track of its own phases, it
# puts T3 in `phase-3`, which the plan does not have: the rules file's cross-file reference
# catches it and the repairer fixes it.
set -eu
plan=$(printf '%s\n' "$RECTIFY_OUTPUTS" | sed -n 1p)
tasks=$(printf '%s\n' "$RECTIFY_OUTPUTS" | sed -n 2p)
cat > "$plan" <<'YAML'
goal: Finance can download the invoices of a period as one CSV file.
phases:
  - id: phase-1
    name: Export service
  - id: phase-2
    name: User interface
YAML
cat > "$tasks" <<'YAML'
tasks:
  - id: T1
    phaseId: phase-1
    title: Stream the invoices of a period
    acceptanceCriteria: [InvoiceRepo::stream yields the invoices of a period in date order]
  - id: T2
    phaseId: phase-1
    title: Write invoices as RFC 4180 CSV
    dependsOn: [T1]
    acceptanceCriteria: [Separators and quotes inside fields are escaped]
  - id: T3
    phaseId: phase-3
    title: Add the export endpoint
    dependsOn: [T1]
    acceptanceCriteria: [GET /invoices/export?from=&to= streams text/csv]
  - id: T4
    phaseId: phase-2
    title: Add the Export button
    dependsOn: [T2, T3]
    acceptanceCriteria: [The button downloads the CSV of the selected period]
YAML
