#!/usr/bin/env python3
"""Workflows on Restate against the local store, in one run (issue 17, "Performance").

    RECTIFY_BIN=target/release/rectify python3 crates/rectify-bench/scripts/restate_flow.py \
        [--steps 20] [--runs 5] [--concurrent 20]

Starts a Restate server (scripts/restate.sh installs it) on free ports with its data in a
temporary directory, one `rectify serve --restate` endpoint, and runs the same workflow — STEPS
answer steps in a chain, each a command agent that answers at once with a valid document — in
three ways: `rectify run` with the local SQLite store, `rectify run --on restate://…` one run at
a time, and CONCURRENT `run --on` at once. Prints a Markdown table: wall time per run and per
step, the overhead per step on Restate (the difference), the throughput of the concurrent runs,
and the bytes Restate journals per run (from its `sys_journal` table) against the local store's
bytes per run (`rectify report --format json` sizes are not the store's; the store file's growth
per run is used).
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))

AGENT = """cat >/dev/null
printf '{"id": "%s", "n": 1}' "$RECTIFY_STEP"
"""

SCHEMA = {
    "type": "object",
    "required": ["id", "n"],
    "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, port, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    if data is not None:
        req.add_header("content-type", "application/json")
    req.add_header("accept", "application/json")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read() or b"null")


def wait_for(what, check, limit=60):
    start = time.time()
    while True:
        try:
            if check():
                return
        except OSError:
            pass
        if time.time() - start > limit:
            sys.exit(f"restate_flow: waited {limit} s for {what}")
        time.sleep(0.1)


def workdir(root, steps):
    os.makedirs(os.path.join(root, "answers"))
    with open(os.path.join(root, "agent.sh"), "w") as f:
        f.write(AGENT)
    with open(os.path.join(root, "item.schema.json"), "w") as f:
        json.dump(SCHEMA, f)
    with open(os.path.join(root, "worker.md"), "w") as f:
        f.write("---\nname: worker\ndescription: answers\n---\nAnswer.\n")
    lines = [
        "name: chain",
        "providers:",
        "  sh: {kind: command, command: [sh, agent.sh]}",
        "defaults: {provider: sh}",
        "agents:",
        "  worker: worker.md",
        "steps:",
    ]
    for i in range(1, steps + 1):
        lines.append(f"  - id: s{i}")
        if i > 1:
            lines.append(f"    needs: [s{i - 1}]")
        lines += [
            "    agent: worker",
            f'    prompt: "step {i}"',
            f"    answer: {{format: json, schema: item.schema.json, save: answers/s{i}.json}}",
        ]
    with open(os.path.join(root, "workflow.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def balancer(backends):
    """A round-robin TCP balancer in front of `backends`; returns its port."""
    import itertools
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    order = itertools.cycle(backends)

    def pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            try:
                b.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def serve():
        while True:
            client, _ = listener.accept()
            backend = socket.create_connection(("127.0.0.1", next(order)))
            for s in (client, backend):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=pipe, args=(client, backend), daemon=True).start()
            threading.Thread(target=pipe, args=(backend, client), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def concurrent_runs(binary, work, on, prefix, count):
    start = time.perf_counter()
    batch = [
        subprocess.Popen(
            [binary, "run", "workflow.yaml", "--run-id", f"{prefix}-{i}", "--on", on],
            cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for i in range(count)
    ]
    for p in batch:
        if p.wait() != 0:
            sys.exit(f"restate_flow: a concurrent run failed: {p.stderr.read()}")
    return time.perf_counter() - start


def run(binary, cwd, args):
    start = time.perf_counter()
    out = subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"restate_flow: {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--concurrent", type=int, default=20)
    args = parser.parse_args()
    binary = os.path.abspath(os.environ.get("RECTIFY_BIN", os.path.join(ROOT, "target/release/rectify")))
    server = subprocess.run(
        [os.path.join(ROOT, "scripts/restate.sh")], capture_output=True, text=True, check=True
    ).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="restate-flow-")
    procs = []
    try:
        ingress, admin, fabric, endpoint = free_port(), free_port(), free_port(), free_port()
        env = dict(
            os.environ,
            RESTATE_INGRESS__BIND_ADDRESS=f"127.0.0.1:{ingress}",
            RESTATE_ADMIN__BIND_ADDRESS=f"127.0.0.1:{admin}",
            RESTATE_BIND_ADDRESS=f"127.0.0.1:{fabric}",
            RESTATE_ADVERTISED_ADDRESS=f"http://127.0.0.1:{fabric}/",
            RESTATE_NODE_NAME="bench",
            RESTATE_DISABLE_TELEMETRY="true",
        )
        log = open(os.path.join(tmp, "server.log"), "w")
        procs.append(subprocess.Popen(
            [server, "--no-logo", "--listen-mode", "tcp", "--base-dir", os.path.join(tmp, "restate")],
            env=env, stdout=log, stderr=log,
        ))
        wait_for("the Restate server", lambda: http("GET", admin, "/health") is None or True)
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        workdir(work, args.steps)
        serve_log = open(os.path.join(tmp, "serve.log"), "w")
        procs.append(subprocess.Popen(
            [binary, "serve", "--restate", "--bind", f"127.0.0.1:{endpoint}"],
            cwd=work, stdout=serve_log, stderr=serve_log,
        ))
        wait_for("the endpoint", lambda: socket.create_connection(("127.0.0.1", endpoint), 1).close() or True)
        http("POST", admin, "/deployments", {"uri": f"http://127.0.0.1:{endpoint}"})
        on = f"restate://127.0.0.1:{ingress}"
        db = os.path.join(work, ".rectify", "rectify.db")

        # Warm-up: one of each.
        run(binary, work, ["run", "workflow.yaml", "--run-id", "warm-local"])
        run(binary, work, ["run", "workflow.yaml", "--run-id", "warm-restate", "--on", on])

        local = []
        size_before = os.path.getsize(db)
        for i in range(args.runs):
            local.append(run(binary, work, ["run", "workflow.yaml", "--run-id", f"local-{i}"]))
        # The store closed: the WAL is checkpointed into the file.
        local_bytes = (os.path.getsize(db) - size_before) / args.runs
        remote = []
        for i in range(args.runs):
            remote.append(run(binary, work, ["run", "workflow.yaml", "--run-id", f"restate-{i}", "--on", on]))

        concurrent = concurrent_runs(binary, work, on, "many", args.concurrent)
        # A second endpoint, both behind a balancer registered as the service's new deployment.
        second = free_port()
        procs.append(subprocess.Popen(
            [binary, "serve", "--restate", "--bind", f"127.0.0.1:{second}"],
            cwd=work, stdout=serve_log, stderr=serve_log,
        ))
        wait_for("the second endpoint", lambda: socket.create_connection(("127.0.0.1", second), 1).close() or True)
        front = balancer([endpoint, second])
        http("POST", admin, "/deployments", {"uri": f"http://127.0.0.1:{front}", "force": True})
        concurrent_runs(binary, work, on, "warm-two", 2)
        concurrent_two = concurrent_runs(binary, work, on, "two", args.concurrent)

        query = {
            "query": "SELECT SUM(j.raw_length) AS bytes, COUNT(*) AS entries FROM sys_journal j "
            "JOIN sys_invocation i ON j.id = i.id "
            "WHERE i.target_service_key = 'restate-0' AND i.target_handler_name = 'run'"
        }
        journal = http("POST", admin, "/query", query)["rows"][0]
        state = http("POST", admin, "/query", {
            "query": "SELECT SUM(length(value)) AS bytes FROM state WHERE service_key = 'restate-0'"
        })["rows"][0]
        polls = http("POST", admin, "/query", {
            "query": "SELECT COUNT(*) AS n FROM sys_invocation "
            "WHERE target_service_key = 'restate-0' AND target_handler_name = 'status'"
        })["rows"][0]

        n = args.steps
        ml, mr = statistics.mean(local), statistics.mean(remote)
        print(f"restate_flow: {n} steps, {args.runs} runs each, {args.concurrent} concurrent; "
              f"binary {binary}; load average {os.getloadavg()[0]:.2f}\n")
        print("| measure | local (SQLite store) | Restate (one endpoint) | ratio |")
        print("|---|---|---|---|")
        print(f"| wall time per run, mean (min) | {ml * 1000:.1f} ms ({min(local) * 1000:.1f}) "
              f"| {mr * 1000:.1f} ms ({min(remote) * 1000:.1f}) | {mr / ml:.2f}× |")
        print(f"| per step | {ml / n * 1000:.2f} ms | {mr / n * 1000:.2f} ms | |")
        print(f"| Restate's overhead per step (difference of the means) | | "
              f"{(mr - ml) / n * 1000:.2f} ms | |")
        print(f"| {args.concurrent} concurrent runs (`run --on`), wall, one endpoint | | {concurrent:.2f} s "
              f"({args.concurrent / concurrent:.2f} runs/s, {args.concurrent * n / concurrent:.1f} steps/s) | |")
        print(f"| the same, two endpoints behind a round-robin balancer | | {concurrent_two:.2f} s "
              f"({args.concurrent / concurrent_two:.2f} runs/s) | {concurrent / concurrent_two:.2f}× one endpoint's throughput |")
        print(f"| bytes per run | {local_bytes:,.0f} (store file growth) | "
              f"{journal['bytes']:,} journaled in {journal['entries']} entries + {state['bytes']:,} of state | |")
        print(f"| `status` polls of one run (each a small invocation) | | {polls['n']} | |")
    finally:
        for p in reversed(procs):
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
