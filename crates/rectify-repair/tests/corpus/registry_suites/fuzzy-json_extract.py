"""Extract cases from the Rust crate fuzzy-json 0.1.0 (crates.io), tests in src/parser.rs.
Run: python3 fuzzy-json_extract.py  (after `cargo info fuzzy-json`)
Cases: the test macro assert_value!(INPUT, EXPECTED) (parses INPUT, compares with EXPECTED),
EXPECTED written with the crate's JSON enum: JSON::Null/Bool/Int/Float/Str/Array(vec![..])/Dict(vec![(k, v)..]),
translated to the JSON value. Dict is an ordered list of pairs; a Dict with a repeated key is skipped.
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
import _rustlit
from _rustlit import collect, finish, dump_jsonl, plain, Opaque, P, Call

PKG = "fuzzy-json"
root = glob.glob("/root/.cargo/registry/src/*/fuzzy-json-0.1.0")[0]
FILES = [(f"{root}/src/parser.rs", "src/parser.rs")]
BAD = Opaque("bad JSON enum")

def enum_ctor(path, args):
    tail = path.split("::")[-1]
    if not path.startswith("JSON::"):
        return None
    if args is None:
        return None if tail != "Null" else None_
    a = args[0] if args else None
    if tail in ("Bool", "Int", "Float", "Str") and len(args) == 1 and plain(a):
        return a
    if tail == "Array" and isinstance(a, list):
        return a if all(plain(x) for x in a) else BAD
    if tail == "Dict" and isinstance(a, list):
        d = {}
        for kv in a:
            if not (isinstance(kv, Opaque) and isinstance(kv.what, tuple) and kv.what[0] == "tuple" and len(kv.what[1]) == 2):
                return BAD
            k, v = kv.what[1]
            if not isinstance(k, str) or not plain(v) or k in d:
                return BAD
            d[k] = v
        return d
    return BAD

class NullT:  # JSON::Null
    pass
None_ = "__JSON_NULL__"

def fix_null(v):
    if v == None_:
        return None
    if isinstance(v, list):
        return [fix_null(x) for x in v]
    if isinstance(v, dict):
        return {k: fix_null(x) for k, x in v.items()}
    return v

def on_stmt(name, inner, env, ctx):
    if name == "assert_value":
        p = P(inner + [("p", ")", -1)], env, ctx.funcs, enum_ctor)
        a = p.args(")")
        if len(a) == 2:
            c = Call("assert_value", [a[0]])
            ctx.on_assert("assert_eq", [c, a[1]], env)

def make_case(call, exp, parsed):
    if not isinstance(call.args[0], str):
        return None, "input not a literal"
    if exp is BAD or not plain(exp):
        return None, "expected value not translatable"
    return {"input": call.args[0], "expected": fix_null(exp)}, None

cases, skips = collect(FILES, {}, make_case, PKG, enum_ctor=enum_ctor, on_stmt=on_stmt)
cases, skips = finish(PKG, cases, skips)
dump_jsonl(f"{HERE}/{PKG}.jsonl", cases)
print(PKG, len(cases), "cases; skipped:", dict(skips))
