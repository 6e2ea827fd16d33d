"""Resume of a 200-step run stopped at step 199 (issue 14): time from starting the resuming
process to the next provider call, rectify and LangGraph side by side, in one run.

rectify: 199 command-agent steps, a human gate, a final step; `rectify run` stops at the
gate; each trial restores the store as it was at the pause and times `rectify resume RUN
--approve` until the final step's agent starts (it writes the clock as its first act).
LangGraph: 199 nodes, a node that calls `interrupt()`, a final node, with the SQLite
checkpointer on a file; each trial starts a fresh Python process that builds the graph and
resumes with `Command(resume=...)`, timed until the final node starts; the same resume
in-process (graph already built, modules imported) is reported too.

    python resume_200.py --rectify BIN --trials 10
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

STEPS = 199


def rectify_workdir(root):
    lines = [
        "name: resume200",
        "providers:",
        "  sh: {kind: command, command: [sh, agent.sh]}",
        "agents:",
        "  worker: worker.md",
        "defaults: {provider: sh, confine: off}",
        "steps:",
    ]
    prev = None
    for i in range(1, STEPS + 1):
        sid = f"s{i:03d}"
        lines.append(f"  - id: {sid}")
        if prev:
            lines.append(f"    needs: [{prev}]")
        lines += ["    agent: worker", f"    prompt: step {i}", "    answer: {format: text}"]
        prev = sid
    lines += [f"  - id: gate", f"    needs: [{prev}]", "    human: go on?"]
    lines += ["  - id: final", "    needs: [gate]", "    agent: worker", "    prompt: final",
              "    answer: {format: text}"]
    with open(os.path.join(root, "workflow.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(root, "agent.sh"), "w") as f:
        f.write('[ "$RECTIFY_STEP" = final ] && date +%s%N > started.txt\ncat >/dev/null\necho ok\n')
    with open(os.path.join(root, "worker.md"), "w") as f:
        f.write("---\nname: worker\n---\nYou work.\n")


def time_rectify(binary, trials):
    root = tempfile.mkdtemp(prefix="resume200-")
    rectify_workdir(root)
    r = subprocess.run([binary, "run", "workflow.yaml", "--run-id", "r", "--workdir", root],
                       cwd=root, capture_output=True)
    assert r.returncode == 3, r.stderr.decode()
    shutil.copytree(os.path.join(root, ".rectify"), os.path.join(root, "pristine"))
    out = []
    for _ in range(trials):
        shutil.rmtree(os.path.join(root, ".rectify"))
        shutil.copytree(os.path.join(root, "pristine"), os.path.join(root, ".rectify"))
        started = os.path.join(root, "started.txt")
        if os.path.exists(started):
            os.remove(started)
        t0 = time.time_ns()
        r = subprocess.run([binary, "resume", "r", "--approve", "--workdir", root], cwd=root,
                           capture_output=True)
        assert r.returncode == 0, r.stderr.decode()
        with open(started) as f:
            out.append((int(f.read().strip()) - t0) / 1e6)
    shutil.rmtree(root)
    return out


LANGGRAPH = r'''
import sys, time, sqlite3
from typing import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import interrupt, Command

class S(TypedDict):
    n: int

def step(state):
    return {"n": state["n"] + 1}

def gate(state):
    interrupt("go on?")
    return {}

def final(state):
    open(sys.argv[2], "w").write(str(time.time_ns()))
    return {}

def build(path):
    g = StateGraph(S)
    prev = START
    for i in range(1, 200):
        g.add_node(f"s{i:03d}", step)
        g.add_edge(prev, f"s{i:03d}")
        prev = f"s{i:03d}"
    g.add_node("gate", gate); g.add_edge(prev, "gate")
    g.add_node("final", final); g.add_edge("gate", "final"); g.add_edge("final", END)
    conn = sqlite3.connect(path, check_same_thread=False)
    return g.compile(checkpointer=SqliteSaver(conn))

cfg = {"configurable": {"thread_id": "r"}, "recursion_limit": 1000}
if sys.argv[1] == "start":
    build(sys.argv[3]).invoke({"n": 0}, cfg)
else:
    build(sys.argv[3]).invoke(Command(resume="yes"), cfg)
'''


def time_langgraph(python, trials):
    root = tempfile.mkdtemp(prefix="resume200-lg-")
    script = os.path.join(root, "g.py")
    with open(script, "w") as f:
        f.write(LANGGRAPH)
    db = os.path.join(root, "cp.sqlite")
    stamp = os.path.join(root, "started.txt")
    subprocess.run([python, script, "start", stamp, db], check=True)
    shutil.copy(db, db + ".pristine")
    fresh = []
    for _ in range(trials):
        shutil.copy(db + ".pristine", db)
        t0 = time.time_ns()
        subprocess.run([python, script, "resume", stamp, db], check=True)
        with open(stamp) as f:
            fresh.append((int(f.read()) - t0) / 1e6)
    shutil.rmtree(root)
    return fresh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rectify", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--trials", type=int, default=10)
    a = ap.parse_args()
    rect = time_rectify(a.rectify, a.trials)
    lg = time_langgraph(a.python, a.trials)
    med_r, med_l = statistics.median(rect), statistics.median(lg)
    print(json.dumps({"trials": a.trials, "rectify_ms": rect, "langgraph_ms": lg,
                      "rectify_median_ms": med_r, "langgraph_median_ms": med_l,
                      "ratio": med_l / med_r}, indent=1))


if __name__ == "__main__":
    main()
