#!/usr/bin/env python3
"""Writes magentic.jsonl: schema-guided parse cases from the tests of magentic 0.41.1
(PyPI, MIT licence). Used only as test data (measured only).

    pip install pydantic jsonschema
    mkdir -p sd && cd sd && pip download magentic==0.41.1 --no-deps --no-binary :all: -d . \
        && tar xzf magentic-0.41.1.tar.gz && cd ..
    python3 magentic_extract.py sd/magentic-0.41.1      # counts and skips on stderr

Nothing from magentic is imported. tests/test_function_schema.py is read with `ast`: each
`*_args_test_cases` list gives (type or function, args_str the model wrote, parsed value), and
the parametrize list of the matching `test_*_function_schema` test states the JSON Schema
(`parameters`) sent to the model for that type or function. Expected value = the parsed
value as the JSON the model writes: {"value": v} for Any/Iterable schemas (magentic wraps
non-object types that way), the dict for Dict schemas, the bound arguments of a
`FunctionCall(...)` for function schemas (pydantic instances written as their field dicts).
Cases whose schema the test does not state are derived with pydantic's TypeAdapter only for
plain dict types; others are skipped.
"""
import ast
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, functions, lit, parse_file  # noqa

import pydantic

ROOT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
REL = "tests/test_function_schema.py"
tree = parse_file(os.path.join(ROOT, REL))
funcs = functions(tree)
corpus = Corpus("magentic")

# module-level function signatures (for binding FunctionCall arguments)
sigs = {n.name: n.args for n in tree.body if isinstance(n, ast.FunctionDef)}
# module-level pydantic models with plain fields: constructor calls become dicts
model_names = {n.name for n in tree.body if isinstance(n, ast.ClassDef)
               and any(ast.unparse(b) == "BaseModel" for b in n.bases)}


def value(node):
    """Literal value; `Model(k=v, ...)` of a test model becomes {k: v}; OrderedDict({..}) a dict."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in model_names and not node.args:
            return {k.arg: value(k.value) for k in node.keywords}
        if node.func.id == "OrderedDict" and len(node.args) == 1:
            return value(node.args[0])
    if isinstance(node, ast.Dict):
        return {lit(k): value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.List):
        return [value(e) for e in node.elts]
    return lit(node)


def stated_schemas(test_name):
    """{unparsed type/function: parameters schema} from a test's parametrize list."""
    out = {}
    for deco in funcs[test_name].decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func) == "pytest.mark.parametrize":
            for tup in deco.args[1].elts:
                try:
                    out[ast.unparse(tup.elts[0])] = lit(tup.elts[1])["parameters"]
                except Exception:
                    pass
    return out


def module_list(name):
    for n in tree.body:
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == name:
            return n.value.elts
    raise KeyError(name)


def bind(fname, call):
    """FunctionCall(fn, *args, **kw) -> the JSON object of arguments."""
    a = sigs[fname]
    names = [p.arg for p in a.args]
    out = {}
    pos = [value(x) for x in call.args[1:]]
    for n, v in zip(names, pos):
        out[n] = v
    if len(pos) > len(names):
        if not a.vararg:
            raise ValueError("too many positional arguments")
        out[a.vararg.arg] = pos[len(names):]
    extra = {}
    for k in call.keywords:
        if k.arg in names:
            out[k.arg] = value(k.value)
        else:
            extra[k.arg] = value(k.value)
    if extra:
        if not a.kwarg:
            raise ValueError("unknown keyword")
        out[a.kwarg.arg] = extra
    return out


def typeadapter_schema(tp_src):
    if not tp_src.startswith("dict["):
        return None
    tp = eval(tp_src, {"__builtins__": {}}, {"dict": dict, "str": str, "int": int})
    return pydantic.TypeAdapter(tp).json_schema()


GROUPS = [("any_function_schema_args_test_cases", "test_any_function_schema", "wrap"),
          ("iterable_function_schema_args_test_cases", "test_iterable_function_schema", "wrap"),
          ("async_iterable_function_schema_args_test_cases",
           "test_async_iterable_function_schema", "wrap"),
          ("dict_function_schema_args_test_cases", "test_dict_function_schema", "dict")]
for listname, schema_test, kind in GROUPS:
    schemas = stated_schemas(schema_test)
    for i, tup in enumerate(module_list(listname)):
        tp_src = ast.unparse(tup.elts[0])
        schema = schemas.get(tp_src)
        if schema is None and kind == "dict":
            schema = typeadapter_schema(tp_src)
        if schema is None:
            corpus.skip("schema for the type not stated by the test")
            continue
        text, v = lit(tup.elts[1]), value(tup.elts[2])
        expected = {"value": v} if kind == "wrap" else v
        corpus.add(f"{REL}::{listname}[{i}]", text, expected, schema)

# BaseModel function schema: the `User` model (name: str, age: int)
user_schema = {"properties": {"name": {"title": "Name", "type": "string"},
                              "age": {"title": "Age", "type": "integer"}},
               "required": ["name", "age"], "title": "User", "type": "object"}
for tname in ("test_base_model_function_schema_parse_args",
              "test_base_model_function_schema_generic_model"):
    for n in ast.walk(funcs[tname]):
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Call) \
                and ast.unparse(n.left.func) == "function_schema.parse_args":
            corpus.add(f"{REL}::{tname}", lit(n.left.args[0]), value(n.comparators[0]), user_schema)

# FunctionCall function schema
schemas = stated_schemas("test_function_call_function_schema")
cases = list(module_list("function_call_function_schema_args_test_cases"))
for deco in funcs["test_function_call_function_schema_parse_args"].decorator_list:
    if isinstance(deco, ast.Call):
        cases += [e for e in deco.args[1].elts if isinstance(e, ast.Tuple)]
for i, tup in enumerate(cases):
    fname = ast.unparse(tup.elts[0])
    if fname not in schemas:
        corpus.skip("schema for the function not stated by the test")
        continue
    corpus.add(f"{REL}::test_function_call_function_schema_parse_args[{i}]", lit(tup.elts[1]),
               bind(fname, tup.elts[2]), schemas[fname], check_complete=False)

corpus.write(os.path.join(HERE, "magentic.jsonl"))
