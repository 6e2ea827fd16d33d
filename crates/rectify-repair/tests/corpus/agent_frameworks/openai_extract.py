"""Cases from the openai SDK's tests/lib/chat/test_completions.py (structured outputs:
chat.completions.parse with a pydantic response_format / pydantic_function_tool).

Run: python3 openai_extract.py   (reads sdists/openai/*.tar.gz, writes openai.jsonl)
Input: the model's text as recorded in the test's `content_snapshot` (the raw API response):
message.content, or a tool call's function.arguments. Expected: the `parsed=` /
`parsed_arguments=` value the test's printed snapshot states, rebuilt by evaluating that
one-line repr against the test's own model classes (only the class definitions in the test
function are executed, with pydantic; no openai code runs) and dumped with mode="json".
Schema: the model's pydantic JSON Schema (TypeAdapter(...).json_schema()); null for a plain
dict `parsed_arguments` (non-pydantic tool). A case is kept only when the dumped value equals
the raw text parsed as JSON (numbers by value), i.e. no defaults were filled in, and when
exactly that raw text validates to the stated object. Multi-line reprs and models defined
outside the test file (schema_types.query.Query) are skipped.
"""
import ast, json, re
from enum import Enum
from typing import List, Optional
from typing_extensions import Literal
from pydantic import BaseModel, Field, TypeAdapter
from pydantic.dataclasses import dataclass
from _common import open_sdist, read_source, Writer

PKG, FILE = "openai", "tests/lib/chat/test_completions.py"
tf, top, _ = open_sdist(PKG)
tree = ast.parse(read_source(tf, top, FILE))
w = Writer("openai")


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b)


def snapshots(fn):
    """(content_snapshot strings, other snapshot strings) of a test function."""
    raw, printed = [], []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "snapshot" and node.args:
            a = node.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                printed.append(a.value)
        if isinstance(node, ast.keyword) and node.arg == "content_snapshot":
            v = node.value
            if isinstance(v, ast.Call) and v.args and isinstance(v.args[0], ast.Constant):
                raw.append(v.args[0].value)
    printed = [p for p in printed if p not in raw]
    return raw, printed


for fn in tree.body:
    if not (isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test")):
        continue
    ns = {"BaseModel": BaseModel, "Field": Field, "Enum": Enum, "List": List,
          "Optional": Optional, "Literal": Literal, "dataclass": dataclass}
    classes = [st for st in fn.body if isinstance(st, ast.ClassDef)]
    for c in classes:
        exec(compile(ast.Module(body=[c], type_ignores=[]), FILE, "exec"), ns)
    raw_snaps, printed = snapshots(fn)
    outputs = []
    for s in raw_snaps:
        resp = json.loads(s)
        for ch in resp.get("choices", []):
            m = ch.get("message") or {}
            if isinstance(m.get("content"), str):
                outputs.append(m["content"])
            for tc in m.get("tool_calls") or []:
                outputs.append(tc["function"]["arguments"])
    stated = []
    for p in printed:
        for m in re.finditer(r"^\s*(parsed|parsed_arguments)=(.+?),?$", p, re.M):
            expr = re.sub(r"<(\w+\.\w+): [^>]*>", r"\1", m.group(2))
            try:
                ast.parse(expr, mode="eval")
                stated.append(eval(expr, dict(ns)))
            except Exception:
                continue
    for obj in stated:
        if obj is None:
            continue
        if isinstance(obj, dict):
            ta, schema = None, None
            value = obj
        else:
            ta = TypeAdapter(type(obj))
            schema = ta.json_schema()
            value = ta.dump_python(obj, mode="json")
        for text in outputs:
            try:
                data = json.loads(text)
                if ta is not None and ta.validate_json(text) != obj:
                    continue
            except Exception:
                continue
            if same(data, value):
                w.add(f"{FILE}::{fn.name}", text, value, schema)
w.write()
