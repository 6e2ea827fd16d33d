"""Extract cases from the PyPI package outputguard 2.1.2 (sdist tests/*.py, not tests/test_strategies/).
Run: pip download outputguard==2.1.2 --no-deps --no-binary :all: -d /tmp/pysd && tar xzf ... ;
     python3 outputguard_extract.py [/tmp/pysd/outputguard-2.1.2]
Cases:
  repair(LIT)  (module function, default strategies, format json): `json.loads(r.text) == V` -> expected V;
               `r.text == T` -> expected json.loads(T).
  validate_and_repair(LIT, SCHEMA) / parse(LIT, SCHEMA) with a literal JSON Schema: `r.data == V`
               (resp. the parse() value == V) -> expected V, schema SCHEMA.
Skipped: calls with strategies=..., report=True, another format, a Guard object, or a schema that
is not a literal; asserts on single fields (data["x"]), on strategies_applied, etc.
tests/fixtures/real_outputs (365 raw model outputs) have no expected values and are not used.
"""
import glob, json, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _pylit import extract, plain, PCall, Attr, Parsed, OPAQUE
from _rustlit import finish, dump_jsonl

PKG = "outputguard"
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pysd/outputguard-2.1.2"
files = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/tests/test_*.py"))]

def is_module_recv(r):
    return r is None or r is OPAQUE  # bare call or outputguard.X (module name is not a literal)

def make_case(call, x, y):
    if not is_module_recv(call.recv):
        return None, "called on an object (Guard / custom options)"
    if not call.args or not isinstance(call.args[0], str):
        return None, "input not a literal"
    if not plain(y):
        return None, "expected value not a literal"
    kw = dict(call.kw)
    if kw.pop("format", "json") != "json" or kw:
        return None, "non-default options"
    inp = call.args[0]
    if call.name == "repair":
        if len(call.args) != 1:
            return None, "non-default options"
        if isinstance(x, Parsed) and isinstance(x.inner, Attr) and x.inner.path == ["text"]:
            return {"input": inp, "expected": y}, None
        if isinstance(x, Attr) and x.path == ["text"] and isinstance(y, str):
            try:
                return {"input": inp, "expected": json.loads(y)}, None
            except Exception:
                return None, "expected text is not JSON"
        return None, "asserts another field of the result"
    if call.name in ("validate_and_repair", "parse"):
        if len(call.args) != 2 or not isinstance(call.args[1], dict) or not plain(call.args[1]):
            return None, "schema not a literal"
        ok = (call.name == "validate_and_repair" and isinstance(x, Attr) and x.path == ["data"]) or \
             (call.name == "parse" and x is call)
        if not ok:
            return None, "asserts another field of the result"
        return {"input": inp, "expected": y, "schema": call.args[1]}, None
    return None, "other function"

cases, skips = extract(files, {"repair", "validate_and_repair", "parse"}, make_case)
cases, skips = finish(PKG, cases, skips)
dump_jsonl(f"{HERE}/{PKG}.jsonl", cases)
print(PKG, len(cases), "cases; skipped:", dict(skips))
