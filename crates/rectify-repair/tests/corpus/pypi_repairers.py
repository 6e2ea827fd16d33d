#!/usr/bin/env python3
"""Writes pypi_repairers.jsonl: repair cases taken from the unit tests of three lenient-JSON /
JSON-repair packages published on PyPI: json-repair-engine 0.1.7 (MIT), jsonfixer 0.2.2
(module half_json, MIT) and dirtyjson 1.0.8 (MIT or AFL-2.1). Used only as test data.
Regenerate with (Python 3.10+, network for `pip download`), from crates/rectify-repair/tests/corpus:

    mkdir /tmp/sd && (cd /tmp/sd && pip download --no-deps --no-binary :all: \
        json-repair-engine==0.1.7 jsonfixer==0.2.2 dirtyjson==1.0.8 && \
        for f in *.tar.gz; do tar xzf "$f"; done)
    python3 pypi_repairers.py /tmp/sd > pypi_repairers.jsonl   # skip counts on stderr; -v lists them

Nothing from the packages is imported or run. The test files (and dirtyjson's doctest file
index.rst) are read with `ast` and walked statement by statement: literal assignments are
evaluated with no builtins (only `range`, `set`, `object`, `eval` as `ast.literal_eval`, and
`sys.maxunicode`), loops over literal tuples and `pytest.mark.parametrize` lists are unrolled,
and each call of the package's parser (`loads(...)`, `JSONFixer(...).fix(...)`,
`dirtyjson.loads(...)`) becomes a case whose expected value is what the asserts that follow
state about its result. jsonfixer states the repaired text; it is parsed here with
`json.loads(strict=False)`. Tests that can't be read this way are listed in SKIP_TESTS /
SKIP_LOOPS with the reason; any other unknown construct stops the script.
"""
import ast
import collections
import doctest
import json
import os
import sys
import types

ROOT = sys.argv[1]
VERBOSE = sys.argv[2:] == ["-v"]  # also list each skipped case on stderr
ENGINE = "json_repair_engine-0.1.7"
FIXER = "jsonfixer-0.2.2"
DIRTY = "dirtyjson-1.0.8"
SAFE = {"__builtins__": {}, "range": range, "set": set, "object": object,
        "eval": ast.literal_eval,
        "sys": types.SimpleNamespace(maxunicode=0x10FFFF)}  # as on every Python 3

# Tests that state no expected value for a text input, with the reason and the number of
# parser calls they make (or the number of checks, for loops over generated data).
SKIP_TESTS = {
    (DIRTY, "dirtyjson/tests/test_decode.py", "test_keys_reuse_str"):
        ("asserts only that equal keys are shared objects (no expected value)", 1),
    (DIRTY, "dirtyjson/tests/test_decode.py", "test_keys_reuse_unicode"):
        ("asserts only that equal keys are shared objects (no expected value)", 1),
    (DIRTY, "dirtyjson/tests/test_errors.py", "test_scan_error"): ("expects an exception", 2),
    (DIRTY, "dirtyjson/tests/test_fail.py", "test_failures"): ("expects an exception", "JSONDOCS"),
    (DIRTY, "dirtyjson/tests/test_fail.py", "test_array_decoder_issue46"):
        ("expects an exception", 2),
    (DIRTY, "dirtyjson/tests/test_fail.py", "test_truncated_input"):
        ("expects an exception", "test_cases"),
    (DIRTY, "dirtyjson/tests/test_float.py", "test_degenerates_allow"):
        ("expected value is not JSON (NaN / Infinity)", 3),
    (DIRTY, "dirtyjson/tests/test_float.py", "test_floats"):
        ("input computed at run time by json.dumps (a valid JSON number)", 10),
    (DIRTY, "dirtyjson/tests/test_float.py", "test_ints"):
        ("input computed at run time by json.dumps (a valid JSON number)", 8),
    (DIRTY, "dirtyjson/tests/test_pass1.py", "test_parse"):
        ("round trip only: states no expected value", 2),
    (DIRTY, "dirtyjson/tests/test_pass2.py", "test_parse"):
        ("round trip only: states no expected value", 2),
    (DIRTY, "dirtyjson/tests/test_pass3.py", "test_parse"):
        ("round trip only: states no expected value", 2),
    (DIRTY, "dirtyjson/tests/test_unicode.py", "test_unicode_decode"):
        ("loop over 55295 generated \\uXXXX escapes (valid JSON)", 1),
    (DIRTY, "dirtyjson/tests/test_unicode.py", "test_unicode_preservation"):
        ("asserts only the type of the result", 3),
    (FIXER, "tests/test_miss.py", "test_range_tail"):
        ("asserts only success on 1000 random prefixes of a document (no expected value)", 1),
    (FIXER, "tests/test_miss.py", "test_range_head"):
        ("asserts only success on 1000 random suffixes of a document (no expected value)", 1),
}
# Loops over generated inputs inside an otherwise readable test: the loop is skipped.
SKIP_LOOPS = {
    (FIXER, "tests/test_js.py", "test_litte_key"):
        ("asserts only success on every prefix of an input (no expected value)", 1),
}
# Parser options a case may carry (noted in its source); any other option skips the case.
KEPT_OPTIONS = {FIXER: {"js_style", "strict"}, DIRTY: {"search_for_first_object"}}

