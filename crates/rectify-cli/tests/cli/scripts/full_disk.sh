# A run whose store is on a full disk (issue 14): run in a private mount namespace
# (`unshare -m sh full_disk.sh RECTIFY`) on a 2 MB tmpfs. The run pauses at a gate; the disk is
# filled; `resume --approve` must fail with a clear error and exit 2, leave the store as it
# was, and succeed once space is freed. Prints `key=value` lines the test reads.
set -u
B=$1
D=$(mktemp -d)
E=$(mktemp)
mount -t tmpfs -o size=2m tmpfs "$D" || { echo "mount=failed"; exit 0; }
cd "$D"
cat > workflow.yaml <<'Y'
name: gated
providers:
  sh: {kind: command, command: [sh, agent.sh]}
agents:
  worker: worker.md
defaults: {provider: sh}
steps:
  - id: one
    agent: worker
    prompt: one
    outputs: [{path: one.txt}]
  - id: gate
    needs: [one]
    human: go on?
  - id: two
    needs: [gate]
    agent: worker
    prompt: two
    outputs: [{path: two.txt}]
Y
printf 'cat >/dev/null\necho done > "$RECTIFY_OUTPUTS"\necho ok\n' > agent.sh
printf -- '---\nname: worker\n---\nYou work.\n' > worker.md
$B run workflow.yaml --run-id g >/dev/null 2>&1; echo "run=$?"
dd if=/dev/zero of=fill bs=4k 2>/dev/null; echo "filled"
$B resume g --approve 2> "$E"; echo "full=$?"
rm fill
echo "message=$(tr '\n' ' ' < "$E")"
rm -f "$E"
$B status g --output json > status.json 2>/dev/null; echo "status=$(grep -o '"status": *"[a-z]*"' status.json | head -1)"
$B resume g --approve >/dev/null 2>&1; echo "after=$?"
echo "two=$(cat two.txt)"
cd /
umount "$D"
