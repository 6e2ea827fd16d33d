#!/usr/bin/env python3
"""Writes mirascope.jsonl: schema-guided repair cases from the tests of mirascope 2.8.2
(PyPI, MIT licence). Used only as test data (measured only).

    pip install pydantic jsonschema
    mkdir -p sd && cd sd && pip download mirascope==2.8.2 --no-deps --no-binary :all: -d . \
        && tar xzf mirascope-2.8.2.tar.gz && cd ..
    python3 mirascope_extract.py sd/mirascope-2.8.2      # counts and skips on stderr

Nothing from mirascope is imported. Sources:
  * tests/llm/responses/test_utils.py: `extract_serialized_json(text)` cases; the extracted text
    the test states, parsed, is the expected value (no schema; skipped where it is not JSON).
  * tests/llm/responses/test_response.py: `response.parse()` cases: input = the `llm.Text`
    parts joined by "\n" (Response.text()), schema = the format type's JSON Schema (a pydantic
    model's `model_json_schema()`; a primitive type is wrapped as {"output": T} as mirascope
    does), expected = the value the asserts state (skipped unless it is complete).
  * tests/e2e/{output,input}/snapshots/<test>/: recorded model answers (the last
    AssistantMessage's Text parts, joined by "\n") of the structured-output e2e tests whose
    asserts state the whole value (test_structured_output, ..._with_tools,
    ..._with_formatting_instructions).
"""
import ast
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, asserted_value, functions, lit, model_classes, parse_file  # noqa

import pydantic

ROOT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
corpus = Corpus("mirascope")


def rel(p):
    return os.path.relpath(p, ROOT)


def has_raises(func):
    return any(isinstance(n, ast.With) and "raises" in ast.unparse(n.items[0].context_expr)
               for n in ast.walk(func))


# --- extract_serialized_json ---------------------------------------------------------------
path = os.path.join(ROOT, "tests/llm/responses/test_utils.py")
for name, func in functions(parse_file(path)).items():
    if not name.startswith("test_") or has_raises(func):
        if name.startswith("test_"):
            corpus.skip("test expects an error")
        continue
    calls = [n for n in ast.walk(func) if isinstance(n, ast.Call)
             and ast.unparse(n.func) == "extract_serialized_json"]
    if not calls:
        corpus.skip("not an extract_serialized_json test")
        continue
    env = {}
    for st in func.body:
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
            try:
                env[st.targets[0].id] = lit(st.value, env)
            except Exception:
                pass
    text = env.get(ast.unparse(calls[0].args[0]))
    found, result = asserted_value(func, "result", env)
    if not found or not isinstance(result, str):
        corpus.skip("no stated result")
        continue
    try:
        expected = json.loads(result)
    except ValueError:
        corpus.skip("stated extraction is not JSON")
        continue
    corpus.add(f"{rel(path)}::{name}", text, expected, None)


# --- Response.parse() -------------------------------------------------------------------------
def wrapper_schema(tp):
    return pydantic.create_model("Wrapper", output=(tp, ...)).model_json_schema()


path = os.path.join(ROOT, "tests/llm/responses/test_response.py")
tree = parse_file(path)
for name, func in functions(tree).items():
    parse_calls = [n for n in ast.walk(func) if isinstance(n, ast.Assign)
                   and isinstance(n.value, ast.Call) and ast.unparse(n.value.func) == "response.parse"]
    if not name.startswith("test_") or not parse_calls:
        continue
    if has_raises(func):
        corpus.skip("test expects an error")
        continue
    models = model_classes(func.body)
    env = dict(models)
    for st in func.body:
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
            try:
                env[st.targets[0].id] = lit(st.value, env)
            except Exception:
                pass
    texts = [lit(k.value, env) for n in ast.walk(func) if isinstance(n, ast.Call)
             and ast.unparse(n.func) == "llm.Text" for k in n.keywords if k.arg == "text"]
    fmt = [n for n in ast.walk(func) if isinstance(n, ast.Call) and ast.unparse(n.func) == "llm.format"]
    if not fmt or not texts:
        corpus.skip("no format type or no text")
        continue
    try:
        tp = eval(ast.unparse(fmt[0].args[0]), {"__builtins__": {}},
                  dict(models, str=str, int=int, float=float, bool=bool, list=list, dict=dict))
    except Exception:
        corpus.skip("format is not a type (output parser)")
        continue
    var = parse_calls[0].targets[0].id
    found, value = asserted_value(func, var, env)
    if not found:
        corpus.skip("no stated value")
        continue
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        schema, expected = tp.model_json_schema(), value
    else:
        schema, expected = wrapper_schema(tp), {"output": value}
    corpus.add(f"{rel(path)}::{name}", "\n".join(texts), expected, schema)


# --- e2e recorded answers ---------------------------------------------------------------------
E2E = [("output", "test_structured_output", "Book"),
       ("output", "test_structured_output_with_tools", "BookSummary"),
       ("input", "test_structured_output_with_formatting_instructions", "Book")]
for side, test, model in E2E:
    tpath = os.path.join(ROOT, "tests/e2e", side, test + ".py")
    ttree = parse_file(tpath)
    models = model_classes(ttree.body)
    schema = models[model].model_json_schema()
    values = []
    for fname, func in functions(ttree).items():
        if fname.startswith("test_"):
            ret = [n.targets[0].id for n in ast.walk(func) if isinstance(n, ast.Assign)
                   and isinstance(n.value, ast.Call) and ast.unparse(n.value.func).endswith(".parse")]
            if ret:
                values.append(asserted_value(func, ret[0])[1])
    if not values or any(v != values[0] for v in values):
        corpus.skip("e2e test without one stated value")
        continue
    expected = values[0]
    for snap in sorted(glob.glob(os.path.join(ROOT, "tests/e2e", side, "snapshots", test, "*", "*.py"))):
        for node in parse_file(snap).body:
            if not isinstance(node, ast.Assign):
                continue
            ams = [n for n in ast.walk(node.value) if isinstance(n, ast.Call)
                   and ast.unparse(n.func) == "AssistantMessage"]
            if not ams:
                corpus.skip("e2e snapshot without an answer (error case)")
                continue
            content = [k.value for k in ams[-1].keywords if k.arg == "content"][0]
            parts = content.elts if isinstance(content, ast.List) else [content]
            if not all(isinstance(p, ast.Call) and ast.unparse(p.func) == "Text" for p in parts):
                corpus.skip("e2e answer with non-text parts")
                continue
            text = "\n".join(lit(k.value) for p in parts for k in p.keywords if k.arg == "text")
            corpus.add(f"{rel(snap)}::{node.targets[0].id}", text, expected, schema)

corpus.write(os.path.join(HERE, "mirascope.jsonl"))
