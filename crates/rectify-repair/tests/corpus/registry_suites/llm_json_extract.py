"""Extract repair cases from the Rust crate llm_json 1.0.3 (crates.io), src/lib.rs tests.
Run: python3 llm_json_extract.py   (reads ~/.cargo/registry/src/*/llm_json-1.0.3, after `cargo info llm_json`)
Cases: repair_json(LIT, &RepairOptions::default()) / loads(LIT, ..) whose result is compared with a literal.
"""
import glob, json, sys
HERE = __import__("os").path.dirname(__import__("os").path.abspath(__file__))
sys.path.insert(0, HERE)
from _rustlit import collect, finish, dump_jsonl, json_text, Enum, Opaque, plain

PKG = "llm_json"
root = glob.glob("/root/.cargo/registry/src/*/llm_json-1.0.3")[0]
FILES = [(f"{root}/src/lib.rs", "src/lib.rs")]
FUNCS = {"repair_json": 1, "loads": 1}

def default_opts(o):
    return isinstance(o, Enum) and o.path.endswith("default") or (isinstance(o, Opaque) and o.what == ("path", "Default::default"))

def make_case(call, exp, parsed):
    if not call.args or not isinstance(call.args[0], str):
        return None, "input not a literal"
    if len(call.args) > 1 and not default_opts(call.args[1]):
        return None, "non-default options"
    if isinstance(exp, tuple):
        return None, "expects Option/None"
    if not plain(exp):
        return None, "expected value not literal"
    if call.name == "repair_json" and not parsed:
        if not isinstance(exp, str):
            return None, "expected not text"
        ok, v = json_text(exp)
        if not ok:
            return None, "expected text is not JSON"
        exp = v
    return {"input": call.args[0], "expected": exp}, None

cases, skips = collect(FILES, FUNCS, make_case, PKG)
cases, skips = finish(PKG, cases, skips)
dump_jsonl(f"{HERE}/{PKG}.jsonl", cases)
print(PKG, len(cases), "cases; skipped:", dict(skips))
