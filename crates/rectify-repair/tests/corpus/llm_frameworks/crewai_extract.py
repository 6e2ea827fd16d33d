#!/usr/bin/env python3
"""Writes crewai.jsonl: schema-guided parse cases from the tests of crewai 1.15.30
(PyPI, MIT licence). Used only as test data (measured only).

    pip install pydantic jsonschema pyyaml
    mkdir -p sd && cd sd && pip download crewai==1.15.30 --no-deps --no-binary :all: -d . \
        && tar xzf crewai-1.15.30.tar.gz && cd ..
    python3 crewai_extract.py sd/crewai-1.15.30      # counts and skips on stderr

Nothing from crewai is imported. tests/utilities/test_converter.py is read with `ast`. A case
is a test that turns LLM text into a pydantic model and states the resulting fields:
  * `convert_to_model(text, Model, ...)`, `validate_model(text, Model, ...)`,
    `handle_partial_json(text, Model, ...)` with a literal text;
  * `Converter(model=Model, ...)` whose mocked `llm.call.return_value` is a literal text, or,
    for `@pytest.mark.vcr` tests, whose recorded cassette (tests/cassettes/utilities/<test>.yaml,
    read as data) holds exactly one model answer.
Schema = Model.model_json_schema() (models executed alone, class definitions only). Expected =
the value the test's asserts state on `output`, kept only when complete and valid. Tests that
expect an error, patch the parser, or retry are skipped.
"""
import ast
import json
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, asserted_value, functions, lit, model_classes, parse_file  # noqa

ROOT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
REL = "tests/utilities/test_converter.py"
tree = parse_file(os.path.join(ROOT, REL))
module_models = model_classes(tree.body)
corpus = Corpus("crewai")
DIRECT = ("convert_to_model", "validate_model", "handle_partial_json")


def cassette_answer(test):
    path = os.path.join(ROOT, "tests/cassettes/utilities", test + ".yaml")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        inter = yaml.safe_load(f)["interactions"]
    if len(inter) != 1:
        return None
    body = json.loads(inter[0]["response"]["body"]["string"])
    choices = body.get("choices") or []
    if len(choices) != 1 or not isinstance(choices[0]["message"].get("content"), str):
        return None
    return choices[0]["message"]["content"]


for name, func in functions(tree).items():
    if not name.startswith("test_"):
        continue
    src = ast.unparse(func)
    calls = [n for n in ast.walk(func) if isinstance(n, ast.Call)]
    direct = [c for c in calls if ast.unparse(c.func) in DIRECT]
    conv = [c for c in calls if ast.unparse(c.func) == "Converter"]
    if not direct and not conv:
        continue
    if "pytest.raises" in src or "patch(" in src or "side_effect" in src:
        corpus.skip("test expects an error, patches the parser or retries")
        continue
    models = dict(module_models)
    models.update(model_classes(func.body, models))
    env = dict(models)
    for st in func.body:
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], (ast.Name, ast.Attribute)):
            try:
                env[ast.unparse(st.targets[0])] = lit(st.value, env)
            except Exception:
                pass
    if direct:
        c = direct[0]
        text = env.get(ast.unparse(c.args[0])) if isinstance(c.args[0], ast.Name) else None
        model = ast.unparse(c.args[1])
    else:
        kw = {k.arg: k.value for k in conv[0].keywords}
        model = ast.unparse(kw["model"])
        text = env.get("llm.call.return_value")
        if text is None and any(ast.unparse(d).startswith("pytest.mark.vcr") for d in func.decorator_list):
            text = cassette_answer(name)
    if not isinstance(text, str) or model not in models:
        corpus.skip("no literal text or no plain model")
        continue
    found, expected = asserted_value(func, "output", env)
    if not found:
        corpus.skip("no stated value")
        continue
    corpus.add(f"{REL}::{name}", text, expected, models[model].model_json_schema())

corpus.write(os.path.join(HERE, "crewai.jsonl"))
