#!/usr/bin/env bash
# `rectify ask` against a real OpenAI-compatible server (issue 13, item 13): llama-cpp-python's
# server, installed from PyPI into a venv under target/llama-server/ (its sdist compiles
# llama.cpp: about 7 minutes on the 2-core machine, once), serving the Gemma 3 270M GGUF the
# project already fetches, on 127.0.0.1. Runs the 15 extraction prompts of
# examples/bench-prompts with each `--structured-output` mode and prints one line per prompt
# and mode, then a summary (valid answers, attempts, whether the `response_format` fallback was
# taken). Each answer may use 400 tokens (the server's own limit is the context). Each
# `--output json` result is kept as target/llama-server/ask-MODE-ID.json.
#
#   crates/rectify-bench/scripts/llama_cpp_server.sh
#
# RECTIFY_BIN (default target/debug/rectify, built with --no-default-features when missing),
# MODEL (default ~/.cache/rectify/models/gemma-3-270m-q4_k_m.gguf), PORT (default 18080),
# LLAMA_CPP_PYTHON_VERSION (default 0.3.36). The server is stopped on exit.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/llama-server"
mkdir -p "$out"
model="${MODEL:-$HOME/.cache/rectify/models/gemma-3-270m-q4_k_m.gguf}"
port="${PORT:-18080}"
if [ ! -f "$model" ]; then
    echo "no model at $model: run scripts/setup.sh (it fetches it)" >&2
    exit 2
fi

if [ ! -x "$out/venv/bin/python" ]; then
    python3 -m venv "$out/venv"
fi
if ! "$out/venv/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    echo "== pip install llama-cpp-python[server] (compiles llama.cpp)" >&2
    "$out/venv/bin/pip" install --quiet "llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
fi

bin="${RECTIFY_BIN:-$target/debug/rectify}"
if [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --quiet --locked -p rectify-cli --no-default-features)
fi

"$out/venv/bin/python" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
    --n_ctx 4096 --n_threads 2 > "$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; sleep 1; kill -9 $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
    if "$out/venv/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/v1/models', timeout=1)" 2>/dev/null; then
        break
    fi
    sleep 0.5
done

"$out/venv/bin/python" - "$root" "$bin" "$port" "$out" <<'EOF'
import json, pathlib, subprocess, sys, time
root, binary, port, out = sys.argv[1:5]
prompts = sorted(pathlib.Path(root, "examples/bench-prompts").glob("*-extraction.json"))
env = {"PATH": "/usr/bin:/bin", "HOME": str(pathlib.Path.home())}
rows = []
for mode in ["json_schema", "json_object", "off"]:
    for path in prompts:
        case = json.loads(path.read_text())
        schema = pathlib.Path(out, f"schema-{case['id']}.json")
        schema.write_text(json.dumps(case["schema"]))
        start = time.monotonic()
        run = subprocess.run(
            [binary, "ask", case["prompt"], "--schema", str(schema), "--provider", "openai",
             "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "gemma-3-270m",
             "--structured-output", mode, "--max-output-tokens", "400", "--output", "json"],
            capture_output=True, text=True, env=env, timeout=600)
        seconds = time.monotonic() - start
        fallback = "rejected `response_format" in run.stderr
        pathlib.Path(out, f"ask-{mode}-{case['id']}.json").write_text(run.stdout)
        rows.append((mode, case["id"], run.returncode, fallback, seconds))
        print(f"{mode:12} {case['id']}  exit {run.returncode}  fallback {'yes' if fallback else 'no '}  {seconds:5.1f} s", flush=True)
print()
print("mode          valid (exit 0)  exhausted (exit 3)  provider failure (exit 4)  other  fallback taken  seconds per prompt")
for mode in ["json_schema", "json_object", "off"]:
    r = [x for x in rows if x[0] == mode]
    count = lambda code: sum(1 for x in r if x[2] == code)
    other = len(r) - count(0) - count(3) - count(4)
    print(f"{mode:12}  {count(0):>2}/{len(r)}           {count(3):>2}/{len(r)}               {count(4):>2}/{len(r)}                      {other:>2}     {sum(1 for x in r if x[3]):>2}/{len(r)}           {sum(x[4] for x in r)/len(r):.1f}")
EOF
