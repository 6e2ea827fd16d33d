"""The seed-004 graph in LangGraph, timed the way benches/flow.rs times rectify (issue 11).

Seed 004 wires a validate node and a repair node after every producer: the producer writes
its document, `validate_*` parses it and checks its fields (seed 004's requireString /
requireNonEmptyArray), a conditional edge goes on when it is valid, to `repair_*` when it is
not (repair goes back to validate), and raises after 3 repairs. Here 11 producers answer at
once with the document benches/flow.rs's provider returns, so a run executes 22 nodes
(11 producers, 11 validators; the 11 repair nodes stay idle) and all of the time is LangGraph's.

    python langgraph_seed004.py [--seconds S]      # prints one JSON object
    python langgraph_seed004.py --start            # one cold start (used by the start timing)

Measured: time per run with no checkpointer, with InMemorySaver, and with SqliteSaver on a
temporary file (WAL, synchronous=FULL as rectify's store) in durability "sync" (each
checkpoint written before the next step) and the default "async"; bytes of the checkpoint and
write rows per run and the growth of the database file per run; the cold start of a process
that imports LangGraph, builds and compiles the graph and lists the threads of a database
(what `rectify status` does).
"""

import argparse
import json
import operator
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Annotated, TypedDict

STEPS = [
    "analyze",
    "requirements",
    "research",
    "plan",
    "tasks",
    "implement",
    "review",
    "test",
    "docs",
    "changelog",
    "release",
]

# The same text benches/flow.rs's provider answers with.
ANSWER = '{"name": "feature", "summary": "A producer that answers at once.", "items": ["spec", "plan", "tasks"]}'


def merge(a: dict, b: dict) -> dict:
    return {**a, **b}


class State(TypedDict, total=False):
    messages: Annotated[list, operator.add]
    docs: Annotated[dict, merge]
    validationRetries: int
    lastValidationTarget: str
    lastValidationErrors: list


def require_string(data, field, errors):
    val = data.get(field)
    if val is None:
        errors.append(f"Missing required string field '{field}'")
    elif not isinstance(val, str):
        errors.append(f"Field '{field}' must be a string, got {type(val).__name__}")
    elif not val.strip():
        errors.append(f"Field '{field}' must not be empty")


def require_non_empty_array(data, field, errors):
    val = data.get(field)
    if val is None:
        errors.append(f"Missing required array field '{field}'")
    elif not isinstance(val, list):
        errors.append(f"Field '{field}' must be an array, got {type(val).__name__}")
    elif not val:
        errors.append(f"Field '{field}' must not be empty")


def producer(name):
    def node(state: State) -> dict:
        return {"docs": {name: ANSWER}, "messages": [f"[{name}] produced"]}

    return node


def validate(name):
    def node(state: State) -> dict:
        errors = []
        try:
            data = json.loads(state["docs"][name])
        except (KeyError, ValueError) as e:
            errors.append(f"{name}: cannot be read: {e}")
            data = None
        if isinstance(data, dict):
            require_string(data, "name", errors)
            require_string(data, "summary", errors)
            require_non_empty_array(data, "items", errors)
        elif data is not None:
            errors.append("YAML parsed to null or non-object")
        retries = state.get("validationRetries", 0)
        return {
            "validationRetries": retries + 1 if errors else 0,
            "lastValidationTarget": name,
            "lastValidationErrors": errors,
            "messages": [f"[validate:{name}] {'FAIL' if errors else 'PASS'}"],
        }

    return node


def repair(name):
    def node(state: State) -> dict:
        return {"docs": {name: ANSWER}, "messages": [f"[repair:{name}] attempt"]}

    return node


def route(success, repair_node):
    def decide(state: State) -> str:
        if not state.get("lastValidationErrors"):
            return success
        if state.get("validationRetries", 0) >= 3:
            raise RuntimeError(f"validation of {state['lastValidationTarget']} failed")
        return repair_node

    return decide


def build(checkpointer=None):
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(State)
    for name in STEPS:
        g.add_node(name, producer(name))
        g.add_node(f"validate_{name}", validate(name))
        g.add_node(f"repair_{name}", repair(name))
    g.add_edge(START, STEPS[0])
    for i, name in enumerate(STEPS):
        nxt = STEPS[i + 1] if i + 1 < len(STEPS) else END
        g.add_edge(name, f"validate_{name}")
        g.add_conditional_edges(f"validate_{name}", route(nxt, f"repair_{name}"), [nxt, f"repair_{name}"])
        g.add_edge(f"repair_{name}", f"validate_{name}")
    return g.compile(checkpointer=checkpointer)


class Runs:
    """Invokes a compiled graph on new threads and checks each run went through."""

    def __init__(self, graph, durability=None):
        self.graph = graph
        self.durability = durability
        self.n = 0

    def once(self):
        self.n += 1
        config = {"configurable": {"thread_id": f"run-{self.n}"}}
        kwargs = {"durability": self.durability} if self.durability else {}
        out = self.graph.invoke({"messages": [], "docs": {}}, config, **kwargs)
        assert len(out["docs"]) == len(STEPS), out
        assert len(out["messages"]) == 2 * len(STEPS), out
        return config["configurable"]["thread_id"]


def timed(runs, seconds, warmup=5):
    for _ in range(warmup):
        runs.once()
    times = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(times) < 10:
        t = time.perf_counter()
        runs.once()
        times.append(time.perf_counter() - t)
    return {
        "runs": len(times),
        "mean_us": statistics.fmean(times) * 1e6,
        "median_us": statistics.median(times) * 1e6,
    }


