# The validator: FAIL when the report's `Tests:` line has no empty-input case, else PASS.
set -eu
prompt=$(cat)
report=$(printf '%s\n' "$prompt" | sed -n 's/^`\(work\/T[0-9]*\.md\)`:$/\1/p' | head -n 1)
if printf '%s\n' "$prompt" | grep '^Tests:' | grep -q 'empty input'; then
  printf '**Findings:**\n- [PASS] implemented and tested, empty input included\n\n**Verdict: PASS**\n'
else
  printf '**Findings:**\n- [FAIL] no test for empty input (%s:5)\n\n**Verdict: FAIL**\n' "$report"
fi
