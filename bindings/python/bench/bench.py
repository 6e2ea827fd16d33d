"""The Python package against its PyPI peers, in one process, ratios measured in one run
(issue 37). Run by bindings/python/bench/run.sh, which installs the release wheel and the peers
into a fresh virtual environment.

Sections:
1. repair: rectify.repair vs json_repair.repair_json on the repair corpora of
   crates/rectify-repair/tests/corpus/ (cases right, time) and on a 10 MB broken document
   (the generator of crates/rectify-bench/scripts/repair_10mb.sh: same seed, same document).
2. retry: validate_with_retry vs instructor's retry loop vs pydantic-ai's output retries, all
   driven by the same scripted model; calls made and overhead per attempt.
3. import time of `import rectify` (and of the peers), in fresh interpreters.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "crates/rectify-repair/tests/corpus"
REPAIR_CORPORA = [
    "json_repair", "jsonrepair_rs", "best_effort_json_parser", "llm_parsers", "llm_frameworks",
    "agent_frameworks", "crate_parsers", "pypi_repairers", "registry_suites",
]


def best(runs: int, f: Callable[[], Any]) -> float:
    b = float("inf")
    for _ in range(runs):
        gc.collect()
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b


# ---------------------------------------------------------------------------------------------
# 1. repair


def rectify_value(text: str) -> Any:
    import rectify

    r = rectify.repair(text, unsafe=True)
    return r.value if r.valid else _ERROR


def json_repair_value(text: str) -> Any:
    from json_repair import repair_json

    try:
        v = repair_json(text, return_objects=True)
    except Exception:
        return _ERROR
    return _ERROR if v == "" and text.strip() not in ('""', "''") else v


class _Error:
    def __repr__(self) -> str:
        return "<error>"


_ERROR = _Error()


def same(got: Any, expected: Any) -> bool:
    if expected is None:
        # An error expected (or a null): both count as right.
        return got is _ERROR or got is None
    return got is not _ERROR and json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)


def repair_corpora() -> List[str]:
    out = ["| corpus | cases | rectify right | json_repair right | rectify time | json_repair time | speed ratio |",
           "|---|---|---|---|---|---|---|"]
    totals = [0, 0, 0, 0.0, 0.0]
    for name in REPAIR_CORPORA:
        path = CORPUS / f"{name}.jsonl"
        if not path.exists():
            continue
        cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        cases = [c for c in cases if isinstance(c.get("input"), str)]
        ok_r = sum(same(rectify_value(c["input"]), c.get("expected")) for c in cases)
        ok_j = sum(same(json_repair_value(c["input"]), c.get("expected")) for c in cases)
        texts = [c["input"] for c in cases]
        t_r = best(5, lambda: [rectify_value(t) for t in texts])
        t_j = best(3, lambda: [json_repair_value(t) for t in texts])
        out.append(f"| {name} | {len(cases)} | {ok_r} | {ok_j} | {t_r * 1e3:.1f} ms | {t_j * 1e3:.1f} ms | {t_j / t_r:.0f}× |")
        for i, v in enumerate([len(cases), ok_r, ok_j, t_r, t_j]):
            totals[i] += v
    n, r, j, tr, tj = totals
    out.append(f"| **all** | {n:.0f} | **{r:.0f} ({100 * r / n:.1f}%)** | {j:.0f} ({100 * j / n:.1f}%) | {tr * 1e3:.1f} ms | {tj * 1e3:.1f} ms | **{tj / tr:.0f}×** |")
    return out


def ten_mb() -> Tuple[str, Any]:
    """The broken and valid 10 MB documents of crates/rectify-bench/scripts/ten_mb.py (the
    generator repair_10mb.sh and the Node benchmark use too)."""
    sys.path.insert(0, str(ROOT / "crates/rectify-bench/scripts"))
    try:
        import ten_mb as generator
    finally:
        sys.path.pop(0)
    return generator.documents()


def repair_10mb() -> List[str]:
    import rectify
    from json_repair import repair_json

    broken, valid = ten_mb()
    r = rectify.repair(broken)
    t_text = best(3, lambda: rectify.repair(broken))  # the value's JSON text only (`.json`)
    j = repair_json(broken, return_objects=True)
    t_r = best(3, lambda: rectify.repair(broken).value)  # the value decoded, as a caller gets it
    t_j = best(2, lambda: repair_json(broken, return_objects=True))
    t_load = best(3, lambda: json.loads(json.dumps(valid)))
    t_j_text = best(2, lambda: repair_json(broken))  # json_repair's default: the repaired text
    mb = len(broken.encode()) / 1e6
    return [
        f"| document | rectify.repair | json_repair.repair_json | ratio | rectify right | json_repair right |",
        "|---|---|---|---|---|---|",
        f"| broken, {mb:.1f} MB, {len(r.repairs)} repairs: the value (`.value`, `return_objects=True`) | {t_r:.3f} s | {t_j:.3f} s | **{t_j / t_r:.0f}×** | {r.value == valid} | {j == valid} |",
        f"| the same, the repaired JSON text (`.json`, `repair_json(text)`) | {t_text:.3f} s | {t_j_text:.3f} s | **{t_j_text / t_text:.0f}×** | | |",
        f"",
        f"(In the same run: `rectify.repair` without reading `.value` — the repaired JSON text, `.json` — "
        f"takes {t_text:.3f} s; `json.loads(json.dumps(valid))` of the valid document {t_load:.3f} s.)",
    ]


# ---------------------------------------------------------------------------------------------
# 2. retry


def retry_section(runs: int) -> List[str]:
    import asyncio

    import instructor
    from openai.types.chat import ChatCompletion
    import pydantic
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    import rectify

    class Contact(pydantic.BaseModel):
        name: str
        email: str

        @pydantic.field_validator("email")
        @classmethod
        def has_at(cls, v: str) -> str:
            if "@" not in v:
                raise ValueError("an email address has an @")
            return v

    valid = '{"name": "Ada Lovelace", "email": "ada@example.org"}'
    scenarios: Dict[str, List[str]] = {
        "missing field, then valid": ['{"name": "Ada Lovelace"}', valid],
        "custom validator fails, then valid": ['{"name": "Ada Lovelace", "email": "ada-at-example.org"}', valid],
        "fenced, trailing comma, then valid": ['```json\n{"name": "Ada Lovelace", "email": "ada@example.org",}\n```', valid],
        "valid at once": [valid],
    }

    class Script:
        def __init__(self, answers: List[str]) -> None:
            self.answers, self.calls = answers, 0

        def next(self) -> str:
            a = self.answers[min(self.calls, len(self.answers) - 1)]
            self.calls += 1
            return a

    # rectify: the scripted model is the execute function.
    def run_rectify(answers: List[str]) -> int:
        s = Script(answers)
        out = rectify.validate_with_retry(lambda fb: s.next(), Contact, max_attempts=3)
        assert out.email == "ada@example.org"
        return s.calls

    # instructor: its retry loop over a `create` function answering from the script with OpenAI
    # ChatCompletion objects (no SDK, no transport: instructor's own work only).
    def completion(content: str) -> Dict[str, Any]:
        return {"id": "x", "object": "chat.completion", "created": 0, "model": "scripted",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    def run_instructor(answers: List[str]) -> int:
        s = Script(answers)

        def create(**kwargs: Any) -> ChatCompletion:
            return ChatCompletion.model_validate(completion(s.next()))

        patched = instructor.patch(create=create, mode=instructor.Mode.JSON)
        out = patched(model="scripted", response_model=Contact, max_retries=3,
                      messages=[{"role": "user", "content": "Who?"}])
        assert out.email == "ada@example.org"
        return s.calls

    def run_bare_openai(answers: List[str]) -> int:
        """The scripted model alone as instructor gets it (building the ChatCompletion objects)."""
        s = Script(answers)
        for _ in answers:
            ChatCompletion.model_validate(completion(s.next()))
        return s.calls

    # pydantic-ai: a FunctionModel answering from the script through the output tool.
    def run_pydantic_ai(answers: List[str]) -> int:
        s = Script(answers)

        def model(messages: Any, info: AgentInfo) -> ModelResponse:
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, s.next())])

        agent = Agent(FunctionModel(model), output_type=Contact, retries=3)
        out = agent.run_sync("Who?").output
        assert out.email == "ada@example.org"
        return s.calls

    rows = ["| scenario | rectify calls | instructor calls | pydantic-ai calls | rectify per attempt | instructor per attempt (own) | pydantic-ai per attempt |",
            "|---|---|---|---|---|---|---|"]
    for name, answers in scenarios.items():
        calls = {}
        for label, f in [("rectify", run_rectify), ("instructor", run_instructor), ("pydantic-ai", run_pydantic_ai)]:
            try:
                calls[label] = f(answers)
            except Exception as e:  # a peer that never gets there
                calls[label] = f"fails ({type(e).__name__})"
        times = {}
        for label, f in [("rectify", run_rectify), ("instructor", run_instructor),
                         ("pydantic-ai", run_pydantic_ai), ("bare", run_bare_openai)]:
            if not isinstance(calls.get(label, 0), int):
                times[label] = float("nan")
                continue
            samples = []
            for _ in range(5):
                t = time.perf_counter()
                for _ in range(runs):
                    f(answers)
                samples.append((time.perf_counter() - t) / runs)
            times[label] = min(samples)
        per = lambda label: times[label] / calls[label] * 1e3 if isinstance(calls[label], int) else float("nan")  # noqa: E731
        bare = times["bare"] / len(answers)
        own = (times["instructor"] - bare * calls["instructor"]) / calls["instructor"] * 1e3 if isinstance(calls["instructor"], int) else float("nan")
        rows.append(f"| {name} | {calls['rectify']} | {calls['instructor']} | {calls['pydantic-ai']} | "
                    f"{per('rectify'):.3f} ms | {per('instructor'):.3f} ms ({own:.3f} ms) | {per('pydantic-ai'):.3f} ms |")
    rows.append("")
    rows.append("Per attempt: wall time of one whole call divided by the model calls it made (the scripted "
                "model itself costs microseconds). instructor gets the answers as OpenAI `ChatCompletion` objects; "
                "\"own\" subtracts the time of building them, measured alone.")
    return rows


# ---------------------------------------------------------------------------------------------
# 3. import time


def import_time(module: str, runs: int = 15, then: str = "") -> float:
    after = f"{then}; " if then else ""
    code = f"import time; t = time.perf_counter(); import {module}; {after}print(time.perf_counter() - t)"
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        samples.append(float(out.stdout))
    return statistics.median(samples)


def imports() -> List[str]:
    rows = ["| module | import time (median of 15 fresh interpreters) |", "|---|---|"]
    for m in ["rectify", "json_repair", "instructor", "pydantic_ai", "pydantic"]:
        rows.append(f"| `import {m}` | {import_time(m) * 1e3:.1f} ms |")
    first = import_time("rectify", then="rectify.repair('{}')")
    rows.append(f"| `import rectify` and a first `rectify.repair('{{}}')` (loads the extension) | {first * 1e3:.1f} ms |")
    rows.append(f"| `python -c pass` baseline is not subtracted; the timer starts inside the interpreter | |")
    return rows


def main() -> None:
    import importlib.metadata as md

    sections = sys.argv[1:] or ["repair", "retry", "import"]
    versions = ", ".join(f"{p} {md.version(p)}" for p in ["rectify", "json_repair", "instructor", "openai", "pydantic-ai-slim", "pydantic"])
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; {versions}\n")
    if "repair" in sections:
        print("\n".join(repair_corpora()), "\n", flush=True)
        print("\n".join(repair_10mb()), "\n", flush=True)
    if "retry" in sections:
        print("\n".join(retry_section(int(os.environ.get("RUNS", "200")))), "\n", flush=True)
    if "import" in sections:
        print("\n".join(imports()), "\n", flush=True)


if __name__ == "__main__":
    main()
