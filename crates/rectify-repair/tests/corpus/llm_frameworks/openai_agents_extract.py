#!/usr/bin/env python3
"""Writes openai_agents.jsonl: schema-guided parse cases from the tests of openai-agents 0.24.0
(PyPI, MIT licence). Used only as test data (measured only).

    pip install pydantic jsonschema typing_extensions
    mkdir -p sd && cd sd && pip download openai-agents==0.24.0 --no-deps --no-binary :all: -d . \
        && tar xzf openai_agents-0.24.0.tar.gz && cd ..
    python3 openai_agents_extract.py sd/openai_agents-0.24.0      # counts and skips on stderr

Nothing from the package is imported. tests/test_output_tool.py is read with `ast`: each
`validate_json(text)` call outside a `pytest.raises` block whose result the test states is a
case. The output type comes from `AgentOutputSchema(output_type=T)` / `Agent(output_type=T)`;
schema = T's JSON Schema (pydantic model or TypedDict defined in the test, executed alone; other
types through pydantic's TypeAdapter), wrapped as {"response": T} where the test asserts the
schema is wrapped (the key is the `_WRAPPER_DICT_KEY` constant of src/agents/agent_output.py,
read with `ast`). Text built as `Model(...).model_dump_json()` / `json.dumps(...)` of literals is
computed from the isolated model. Custom output schemas (whose result ignores the text) skipped.
"""
import ast
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, asserted_value, functions, lit, model_classes, parse_file  # noqa

import pydantic

ROOT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
REL = "tests/test_output_tool.py"
tree = parse_file(os.path.join(ROOT, REL))
models = model_classes(tree.body)
wrapper_key = [lit(n.value) for n in parse_file(os.path.join(ROOT, "src/agents/agent_output.py")).body
               if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "_WRAPPER_DICT_KEY"][0]
corpus = Corpus("openai_agents")


def text_of(node, env):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "model_dump_json" and isinstance(node.func.value, ast.Call):
        inner = node.func.value
        cls = models[ast.unparse(inner.func)]
        return cls(**{k.arg: lit(k.value, env) for k in inner.keywords}).model_dump_json()
    return lit(node, dict(env, **models))


for name, func in functions(tree).items():
    if not name.startswith("test_"):
        continue
    in_raises = {id(n) for w in ast.walk(func) if isinstance(w, ast.With)
                 and "raises" in ast.unparse(w.items[0].context_expr) for n in ast.walk(w)}
    calls = [n for n in ast.walk(func) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
             and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "validate_json"
             and id(n.value) not in in_raises]
    if not calls:
        continue
    types = [k.value for n in ast.walk(func) if isinstance(n, ast.Call)
             and ast.unparse(n.func) in ("AgentOutputSchema", "Agent") for k in n.keywords
             if k.arg == "output_type"]
    if len({ast.unparse(t) for t in types}) != 1 or ast.unparse(types[0]) not in models \
            and not ast.unparse(types[0]).startswith(("list[", "dict[")):
        corpus.skip("custom or several output types")
        continue
    tp_src = ast.unparse(types[0])
    tp = models.get(tp_src) or eval(tp_src, {"__builtins__": {}}, {"list": list, "dict": dict,
                                                                  "str": str, "int": int})
    schema = pydantic.TypeAdapter(tp).json_schema()
    wrapped = "assert output_schema._is_wrapped" in ast.unparse(func)
    if wrapped:
        schema = {"type": "object", "properties": {wrapper_key: schema}, "required": [wrapper_key]}
    env = {"_WRAPPER_DICT_KEY": wrapper_key}
    for st in func.body:
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
            try:
                env[st.targets[0].id] = text_of(st.value, env)
            except Exception:
                pass
    for call in calls:
        var = call.targets[0].id
        text = text_of(call.value.args[0], env)
        # the asserts on `var` after this call (the same name may be reused)
        later = ast.Module(body=[s for s in func.body if s.lineno > call.lineno and not (
            isinstance(s, ast.Assign) and s.lineno > call.lineno and var in ast.unparse(s.targets[0]))],
            type_ignores=[])
        nxt = [s.lineno for s in func.body if isinstance(s, ast.Assign) and s.lineno > call.lineno
               and ast.unparse(s.targets[0]) == var]
        if nxt:
            later.body = [s for s in later.body if s.lineno < nxt[0]]
        found, value = asserted_value(later, var, dict(env, **models))
        if not found:
            corpus.skip("no stated value")
            continue
        expected = {wrapper_key: value} if wrapped else value
        corpus.add(f"{REL}::{name}", text, expected, schema)

corpus.write(os.path.join(HERE, "openai_agents.jsonl"))
