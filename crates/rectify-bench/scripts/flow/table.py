"""The side-by-side table of peers_flow.sh: rectify (criterion estimates and the FLOW_* lines
of benches/flow.rs) beside LangGraph (langgraph_seed004.py's JSON), with `rectify status`
timed here over 50 runs.

    python table.py --criterion DIR --bench-log FILE --langgraph FILE [--rectify BIN]
"""

import argparse
import json
import os
import statistics
import subprocess
import time

STEPS = 11
GOALS = {"memory": 25.0, "durable": 270.0, "bytes": 8 * 1024, "status": 20.0}


def estimate(criterion, name):
    """Mean and median of a criterion bench, in microseconds."""
    path = os.path.join(criterion, name, "new", "estimates.json")
    with open(path, encoding="utf-8") as f:
        e = json.load(f)
    return e["mean"]["point_estimate"] / 1e3, e["median"]["point_estimate"] / 1e3


def flow_lines(path):
    """`FLOW_NAME key=value ...` lines of the bench's output, as {NAME: {key: value}}."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("FLOW_"):
                continue
            name, *pairs = line.split()
            fields = out.setdefault(name, {})
            for pair in pairs:
                k, _, v = pair.partition("=")
                fields[k] = v
    return out


def status_time(binary, workdir, run, n=50):
    """Median and minimum wall time of `rectify status` (the list, and one run's), in ms."""
    out = {}
    for label, args in (("list", []), ("run", [run])):
        cmd = [binary, "status", *args, "--workdir", workdir]
        subprocess.run(cmd, check=True, capture_output=True)
        times = []
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        out[label] = (statistics.median(times) * 1e3, min(times) * 1e3)
    t = []
    for _ in range(n):
        s = time.perf_counter()
        subprocess.run(["/bin/true"], check=True)
        t.append(time.perf_counter() - s)
    out["spawn"] = (statistics.median(t) * 1e3, min(t) * 1e3)
    return out


def verdict(value, goal):
    return "meets" if value <= goal else "MISSES"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--criterion", required=True)
    p.add_argument("--bench-log", required=True)
    p.add_argument("--langgraph", required=True)
    p.add_argument("--rectify", default="")
    p.add_argument("--rectify-kind", default="")
    a = p.parse_args()

    mem_mean, mem_median = estimate(a.criterion, "flow_seed004/in_memory")
    dur_mean, dur_median = estimate(a.criterion, "flow_seed004/durable")
    lines = flow_lines(a.bench_log)
    with open(a.langgraph, encoding="utf-8") as f:
        lg = json.load(f)
    nodes = lg["nodes_per_run"]
    rect_bytes = int(lines["FLOW_RUN_BYTES"]["durable"])
    rect_growth = int(lines["FLOW_RUN_BYTES"]["db_growth_per_run"])

    print(f"seed-004 graph, {STEPS} producer steps with validate/repair pairs; producers answer at once")
    print(f"LangGraph {lg['langgraph']} (checkpoint-sqlite {lg['langgraph_checkpoint_sqlite']}, "
          f"Python {lg['python']}): {nodes} nodes run per run (11 producers + 11 validators)")
    print()
    hdr = f"{'measure':<46} {'rectify':>12} {'LangGraph':>12} {'ratio':>8}  goal"
    print(hdr)
    print("-" * len(hdr))

    def row(label, r, l, unit, goal=None, fmt="{:.1f}"):
        ratio = f"{l / r:.0f}x" if r and l else "-"
        g = f"<= {goal} ({verdict(r, goal)})" if goal is not None else ""
        rs = (fmt.format(r) + unit) if r is not None else "-"
        ls = (fmt.format(l) + unit) if l is not None else "-"
        print(f"{label:<46} {rs:>12} {ls:>12} {ratio:>8}  {g}")

    lg_mem = lg["in_memory_saver"]["mean_us"]
    lg_none = lg["no_checkpointer"]["mean_us"]
    lg_sync = lg["sqlite_sync"]["mean_us"]
    lg_async = lg["sqlite_async"]["mean_us"]
    row("in memory: us per step (run / 11)", mem_mean / STEPS, lg_mem / STEPS, " us", GOALS["memory"])
    row("  LangGraph without a checkpointer", mem_mean / STEPS, lg_none / STEPS, " us")
    row("  LangGraph us per node (run / 22)", mem_mean / STEPS, lg_mem / nodes, " us")
    row("durable: us per step (run / 11)", dur_mean / STEPS, lg_sync / STEPS, " us", GOALS["durable"])
    row("  LangGraph durability=async", dur_mean / STEPS, lg_async / STEPS, " us")
    row("  LangGraph us per node (run / 22)", dur_mean / STEPS, lg_sync / nodes, " us")
    row("in memory: ms per run", mem_mean / 1e3, lg_mem / 1e3, " ms", fmt="{:.2f}")
    row("durable: ms per run", dur_mean / 1e3, lg_sync / 1e3, " ms", fmt="{:.2f}")
    fsync, _ = estimate(a.criterion, "flow_split/fsync_4k")
    lg_fsync = (lg["fsync_4k_us_before"] + lg["fsync_4k_us_after"]) / 2
    row("  disk floor: write + fdatasync 4 KiB", fsync, lg_fsync, " us")
    st = lg["storage"]
    row("bytes stored per run (rows)", rect_bytes, st["row_bytes"], " B", GOALS["bytes"], fmt="{:.0f}")
    row("database file growth per run", rect_growth, st["db_growth_per_run"], " B", fmt="{:.0f}")
    start = lg["start"]
    status = None
    if a.rectify:
        d = lines["FLOW_STATUS_DIR"]
        status = status_time(a.rectify, d["dir"], d["last_run"])
        row(f"start: `rectify status` (list), median of 50", status["list"][0],
            start["start_list_ms"], " ms", GOALS["status"], fmt="{:.2f}")
        row(f"start: `rectify status RUN`, median of 50", status["run"][0],
            start["start_list_ms"], " ms", GOALS["status"], fmt="{:.2f}")
    print()
    print(f"rectify medians: in memory {mem_median:.0f} us/run, durable {dur_median:.0f} us/run; "
          f"stored rows in memory {lines['FLOW_RUN_BYTES']['in_memory']} B")
    print(f"LangGraph medians: InMemorySaver {lg['in_memory_saver']['median_us']:.0f} us/run, "
          f"sqlite sync {lg['sqlite_sync']['median_us']:.0f} us/run "
          f"({lg['sqlite_sync']['runs']} runs timed); per run it stores {st['checkpoints']} "
          f"checkpoints ({st['checkpoint_bytes']} B) and {st['writes']} writes ({st['write_bytes']} B)")
    print(f"LangGraph start: import + build + list threads {start['start_list_ms']:.0f} ms, "
          f"imports alone {start['import_ms']:.0f} ms, bare python {start['python_bare_ms']:.0f} ms "
          f"(medians of {start['runs']})")
    print(f"fsync of 4 KiB: rectify bench mean {fsync:.0f} us; beside LangGraph's SQLite runs "
          f"median {lg['fsync_4k_us_before']:.0f} us before, {lg['fsync_4k_us_after']:.0f} us after "
          "(the durable rows compare only when these agree)")
    if status:
        print(f"rectify status binary: {a.rectify} ({a.rectify_kind}); min list {status['list'][1]:.2f} ms, "
              f"min run {status['run'][1]:.2f} ms; spawning /bin/true: median {status['spawn'][0]:.2f} ms")
    else:
        print("rectify status: not timed (no binary)")


if __name__ == "__main__":
    main()
