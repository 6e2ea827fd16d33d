#!/usr/bin/env bash
# Repair stays linear (issue 34, item 6): answers of 1, 4 and 16 MiB in several shapes,
# repaired with a schema by the library (`repair`, the value path; `repair_to_json`, the
# text path) and by `rectify repair --schema` (human and JSON output). Prints seconds per MiB
# and the ratio t(16 MiB) / (16 × t(1 MiB)); the goal is ≤ 2.
#
#   crates/rectify-bench/scripts/repair_linear.sh            # all shapes
#   SHAPES="candidates objects" SIZES="1 4" crates/rectify-bench/scripts/repair_linear.sh
#
# Run it with no build beside it (`flock /tmp/rectify-cargo.lock …` on a shared machine).
# CARGO_TARGET_DIR is honoured; the CLI is built without default features (no llama.cpp).
# Each run is bounded by LINEAR_TIMEOUT seconds (default 300), reported as `>T`.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
target="${CARGO_TARGET_DIR:-$root/target}"
limit="${LINEAR_TIMEOUT:-300}"
sizes="${SIZES:-1 4 16}"
shapes="${SHAPES:-candidates dropped coerce objects keys strings deep lines}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${NO_BUILD:-}" ]; then
    (cd "$root" && cargo build --quiet --release -p rectify-repair --example repair_time \
        && cargo build --quiet --release -p rectify-cli --no-default-features)
fi
lib="$target/release/examples/repair_time"
cli="$target/release/rectify"

# gen SHAPE BYTES TEXT SCHEMA: an answer of about BYTES bytes and its schema.
gen() {
    python3 - "$@" <<'PY'
import json, sys
shape, size, out, schema_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
item = {"type": "object", "required": ["id"], "properties": {
    "id": {"type": "integer"}, "status": {"enum": ["todo", "in_progress", "done"]},
    "tags": {"type": "array", "items": {"type": "string"}}}}
parts, n, i = [], 0, 0
def add(s):
    global n
    parts.append(s)
    n += len(s)
if shape == "candidates":
    # Many small top-level candidates on one line, each needing coercion; the schema
    # fits all of them, so each drop is refused (one diagnostic with a code frame each).
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    while n < size:
        add('{"a": "%d"} ' % i); i += 1
elif shape == "dropped":
    # Candidates in prose, each repaired, that do not fit; the last one does (the schema
    # alone decides, and the repairs inside the others are forgotten).
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    while n < size:
        add("answer: {'a': %d,} " % i); i += 1
    add('{"id": 5}')
elif shape == "coerce":
    # One valid array, every item coerced (string to integer).
    schema = {"type": "array", "items": {"type": "integer"}}
    while n < size:
        add(('"%d"' if i == 0 else ',"%d"') % i); i += 1
    parts.insert(0, "["); add("]")
elif shape == "objects":
    # One broken array of objects: single quotes, unquoted keys, trailing commas, enum
    # near-misses, a string for an array.
    schema = {"type": "array", "items": item}
    add("[")
    while n < size:
        add("{'id': '%d', status: 'DONE', tags: 'a, b',},\n" % i); i += 1
    add("]")
elif shape == "keys":
    # A broken object with many members, every value coerced.
    schema = {"type": "object", "additionalProperties": {"type": "number"}}
    add("{")
    while n < size:
        add("k%d: '%d.5', " % (i, i)); i += 1
    add("}")
elif shape == "strings":
    # Long single-quoted strings with escapes.
    schema = {"type": "array", "items": {"type": "string"}}
    chunk = "lorem ipsum dolor sit amet \\n " * 4000
    add("[")
    while n < size:
        add("'%s %d',\n" % (chunk, i)); i += 1
    add("]")
elif shape == "deep":
    # Values nested 60 deep (within the limits), unquoted keys.
    schema = {"type": "array", "items": {"type": "object"}}
    add("[")
    while n < size:
        add("{a: " * 60 + "'%d'" % i + "}" * 60 + ",\n"); i += 1
    add("]")
elif shape == "lines":
    # Newline-delimited candidates, the schema wants them as one array of numbers.
    schema = {"type": "array", "items": {"type": "number"}}
    while n < size:
        add('"%d"\n' % i); i += 1
else:
    sys.exit("unknown shape " + shape)
open(out, "w").write("".join(parts))
json.dump(schema, open(schema_out, "w"))
PY
}

# secs CMD...: wall-clock seconds of the best of two runs, or `>T` past the bound.
secs() {
    local best="" t
    for _ in 1 2; do
        local s
        s=$(date +%s.%N)
        local rc=0
        timeout "$limit" "$@" >/dev/null 2>&1 || rc=$?
        if [ "$rc" -eq 124 ]; then echo ">$limit"; return; fi
        t=$(echo "$(date +%s.%N) - $s" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    printf '%.3f' "$best"
}

ratio() { # ratio T1 T16 → t16 / (16 × t1)
    case "$1$2" in *">"*) echo "-"; return;; esac
    printf '%.2f' "$(echo "$2 / (16 * $1)" | bc -l)"
}

printf '%-11s %-16s' shape entry
for s in $sizes; do printf ' %10s' "${s}MiB s/MiB"; done
printf ' %s\n' "t16/(16·t1)"
for shape in $shapes; do
    for s in $sizes; do
        gen "$shape" $((s * 1048576)) "$work/$shape-$s.txt" "$work/$shape-$s.json"
    done
    for entry in repair repair_to_json cli-human cli-json; do
        declare -A t=()
        printf '%-11s %-16s' "$shape" "$entry"
        for s in $sizes; do
            text="$work/$shape-$s.txt" schema="$work/$shape-$s.json"
            case $entry in
                repair | repair_to_json)
                    out=$(timeout "$limit" "$lib" "$text" "$schema" || echo ">$limit >$limit")
                    if [ "$entry" = repair ]; then t[$s]=${out% *}; else t[$s]=${out#* }; fi ;;
                cli-human) t[$s]=$(secs "$cli" repair --schema "$schema" "$text") ;;
                cli-json) t[$s]=$(secs "$cli" repair --schema "$schema" --output json "$text") ;;
            esac
            case ${t[$s]} in
                ">"*) printf ' %10s' "${t[$s]}" ;;
                *) printf ' %10.3f' "$(echo "${t[$s]} / $s" | bc -l)" ;;
            esac
        done
        if [ -n "${t[1]:-}" ] && [ -n "${t[16]:-}" ]; then
            printf ' %s\n' "$(ratio "${t[1]}" "${t[16]}")"
        else
            echo
        fi
        unset t
    done
done