def fsync_floor(tmp, n=200):
    """Median time of writing 4 KiB and fdatasync-ing it on the temporary directory's file
    system: the disk's floor under one durable commit while the SQLite saver is timed."""
    fd = os.open(os.path.join(tmp, "fsync.bin"), os.O_CREAT | os.O_WRONLY, 0o600)
    page = b"\x07" * 4096
    times = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            os.pwrite(fd, page, 0)
            os.fdatasync(fd)
            times.append(time.perf_counter() - t)
    finally:
        os.close(fd)
    return statistics.median(times) * 1e6


def sqlite_saver(path):
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()  # journal_mode=WAL
    conn.execute("PRAGMA synchronous=FULL")
    return conn, saver


ROW_BYTES = """
SELECT
  (SELECT IFNULL(SUM(LENGTH(thread_id) + LENGTH(checkpoint_ns) + LENGTH(checkpoint_id)
      + IFNULL(LENGTH(parent_checkpoint_id), 0) + IFNULL(LENGTH(type), 0)
      + IFNULL(LENGTH(checkpoint), 0) + IFNULL(LENGTH(metadata), 0)), 0)
   FROM checkpoints WHERE thread_id = ?1),
  (SELECT IFNULL(SUM(LENGTH(thread_id) + LENGTH(checkpoint_ns) + LENGTH(checkpoint_id)
      + LENGTH(task_id) + LENGTH(task_path) + 8 + LENGTH(channel) + IFNULL(LENGTH(type), 0)
      + IFNULL(LENGTH(value), 0)), 0)
   FROM writes WHERE thread_id = ?1),
  (SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?1),
  (SELECT COUNT(*) FROM writes WHERE thread_id = ?1)
"""


def storage(tmp, runs_n=50):
    """Bytes of one run's rows, and the database file's growth per run (the connection
    closed each time, so the WAL is checkpointed into the file)."""
    path = os.path.join(tmp, "bytes.sqlite")
    conn, saver = sqlite_saver(path)
    thread = Runs(build(saver), "sync").once()
    checkpoints, writes, n_checkpoints, n_writes = conn.execute(ROW_BYTES, (thread,)).fetchone()
    conn.close()
    before = os.path.getsize(path)
    conn, saver = sqlite_saver(path)
    runs = Runs(build(saver), "sync")
    runs.n = 1
    for _ in range(runs_n):
        runs.once()
    conn.close()
    after = os.path.getsize(path)
    return {
        "row_bytes": checkpoints + writes,
        "checkpoint_bytes": checkpoints,
        "write_bytes": writes,
        "checkpoints": n_checkpoints,
        "writes": n_writes,
        "db_growth_per_run": (after - before) // runs_n,
    }


START_SCRIPT = """
import sqlite3, sys
sys.path.insert(0, {here!r})
from langgraph.checkpoint.sqlite import SqliteSaver
import langgraph_seed004 as m
conn = sqlite3.connect({db!r}, check_same_thread=False)
saver = SqliteSaver(conn)
graph = m.build(saver)
threads = {{c.config["configurable"]["thread_id"] for c in saver.list(None, limit=100)}}
print(len(threads))
"""


def start_time(tmp, n=10):
    """Cold start of a process that imports LangGraph and its SQLite saver, builds and
    compiles the graph and lists the threads of a database with 10 runs."""
    db = os.path.join(tmp, "start.sqlite")
    conn, saver = sqlite_saver(db)
    runs = Runs(build(saver), "sync")
    for _ in range(10):
        runs.once()
    conn.close()
    code = START_SCRIPT.format(here=os.path.dirname(os.path.abspath(__file__)), db=db)
    import_only = "import langgraph.graph, langgraph.checkpoint.sqlite"
    full, imports = [], []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        full.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", import_only], check=True, capture_output=True)
        imports.append(time.perf_counter() - t)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - t
    return {
        "start_list_ms": statistics.median(full) * 1e3,
        "import_ms": statistics.median(imports) * 1e3,
        "python_bare_ms": bare * 1e3,
        "runs": n,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    import langgraph
    from importlib.metadata import version
    from langgraph.checkpoint.memory import InMemorySaver

    out = {
        "langgraph": version("langgraph"),
        "langgraph_checkpoint_sqlite": version("langgraph-checkpoint-sqlite"),
        "python": sys.version.split()[0],
        "nodes_per_run": 2 * len(STEPS),
        "steps": len(STEPS),
    }
    del langgraph
    with tempfile.TemporaryDirectory() as tmp:
        out["no_checkpointer"] = timed(Runs(build()), args.seconds)
        out["in_memory_saver"] = timed(Runs(build(InMemorySaver())), args.seconds)
        out["fsync_4k_us_before"] = fsync_floor(tmp)
        conn, saver = sqlite_saver(os.path.join(tmp, "sync.sqlite"))
        out["sqlite_sync"] = timed(Runs(build(saver), "sync"), args.seconds, warmup=2)
        conn.close()
        conn, saver = sqlite_saver(os.path.join(tmp, "async.sqlite"))
        out["sqlite_async"] = timed(Runs(build(saver)), args.seconds, warmup=2)
        conn.close()
        out["fsync_4k_us_after"] = fsync_floor(tmp)
        out["storage"] = storage(tmp)
        out["start"] = start_time(tmp)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
