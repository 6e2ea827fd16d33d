#!/bin/sh
# A stand-in for a coding agent, so that the example runs with no model and no API key.
# rectify runs it in the working directory with the prompt on stdin and the files to write in
# RECTIFY_OUTPUTS. The prompt starts with the agent's instructions ("You are the planner ..."),
# which pick the script that plays the part. Each prompt is kept as .prompts/ROLE-N.txt.
set -eu
prompt=$(cat)
role=$(printf '%s\n' "$prompt" | sed -n '1s/^You are the \([a-z]*\) .*/\1/p')
[ -f "scripts/$role.sh" ] || { echo "no stand-in for the agent '$role'" >&2; exit 2; }
mkdir -p .prompts
n=1
while ! (set -C; : > ".prompts/$role-$n.txt") 2>/dev/null; do n=$((n + 1)); done
printf '%s\n' "$prompt" > ".prompts/$role-$n.txt"
exec sh "scripts/$role.sh" < ".prompts/$role-$n.txt"
