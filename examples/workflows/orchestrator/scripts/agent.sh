#!/bin/sh
# A stand-in for a coding agent, so that the example runs with no model and no API key.
# rectify runs it in the working directory with the prompt on stdin and the files to write in
# RECTIFY_OUTPUTS. The prompt starts with the agent's instructions ("You are the planner ..."),
# which pick the script that plays the part. Each prompt is kept as .prompts/ROLE-N-PID.txt,
# N counting the ROLE prompts this agent's view of the tree holds: agents that run at the same
# time work in separate views, so two of them may share an N (the PID tells them apart).
set -eu
prompt=$(cat)
role=$(printf '%s\n' "$prompt" | sed -n '1s/^You are the \([a-z]*\) .*/\1/p')
[ -f "scripts/$role.sh" ] || { echo "no stand-in for the agent '$role'" >&2; exit 2; }
mkdir -p .prompts
seen=$(ls .prompts | grep -c "^$role-" || true)
file=".prompts/$role-$((seen + 1))-$$.txt"
printf '%s\n' "$prompt" > "$file"
exec sh "scripts/$role.sh" < "$file"
