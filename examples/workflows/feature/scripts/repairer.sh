# The repairer: reads the problem list of its prompt and fixes the phase references it names,
# e.g. `- specs/r/tasks.yaml:14:14: ... "phase-3" is not one of the plan's phase ids
# (phase-1, phase-2)`, by moving the task to the last phase the plan has.
set -eu
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
grep "is not one of the plan's phase ids" | while IFS= read -r line; do
  file=${line#- }
  file=${file%%:*}
  bad=$(printf '%s\n' "$line" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
  allowed=$(printf '%s\n' "$line" | sed 's/.*(\([^)]*\)).*/\1/')
  good=${allowed##*, }
  sed "s/phaseId: $bad\$/phaseId: $good/" "$file" > "$tmp"
  cat "$tmp" > "$file"
done