skipped = collections.Counter()
cases = []


def skip(reason, n=1, source=None):
    skipped[reason] += n
    if VERBOSE:
        print(f"  skip ({reason}): {source or n}", file=sys.stderr)


def ev(node, env):
    return eval(compile(ast.Expression(node), "<data>", "eval"), dict(SAFE), env)


class Case:
    def __init__(self, pkg, source, text, options):
        self.pkg, self.source, self.input, self.options = pkg, source, text, options
        self.full, self.parts, self.texts = [], [], []
        self.ok = None
        self.throws = False
        self.unchecked = False
        cases.append(self)


def _is_parse(pkg, func):
    """Whether `func` (a call's callee) is the package's parser."""
    if pkg == ENGINE:
        return isinstance(func, ast.Name) and func.id == "loads"
    if pkg == FIXER:
        return isinstance(func, ast.Attribute) and func.attr == "fix"
    return (isinstance(func, ast.Attribute) and func.attr == "loads"
            and isinstance(func.value, ast.Name) and func.value.id in ("dirtyjson", "self"))


class Walker:
    """Walks one test's statements, turning parser calls and asserts into cases."""

    def __init__(self, pkg, rel, test, env, source):
        self.pkg, self.rel, self.test = pkg, rel, test
        self.env = dict(env)
        self.roles = {}  # name -> (role, case)
        self.source = source
        self.in_raises = False

    def options(self, call):
        opts = {}
        inner = call.func.value if isinstance(call.func, ast.Attribute) else None
        calls = [call] + ([inner] if isinstance(inner, ast.Call) else [])  # JSONFixer(js_style=True)
        for c in calls:
            for kw in c.keywords:
                try:
                    opts[kw.arg] = ev(kw.value, self.env)
                except Exception:
                    opts[kw.arg] = ast.unparse(kw.value)
        return opts

    def parse_call(self, call):
        case = Case(self.pkg, self.source, ev(call.args[0], self.env), self.options(call))
        case.throws = self.in_raises
        return case

    def ref(self, node):
        """(role, case, path) when `node` is a parser result, a part of one, or a parser call."""
        path = []
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            path.insert(0, ev(node.slice, self.env) if isinstance(node, ast.Subscript) else node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.roles:
            role, case = self.roles[node.id]
            return role, case, path
        if isinstance(node, ast.Call) and _is_parse(self.pkg, node.func) and not path:
            return ("text" if self.pkg == FIXER else "value"), self.parse_call(node), []
        return None

    def equal(self, a, b):
        for x, y in ((a, b), (b, a)):
            r = self.ref(x)
            if r is None:
                continue
            role, case, path = r
            if role in ("report", "ok", "result"):
                return
            try:
                value = ev(y, self.env)
            except NameError:
                if set(case.options) <= KEPT_OPTIONS.get(case.pkg, set()):
                    raise
                value = None  # `Decimal(s)` for a parse_float case: skipped for its option
            if role == "text":
                case.texts.append(value)
            elif path:
                case.parts.append((path, value))
            else:
                case.full.append(value)
            return
        # neither side is a parser result (a report field, a fix record): not about the value

    def truth(self, node, value):
        r = self.ref(node)
        if r and (r[0] == "ok" or (r[0] == "result" and r[2] == ["success"])):
            r[1].ok = value

    def assign(self, targets, value):
        if isinstance(value, ast.Call) and _is_parse(self.pkg, value.func):
            case = self.parse_call(value)
            target = targets[0]
            if isinstance(target, ast.Tuple):
                names = [t.id for t in target.elts]
                roles = {ENGINE: ["value", "report"], FIXER: ["ok", "text", None]}[self.pkg]
                for name, role in zip(names, roles):
                    if role:
                        self.roles[name] = (role, case)
            else:
                self.roles[target.id] = ({FIXER: "result"}.get(self.pkg, "value"), case)
            return
        if any(isinstance(n, ast.Call) and _is_parse(self.pkg, n.func) for n in ast.walk(value)):
            raise ValueError(f"parser call inside an expression: {ast.unparse(value)}")
        for target in targets:
            if isinstance(target, ast.Name):
                self.roles.pop(target.id, None)
                try:
                    self.env[target.id] = ev(value, self.env)
                except Exception:  # not literal data (a fixer object, a report field, ...)
                    self.env.pop(target.id, None)

    def run(self, body):
        for st in body:
            self.stmt(st)

    def stmt(self, st):
        if isinstance(st, ast.Assign):
            self.assign(st.targets, st.value)
        elif isinstance(st, ast.Assert):
            self.assertion(st.test)
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            self.call(st.value)
        elif isinstance(st, ast.If):
            if ev(st.test, self.env):
                self.run(st.body)
            else:
                for node in ast.walk(ast.Module(st.body, [])):  # a value check not made
                    if isinstance(node, ast.Name) and node.id in self.roles:
                        self.roles[node.id][1].unchecked = True
                self.run(st.orelse)
        elif isinstance(st, ast.For):
            key = (self.pkg, self.rel, self.test)
            if key in SKIP_LOOPS:
                skip(*SKIP_LOOPS[key], self.source)
                return
            for item in ev(st.iter, self.env):
                self.bind(st.target, item)
                self.run(st.body)
        elif isinstance(st, ast.With) and "raises" in ast.unparse(st.items[0].context_expr):
            self.in_raises = True
            self.run(st.body)
            self.in_raises = False
        else:
            raise ValueError(f"unknown statement in {self.test}: {ast.unparse(st)}")

    def bind(self, target, item):
        if isinstance(target, ast.Name):
            self.env[target.id] = item
        else:
            for t, v in zip(target.elts, item, strict=True):
                self.bind(t, v)

    def assertion(self, test):
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            if isinstance(test.ops[0], (ast.Eq, ast.Is)):
                self.equal(test.left, test.comparators[0])
            # `is not`, `>=`, `in`: about the report
        elif isinstance(test, ast.Call) and getattr(test.func, "id", "") == "_data_equal":
            self.equal(test.args[0], test.args[1])
        elif isinstance(test, ast.Call) and getattr(test.func, "id", "") == "isinstance":
            pass  # a report field's type
        elif self.ref(test) and self.ref(test)[0] == "report":
            pass  # `assert report.valid`
        else:
            raise ValueError(f"unknown assert in {self.test}: {ast.unparse(test)}")

    def call(self, call):
        name = getattr(call.func, "attr", getattr(call.func, "id", ""))
        if name == "assertEqual":
            self.equal(call.args[0], call.args[1])
        elif name in ("assertTrue", "assertFalse"):
            self.truth(call.args[0], name == "assertTrue")
        elif name == "assertRaises" and _is_parse(self.pkg, call.args[1]):
            case = Case(self.pkg, self.source, ev(call.args[2], self.env), {})
            case.throws = True
        elif _is_parse(self.pkg, call.func) and self.in_raises:
            self.parse_call(call)
        else:
            raise ValueError(f"unknown call in {self.test}: {ast.unparse(call)}")


def test_file(pkg, rel):
    path = os.path.join(ROOT, pkg, rel)
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    module_env = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                module_env[node.targets[0].id] = ev(node.value, module_env)
            except Exception:  # a helper or an import
                pass
    funcs = [(None, n) for n in tree.body if isinstance(n, ast.FunctionDef)]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        class_env = {}
        for node in cls.body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                class_env[node.targets[0].id] = ev(node.value, module_env)
        funcs += [(class_env, n) for n in cls.body if isinstance(n, ast.FunctionDef)]
    for class_env, fn in funcs:
        if not fn.name.startswith("test_"):
            continue
        key = (pkg, rel, fn.name)
        if key in SKIP_TESTS:
            reason, n = SKIP_TESTS[key]
            if isinstance(n, str):  # the length of a literal list in the test
                local = dict(module_env)
                for node in ast.walk(fn):
                    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == n:
                        local[n] = ev(node.value, local)
                n = len(local[n])
            skip(reason, n, f"{pkg} {rel}::{fn.name}")
            continue
        env = dict(module_env)
        if class_env is not None:
            env["self"] = type("Self", (), class_env)
        params = _parametrize(fn, env)
        for label, binding in params:
            src = f"{pkg} {rel}::{fn.name}" + (f"[{label}]" if label is not None else "")
            w = Walker(pkg, rel, fn.name, {**env, **binding}, src)
            w.run(fn.body)


def _parametrize(fn, env):
    for deco in fn.decorator_list:
        if isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == "parametrize":
            names = [n.strip() for n in ev(deco.args[0], env).split(",")]
            out = []
            for i, values in enumerate(ev(deco.args[1], env)):
                binding = dict(zip(names, values, strict=True))
                out.append((binding.get("label", i), binding))
            return out
    return [(None, {})]


def doctest_file(pkg, rel):
    """The examples of a doctest file, as one test: `expr == obj` with output True is an assert."""
    with open(os.path.join(ROOT, pkg, rel), encoding="utf-8") as f:
        text = f.read()
    examples = doctest.DocTestParser().get_examples(text)
    w = Walker(pkg, rel, rel, {}, "")
    for ex in examples:
        st = ast.parse(ex.source).body[0]
        w.source = f"{pkg} {rel} (doctest, line {ex.lineno + 1})"
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(st, ast.Expr) and ex.want.strip() == "True":
            test = st.value
            if "attributes" in ast.unparse(test):
                continue  # line/column positions of the value just parsed
            if "dirtyjson.load(" in ast.unparse(test):
                skip("reads a stream, asserts one element (its text is valid JSON)", 1, w.source)
                continue
            if "parse_float" in ast.unparse(test):
                w.assertion(test)  # becomes a case with an option, skipped below
                continue
            w.assertion(test)
        elif isinstance(st, ast.Assign):
            w.assign(st.targets, st.value)
        else:
            raise ValueError(f"unknown doctest example: {ex.source}")


def engine():
    for rel in sorted(os.listdir(os.path.join(ROOT, ENGINE, "tests"))):
        if rel.startswith("test_") and rel.endswith(".py"):
            test_file(ENGINE, "tests/" + rel)


def fixer():
    for rel in sorted(os.listdir(os.path.join(ROOT, FIXER, "tests"))):
        if rel.startswith("test_") and rel.endswith(".py"):
            test_file(FIXER, "tests/" + rel)


def dirty():
    for rel in sorted(os.listdir(os.path.join(ROOT, DIRTY, "dirtyjson/tests"))):
        if rel.startswith("test_") and rel.endswith(".py"):
            test_file(DIRTY, "dirtyjson/tests/" + rel)
    # dirtyjson/tests/__init__.py adds the doctests of index.rst (the examples in
    # dirtyjson/__init__.py sit in a string that is not the module docstring, so never run).
    doctest_file(DIRTY, "index.rst")


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise KeyError("duplicate key")
    return dict(pairs)


def expected_of(case):
    """(expected value, None) or (None, skip reason)."""
    if case.throws:
        return None, "expects an exception"
    if not isinstance(case.input, str):
        return None, f"input is not text ({type(case.input).__name__})"
    extra = set(case.options) - KEPT_OPTIONS.get(case.pkg, set())
    if extra:
        return None, f"needs an option the repair has no counterpart for ({', '.join(sorted(extra))})"
    if case.unchecked:
        return None, "the test skips its value check for it (NaN, Infinity, an exponent that overflows)"
    if case.ok is False:
        return None, "expects no repair (strict mode: a raw newline inside a string)"
    if case.texts:
        if len(case.texts) > 1 or case.full:
            raise ValueError(f"several expectations: {case.source}")
        try:
            return json.loads(case.texts[0], strict=False, object_pairs_hook=_no_duplicate_keys), None
        except KeyError:
            return None, "expected text repeats a key (its value is ambiguous)"
    if case.full:
        if len(case.full) > 1:
            raise ValueError(f"several expectations: {case.source}")
        return case.full[0], None
    if case.parts:
        return None, "partial"
    return None, "asserts only the repair report or success (no expected value)"


def main():
    engine()
    fixer()
    dirty()
    full = {}
    for case in cases:
        value, why = expected_of(case)
        if why is None:
            full.setdefault(case.input, value)
    seen = set()
    n = 0
    for case in cases:
        value, why = expected_of(case)
        if why == "partial":
            if case.input not in full:
                skip("asserts only some fields of the value", source=case.source)
                continue
            for path, v in case.parts:
                got = full[case.input]
                for k in path:
                    got = got[k]
                if got != v or type(got) is not type(v):
                    raise ValueError(f"partial assert disagrees: {case.source}")
            skip("duplicate input", source=case.source)
            continue
        if why:
            skip(why, source=case.source)
            continue
        json.dumps(value, allow_nan=False)
        if case.input in seen:
            if json.dumps(value) != json.dumps(full[case.input]):
                raise ValueError(f"duplicate input with another expected value: {case.source}")
            skip("duplicate input", source=case.source)
            continue
        seen.add(case.input)
        source = case.source
        if case.options:
            source += " (options: " + ", ".join(f"{k}={v!r}" for k, v in case.options.items()) + ")"
        line = {"id": f"pypi_repairers-{n:04d}", "source": source, "input": case.input,
                "expected": value, "measured_only": n % 4 == 3}
        print(json.dumps(line, ensure_ascii=False))
        n += 1
    per_pkg = collections.Counter(c.pkg for c in cases)
    print(f"{n} cases, {n // 4} measured only; parser calls per package: {dict(per_pkg)}",
          file=sys.stderr)
    for reason, count in sorted(skipped.items()):
        print(f"skipped {count}: {reason}", file=sys.stderr)


main()
