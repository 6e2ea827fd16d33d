"""Helpers shared by the <pkg>_extract.py scripts (not a package's code: nothing from the
packages is imported). Test files are read with `ast`; only literal data is evaluated, with no
builtins. Pydantic model classes found in a test file may be executed alone (class definitions
with their field annotations only) to get `model_json_schema()`.
"""
import ast
import enum
import collections
import inspect
import json
import os
import sys
import typing

import jsonschema

SAFE_BUILTINS = {"__builtins__": {}}


class _Inspect:
    cleandoc = staticmethod(inspect.cleandoc)


class _Json:
    dumps = staticmethod(json.dumps)


def lit(node, env=None):
    """Evaluates a literal-data expression (strings, numbers, containers, names bound in env,
    json.dumps / inspect.cleandoc of literals) with no builtins."""
    g = dict(SAFE_BUILTINS)
    g.update({"inspect": _Inspect, "json": _Json, "True": True, "False": False, "None": None})
    return eval(compile(ast.Expression(node), "<data>", "eval"), g, dict(env or {}))


def parse_file(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


def functions(tree):
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(node.name, node)
    return out


def model_classes(nodes, extra_env=None):
    """Executes pydantic class definitions (bodies reduced to annotated fields, Field(...)
    defaults and docstrings) and returns {name: class}."""
    import pydantic
    from pydantic import BaseModel, Field
    env = {"BaseModel": BaseModel, "Field": Field, "typing": typing, "Optional": typing.Optional,
           "Union": typing.Union, "List": typing.List, "Dict": typing.Dict, "Any": typing.Any,
           "Literal": typing.Literal, "Annotated": typing.Annotated, "pydantic": pydantic}
    env.update(extra_env or {})
    out = {}
    for node in nodes:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [ast.unparse(b) for b in node.bases]
        if bases and all(b in ("Enum", "str", "enum.Enum", "StrEnum", "IntEnum", "int") for b in bases) \
                and all(isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
                        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                        for s in node.body):
            env.update({"Enum": enum.Enum, "StrEnum": enum.StrEnum, "IntEnum": enum.IntEnum,
                        "str": str, "int": int, "enum": enum})
            mod = ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))
            exec(compile(mod, "<enum>", "exec"), env)
            out[node.name] = env[node.name]
            continue
        if bases == ["TypedDict"] and all(isinstance(s, ast.AnnAssign) and s.value is None
                                          for s in node.body):
            import typing_extensions
            env["TypedDict"] = typing_extensions.TypedDict
            mod = ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))
            exec(compile(mod, "<typeddict>", "exec"), env)
            out[node.name] = env[node.name]
            continue
        if not any(b in ("BaseModel", "pydantic.BaseModel") for b in bases):
            continue
        body = [s for s in node.body if isinstance(s, ast.AnnAssign)
                or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        others = [s for s in node.body if s not in body]
        # a plain method that pydantic does not call (e.g. a prompt helper) may be dropped;
        # validators, serializers, config or computed fields change the type: not translated
        if any(not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
               or s.name.startswith("_") or s.name in ("model_post_init",)
               or any(re_validator(ast.unparse(d)) for d in s.decorator_list)
               for s in others):
            continue
        cls = ast.ClassDef(name=node.name, bases=node.bases, keywords=[], body=body or [ast.Pass()],
                           decorator_list=[])
        mod = ast.fix_missing_locations(ast.Module(body=[cls], type_ignores=[]))
        exec(compile(mod, "<model>", "exec"), env)
        out[node.name] = env[node.name]
    return out


def re_validator(deco):
    return any(w in deco for w in ("validator", "serializer", "computed_field", "property"))


class Corpus:
    def __init__(self, pkg):
        self.pkg = pkg
        self.cases = []
        self.inputs = set()
        self.skipped = collections.Counter()

    def skip(self, reason):
        self.skipped[reason] += 1

    def add(self, source, text, expected, schema, check_complete=True):
        if not isinstance(text, str):
            return self.skip("input not a string")
        if schema is not None:
            try:
                jsonschema.validate(expected, schema)
            except jsonschema.ValidationError:
                return self.skip("expected value does not validate against schema")
        if text in self.inputs:
            return self.skip("duplicate input")
        self.inputs.add(text)
        json.dumps(expected, allow_nan=False)
        if check_complete and schema is not None and not complete(expected, schema, schema):
            return self.skip("expected value leaves an optional field unstated")
        self.cases.append({"id": "", "source": source, "input": text, "expected": expected,
                           "schema": schema, "measured_only": True})

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            for i, c in enumerate(self.cases):
                c["id"] = f"{self.pkg}-{i:04d}"
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        ws = sum(c["schema"] is not None for c in self.cases)
        print(f"{self.pkg}: {len(self.cases)} cases ({ws} with schema, "
              f"{len(self.cases) - ws} without) -> {path}", file=sys.stderr)
        for r, n in sorted(self.skipped.items()):
            print(f"  skipped {n}: {r}", file=sys.stderr)


def _resolve(s, root):
    while isinstance(s, dict) and "$ref" in s:
        node = root
        for part in s["$ref"].lstrip("#/").split("/"):
            node = node[part]
        s = node
    return s


def complete(value, schema, root):
    """True when every object in value states every property its schema lists."""
    s = _resolve(schema, root)
    if not isinstance(s, dict):
        return True
    for key in ("anyOf", "oneOf"):
        if key in s:
            ok = [b for b in s[key] if jsonschema.Draft202012Validator(
                dict(_resolve(b, root), **({"$defs": root["$defs"]} if "$defs" in root else {}))
            ).is_valid(value)]
            return any(complete(value, b, root) for b in ok) if ok else True
    if isinstance(value, dict):
        props = s.get("properties", {})
        if set(props) - set(value):
            return False
        extra = s.get("additionalProperties")
        return all(complete(v, props[k], root) if k in props else
                   (complete(v, extra, root) if isinstance(extra, dict) else True)
                   for k, v in value.items())
    if isinstance(value, list) and isinstance(s.get("items"), dict):
        return all(complete(v, s["items"], root) for v in value)
    return True


def attr_path(node, var):
    """For `var.a[0].b` returns ["a", 0, "b"]; None when node is not rooted at var."""
    path = []
    while True:
        if isinstance(node, ast.Name):
            return list(reversed(path)) if node.id == var else None
        if isinstance(node, ast.Attribute):
            path.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            path.append(node.slice.value)
            node = node.value
        else:
            return None


def set_path(root, path, value):
    """Builds nested dicts/lists; returns the new root."""
    if not path:
        return value
    head = path[0]
    if isinstance(head, int):
        root = root if isinstance(root, list) else []
        while len(root) <= head:
            root.append(None)
    else:
        root = root if isinstance(root, dict) else {}
        root.setdefault(head, None)
    root[head] = set_path(root[head], path[1:], value)
    return root


def asserted_value(func, var, env=None):
    """The value stated for `var` by the equality asserts of func (`assert var.a == 1`,
    `assert var == {...}`, `self.assertEqual(var.a, 1)`). Returns (found, value)."""
    value, found = None, False
    for node in ast.walk(func):
        pairs = []
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) \
                and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq):
            pairs.append((node.test.left, node.test.comparators[0]))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "assertEqual" and len(node.args) == 2:
            pairs.append((node.args[0], node.args[1]))
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) \
                and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Is) \
                and isinstance(node.test.comparators[0], ast.Constant) \
                and node.test.comparators[0].value is None:
            pairs.append((node.test.left, node.test.comparators[0]))
        for left, right in pairs:
            path = attr_path(left, var)
            if path is None:
                continue
            try:
                v = lit(right, env)
            except Exception:
                continue
            if hasattr(v, "model_dump"):
                v = v.model_dump(mode="json")
            if isinstance(v, enum.Enum):
                v = v.value
            value = set_path(value, path, v)
            found = True
    return found, value
