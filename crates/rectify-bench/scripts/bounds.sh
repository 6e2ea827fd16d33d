#!/usr/bin/env bash
# Time and peak memory of every command on every hostile input (issue 15, item 9): the inputs
# of crates/rectify-cli/tests/cli/bounds.rs (which asserts the exit codes and messages), each
# given to `check`, `repair`, `run --dry-run` (as the workflow file) and `ask` (as the prompt on
# standard input, answered by an agent that reads it and prints `{}`). Prints a Markdown table:
# exit status, wall time and peak RSS (`/usr/bin/time`, Debian package `time`).
#
# Usage: RECTIFY_BIN=target/release/rectify crates/rectify-bench/scripts/bounds.sh
set -euo pipefail
bin="${RECTIFY_BIN:-target/release/rectify}"
bin="$(realpath "$bin")"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import os, sys
d = sys.argv[1]
def w(name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
with open(os.path.join(d, "big.json"), "wb") as f:
    f.write(b"[")
    chunk = b" " * (1024 * 1024)
    for _ in range(300):
        f.write(chunk)
    f.write(b"1]")
w("deep.json", b"[" * 10000)
y = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
for i in range(9):
    prev = "a" if i == 0 else f"a{i-1}"
    y += f"a{i}: &a{i} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
w("bomb.yaml", y.encode())
w("line.json", b'{"text": "' + b"x" * (50 * 1024 * 1024) + b'"}')
w("bad.json", b'{"a": "\xff\xfe"}')
w("nul.json", b'{"a": 1}\x00{"b": 2}')
w("empty.json", b"")
w("schema.json", b'{"type": "object"}')
os.mkdir(os.path.join(d, "adir"))
os.mkfifo(os.path.join(d, "fifo.json"))
PY
measure() { # measure NAME STDIN ARGS... -> "exit s MB"
    local stdin="$1"; shift
    local out="$dir/time.txt"
    set +e
    if [ "$stdin" = fifo ]; then
        (printf '{"a": 1}' > "$dir/fifo.json") &
        /usr/bin/time -f '%e %M' -o "$out" "$bin" "$@" </dev/null >/dev/null 2>&1
    elif [ "$stdin" = zero ]; then
        timeout 120 /usr/bin/time -f '%e %M' -o "$out" "$bin" "$@" </dev/zero >/dev/null 2>&1
    else
        /usr/bin/time -f '%e %M' -o "$out" "$bin" "$@" <"$stdin" >/dev/null 2>&1
    fi
    local code=$?
    set -e
    read -r secs kb < <(tail -n 1 "$out")
    printf '%s, %s s, %s MB' "$code" "$secs" "$((kb / 1024))"
}
agent=(--schema "$dir/schema.json" -- sh -c 'cat >/dev/null; echo "{}"')
echo "| input | check | repair | run --dry-run | ask (prompt on stdin) |"
echo "|---|---|---|---|---|"
for name in big.json deep.json bomb.yaml line.json bad.json nul.json empty.json adir fifo.json zero; do
    if [ "$name" = zero ]; then
        row="| /dev/zero on stdin | $(measure zero check -) | $(measure zero repair -) | – | $(measure zero ask - "${agent[@]}") |"
    elif [ "$name" = fifo.json ]; then
        row="| FIFO | $(measure fifo check "$dir/$name") | $(measure fifo repair "$dir/$name") | $(measure fifo run "$dir/$name" --dry-run --workdir "$dir") | – |"
    elif [ "$name" = adir ]; then
        row="| directory | $(measure /dev/null check "$dir/$name") | $(measure /dev/null repair "$dir/$name") | $(measure /dev/null run "$dir/$name" --dry-run --workdir "$dir") | – |"
    else
        p="$dir/$name"
        row="| $name | $(measure /dev/null check "$p") | $(measure /dev/null repair "$p") | $(measure /dev/null run "$p" --dry-run --workdir "$dir") | $(measure "$p" ask - "${agent[@]}") |"
    fi
    echo "$row"
done
