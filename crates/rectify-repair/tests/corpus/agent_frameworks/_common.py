"""Shared helpers for the agentsuites extractors (no package code is imported or run).

Each <pkg>_extract.py reads one sdist's test files with `ast`, evaluates only literal data
(constants, containers, string concatenation, names bound to such data earlier in the same
function or class body), and writes <pkg>.jsonl next to this file.
"""
import ast
import json
import os
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
SDISTS = os.path.join(HERE, "sdists")


class NotLiteral(Exception):
    pass


def lit(node, env=None):
    """Evaluate a literal expression; names resolve through env (a dict of literal values)."""
    env = env or {}
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise NotLiteral(node.id)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        vals = [lit(e, env) for e in node.elts]
        return tuple(vals) if isinstance(node, ast.Tuple) else vals
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise NotLiteral("dict unpack")
        return {lit(k, env): lit(v, env) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = lit(node.operand, env)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = lit(node.left, env), lit(node.right, env)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
    raise NotLiteral(ast.dump(node)[:60])


def open_sdist(pkg):
    """Return (tarfile, top-level dir name) of the single sdist downloaded for pkg."""
    d = os.path.join(SDISTS, pkg)
    name = [f for f in os.listdir(d) if f.endswith(".tar.gz")][0]
    tf = tarfile.open(os.path.join(d, name))
    top = tf.getnames()[0].split("/")[0]
    return tf, top, name


def read_source(tf, top, rel):
    return tf.extractfile(f"{top}/{rel}").read().decode("utf-8")


def to_json_value(v):
    """Tuples become lists; the result must round-trip through JSON unchanged."""
    if isinstance(v, tuple):
        v = list(v)
    if isinstance(v, list):
        return [to_json_value(x) for x in v]
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise NotLiteral("non-string key")
        return {k: to_json_value(x) for k, x in v.items()}
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        raise NotLiteral("non-finite")
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise NotLiteral(type(v).__name__)


class Writer:
    def __init__(self, pkg):
        self.pkg = pkg
        self.cases = []
        self.seen = set()

    def add(self, source, text, expected, schema=None):
        if not isinstance(text, str):
            return False
        try:
            expected = to_json_value(expected)
        except NotLiteral:
            return False
        if text in self.seen:
            return False
        if schema is not None:
            import jsonschema
            jsonschema.validate(expected, schema)  # must hold, else a bug in the extractor
        self.seen.add(text)
        self.cases.append({"source": source, "input": text, "expected": expected, "schema": schema})
        return True

    def write(self):
        path = os.path.join(HERE, f"{self.pkg}.jsonl")
        with open(path, "w") as out:
            for i, c in enumerate(self.cases, 1):
                row = {"id": f"{self.pkg}-{i:04d}", "source": c["source"], "input": c["input"],
                       "expected": c["expected"], "schema": c["schema"], "measured_only": True}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        with_schema = sum(c["schema"] is not None for c in self.cases)
        print(f"{self.pkg}: {len(self.cases)} cases ({with_schema} with a schema) -> {path}")


def is_raises(withitem):
    """True for `with pytest.raises(...)` (calls inside expect a failure: skipped)."""
    e = withitem.context_expr
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute)
            and e.func.attr == "raises")


def call_name(node):
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def scan_function(fn, parsers, env=None):
    """Walk a test function's statements in order and yield (input, expected, extra) for
    `var = PARSER(x)` ... `assert var == y` (either side) and `assert PARSER(x) == y` /
    `assert PARSER(x) is True|False|None`. `extra` holds the positional args after the first.
    Calls inside `with pytest.raises` are ignored; other `with` bodies are walked."""
    env = dict(env or {})
    results = {}  # var -> (input, extra args)

    def parser_call(node):
        if call_name(node) in parsers and node.args:
            try:
                return lit(node.args[0], env), [ast.unparse(a) for a in node.args[1:]]
            except NotLiteral:
                return None
        return None

    def walk(stmts):
        for st in stmts:
            if isinstance(st, ast.With):
                if any(is_raises(w) for w in st.items):
                    continue
                yield from walk(st.body)
                continue
            if isinstance(st, ast.Assign) and len(st.targets) == 1:
                t = st.targets[0]
                pc = parser_call(st.value)
                if pc is not None and isinstance(t, ast.Name):
                    results[t.id] = pc
                    continue
                if isinstance(t, ast.Name):
                    results.pop(t.id, None)
                    try:
                        env[t.id] = lit(st.value, env)
                    except NotLiteral:
                        env.pop(t.id, None)
                continue
            if isinstance(st, ast.Assert) and isinstance(st.test, ast.Compare):
                c = st.test
                if len(c.ops) != 1:
                    continue
                left, op, right = c.left, c.ops[0], c.comparators[0]
                for a, b in ((left, right), (right, left)):
                    src = None
                    if isinstance(a, ast.Name) and a.id in results:
                        src = results[a.id]
                    else:
                        src = parser_call(a)
                    if src is None:
                        continue
                    try:
                        exp = lit(b, env)
                    except NotLiteral:
                        continue
                    if isinstance(op, ast.Eq) or (isinstance(op, ast.Is) and exp in (True, False, None)):
                        yield src[0], exp, src[1], st.lineno
                    break

    yield from walk(fn.body)


def parametrize_rows(fn, env=None):
    """Rows of a @pytest.mark.parametrize("a, b", [...]) decorator as dicts, when literal."""
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "parametrize":
            try:
                names = lit(d.args[0])
                names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
                rows = lit(d.args[1], env)
            except NotLiteral:
                continue
            out = []
            for r in rows:
                r = r if len(names) > 1 else (r,)
                out.append(dict(zip(names, r)))
            return out
    return None
