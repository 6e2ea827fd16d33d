#!/usr/bin/env python3
"""Latency of a single `ask` of the embedded model, model load included (issue 36).

Runs the rectify-local `ask` example once per request, a fresh process each time (as a single
`rectify ask` is), alternating two builds request by request so both see the same machine load:
the quick start's request REPEAT times, then the first N requests of the grounding benchmark's
fresh6 part. Prints one JSON line per run (wall time, threads, prompt tokens, prompt and answer
milliseconds, load time, load average) and then p50 / p95 per build.

    python3 crates/rectify-bench/scripts/local_latency.py BEFORE_ASK:THREADS AFTER_ASK:THREADS [N] [REPEAT]

e.g. `target/release/examples/ask:0` (THREADS 0: the provider's choice). Run it with
`nice -n 5` on a shared machine.
"""
import json
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def quantile(values, q):
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)] if s else 0.0


def run(binary, threads, prompt, schema):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(schema, f)
        f.flush()
        started = time.time()
        done = subprocess.run([binary, prompt, f.name, threads], capture_output=True, text=True)
        wall = time.time() - started
    meta = {}
    for line in done.stderr.splitlines():
        if line.startswith(("Stop ", "Length ")):
            meta = json.loads(line.split(" ", 1)[1])
    load = re.search(r"load: ([0-9.]+)(ms|s)", done.stderr)
    return {
        "wall": round(wall, 3),
        "answer": done.stdout.strip(),
        "threads": meta.get("threads"),
        "prompt_tokens": meta.get("prompt_tokens"),
        "prompt_ms": meta.get("prompt_ms"),
        "generation_ms": meta.get("generation_ms"),
        "load": load.group(0) if load else None,
        "loadavg": Path("/proc/loadavg").read_text().split()[0],
    }


def main():
    builds = [arg.rsplit(":", 1) for arg in sys.argv[1:3]]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    quick = (
        "Extract the invoice from this sentence: ACME Corp owes 1250.00 EUR for the March deliveries.",
        json.loads((ROOT / "examples/quickstart/invoice.schema.json").read_text()),
    )
    fresh6 = json.loads((ROOT / "crates/rectify-bench/data/grounding/fresh6.json").read_text())
    requests = [("quickstart", *quick)] * repeat + [
        (c["id"], c["prompt"], c["schema"]) for c in fresh6["cases"][:n]
    ]
    walls = {}
    for rid, prompt, schema in requests:
        for binary, threads in builds:
            line = run(binary, threads, prompt, schema)
            line.update(id=rid, build=binary)
            print(json.dumps(line), flush=True)
            group = "quickstart" if rid == "quickstart" else "fresh6"
            walls.setdefault((group, binary), []).append(line["wall"])
    for (group, binary), values in walls.items():
        print(f"{group} {binary}: p50 {quantile(values, 0.5):.2f} s, p95 {quantile(values, 0.95):.2f} s, "
              f"max {max(values):.2f} s ({len(values)} runs)")


if __name__ == "__main__":
    main()
