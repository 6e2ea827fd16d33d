"""Extract repair cases from the Rust crate json-repair 0.4.0 (crates.io; lib name json_repair).
Run: python3 json-repair_extract.py  (reads ~/.cargo/registry/src/*/json-repair-0.4.0, after `cargo info json-repair`)
Cases: calls of its repair functions (repair_json_string*, and the single-strategy passes
repair_json_*) on a literal input, whose result (text, parsed as JSON; or value) is compared
with a literal / json!(..) value, via assert_eq! or its helper assert_expected_matches_output_result.
"""
import glob, json, sys
HERE = __import__("os").path.dirname(__import__("os").path.abspath(__file__))
sys.path.insert(0, HERE)
import _rustlit
_rustlit.PARSE_FUNCS.add("parse_json")
from _rustlit import collect, finish, dump_jsonl, json_text, Enum, Parsed, plain

PKG = "json-repair"
root = glob.glob("/root/.cargo/registry/src/*/json-repair-0.4.0")[0]
FILES = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/src/*.rs"))]

class Funcs(dict):
    def __contains__(self, k):
        if isinstance(k, tuple):
            k = k[0]
        return isinstance(k, str) and (k.startswith("repair_json") or k.startswith("repair_split"))
    def __getitem__(self, k):
        return 1

def make_case(call, exp, parsed):
    if not call.args or not isinstance(call.args[0], str):
        return None, "input not a literal"
    if len(call.args) > 1:
        return None, "extra arguments"
    if isinstance(exp, tuple):
        return None, "expects Option/None"
    if not plain(exp):
        return None, "expected value not literal"
    if isinstance(exp, str) and not parsed:
        ok, v = json_text(exp)
        if not ok:
            return None, "expected text is not JSON (intermediate pass output)"
        exp = v
    return {"input": call.args[0], "expected": exp}, None

def on_stmt(name, s, env, ctx):
    from _rustlit import P
    if name is None and s and s[0][1] == "assert_expected_matches_output_result":
        v = P(s, env, ctx.funcs, None).expr()
        if isinstance(v, Enum) and len(v.args) == 3:
            out, exp = v.args[1], v.args[2]
            if isinstance(out, str):  # output text bound from a call is a Call; a str here means no call
                return
            ctx.on_assert("assert_eq", [Parsed(out) if not isinstance(out, Parsed) else out, exp], env)

cases, skips = collect(FILES, Funcs(), make_case, PKG, on_stmt=on_stmt)
cases, skips = finish(PKG, cases, skips)
dump_jsonl(f"{HERE}/{PKG}.jsonl", cases)
print(PKG, len(cases), "cases; skipped:", dict(skips))
