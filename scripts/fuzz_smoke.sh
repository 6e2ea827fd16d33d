#!/usr/bin/env bash
# A smoke run of every fuzz target (issue 15): each target's properties checked on seeds taken
# from the test fixtures, then a few seconds of mutation from them. Built on the stable
# toolchain without coverage instrumentation (libFuzzer mutates blindly), so it needs neither
# nightly nor cargo-fuzz; the long, coverage-guided runs use `cargo +nightly fuzz run` (see
# docs/BENCHMARKS.md, "Reliability"). test.sh runs it; a failing property fails the suite.
#
# Usage: scripts/fuzz_smoke.sh [SECONDS_PER_TARGET]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-5}"
# The workspace's target directory: most dependencies are already built there.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
target_dir="$CARGO_TARGET_DIR"
cargo build --manifest-path fuzz/Cargo.toml --bins --quiet --locked
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
python3 - "$seeds" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def write(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(out, target, name), mode) as f:
        f.write(data)
repair = "crates/rectify-repair/tests"
texts = []
for path in [f"{repair}/corpus/json_repair.jsonl", f"{repair}/corpus/jsonrepair_rs.jsonl", f"{repair}/fixtures/rules.jsonl"]:
    texts += [json.loads(line)["input"] for line in open(path, encoding="utf-8") if line.strip()]
for i, text in enumerate(texts):
    for target in ["repair", "text_path"]:
        write(target, f"c{i}", text)
for path in glob.glob(f"{repair}/fixtures/*.bin"):
    for target in ["repair", "text_path"]:
        write(target, os.path.basename(path), open(path, "rb").read())
for path in [f"{repair}/fixtures/rules.jsonl", f"{repair}/corpus/llm_parsers.jsonl"]:
    for i, line in enumerate(open(path, encoding="utf-8")):
        case = json.loads(line)
        if case.get("schema"):
            seed = json.dumps(case["schema"]).encode() + b"\0" + case["input"].encode()
            write("coerce", f"{os.path.basename(path)}-{i}", seed)
for i, text in enumerate(texts[:200]):
    write("coerce", f"t{i}", bytes([i % 256, 0]) + text.encode())
for i in range(64):
    write("no_silent_loss", f"s{i}", bytes((i * 37 + k * 11) % 256 for k in range(48)))
suite = [json.loads(line) for line in open(f"{repair}/corpus/yaml_test_suite.jsonl", encoding="utf-8")]
for case in suite:
    write("parse", case["id"], case["yaml"] or "")
for path in glob.glob("docs/**/*.md", recursive=True)[:40]:
    write("parse", "md-" + path.replace("/", "_"), open(path, encoding="utf-8").read())
for path in glob.glob("examples/workflows/**/*.yaml", recursive=True):
    write("workflow", path.replace("/", "_"), open(path, encoding="utf-8").read())
for path in glob.glob("examples/**/*.schema.json", recursive=True):
    write("check", path.replace("/", "_"), open(path, encoding="utf-8").read() + "\0rules:\n  - unique: /tasks/*/id\n")
for path in glob.glob("examples/**/agents/*.md", recursive=True):
    write("verdict", path.replace("/", "_"), open(path, encoding="utf-8").read())
for i, text in enumerate(texts[:300]):
    write("human", f"c{i}", text)
for i, text in enumerate(texts[:400]):
    write("judge", f"c{i}", bytes([(i * 29) % 256]) + text.encode())
bodies = [
    '{"choices":[{"message":{"content":"{\\"a\\":1}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3}}',
    '{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}',
    '{"error":{"message":"bad key sk-test"}}',
    '{"content":[{"type":"text","text":"hi"}],"stop_reason":"max_tokens","usage":{"input_tokens":1}}',
    '<html>502 Bad Gateway</html>',
    '',
]
for i, body in enumerate(bodies):
    write("provider", f"b{i}", body)
for i, text in enumerate(["Verdict: PASS\n", "Verdict: FAIL\n- missing tests\n", "Verdict: WARN\nminor", "no verdict here"]):
    write("verdict", f"v{i}", text)
PY
export RECTIFY_FUZZ_SKIP_TIMING=1
artifacts="$target_dir/fuzz-smoke"
mkdir -p "$artifacts"
for target in $(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^rectify-fuzz$'); do
    dir="$seeds/$target"
    mkdir -p "$dir"
    log="$seeds/$target.log"
    echo "== fuzz smoke: $target ($(find "$dir" -type f | wc -l) seeds, $seconds s)"
    if ! "$target_dir/debug/$target" "$dir" -seed=1 -max_total_time="$seconds" -timeout=30 \
        -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$artifacts/$target-" >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz smoke: $target failed; the input is in $artifacts/"
        exit 1
    fi
    grep -h "stat::number_of_executed_units" "$log" || true
done
