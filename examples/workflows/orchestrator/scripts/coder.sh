# The coder: a report on the task named in the prompt ("Implement T2: ..."). It changes no code
# (this is a stand-in). On T2 it forgets the empty-input test, until its prompt starts with the
# validator's findings (`## PREVIOUS VALIDATION FAILED`).
set -eu
prompt=$(cat)
out=$(printf '%s\n' "$RECTIFY_OUTPUTS" | sed -n 1p)
task=$(printf '%s\n' "$prompt" | sed -n 's/^Implement \(T[0-9]*\): .*/\1/p' | head -n 1)
tests="happy path, empty input"
if [ "$task" = T2 ] && ! printf '%s\n' "$prompt" | grep -q '^## PREVIOUS VALIDATION FAILED'; then
  tests="happy path"
fi
mkdir -p "$(dirname "$out")"
printf '# %s\n\nChanged: src/invoices/%s.rs\nTests: %s\n' "$task" "$task" "$tests" > "$out"
