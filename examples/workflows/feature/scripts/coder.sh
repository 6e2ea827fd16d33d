# The coder: reports on the task named in the prompt ("Implement T2: ..."). It changes no code
# (this is a stand-in) and, for T3, adds no tests, which the validator notices.
set -eu
out=$(printf '%s\n' "$RECTIFY_OUTPUTS" | sed -n 1p)
task=$(sed -n 's/^Implement \(T[0-9]*\): .*/\1/p' | head -n 1)
mkdir -p "$(dirname "$out")"
if [ "$task" = T3 ]; then tests="none yet"; else tests="tests/$task.rs"; fi
printf '# %s\n\nChanged: src/invoices/export.rs\nTests: %s\n' "$task" "$tests" > "$out"
