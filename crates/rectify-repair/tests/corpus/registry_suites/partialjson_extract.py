"""Extract cases from the PyPI package partialjson 1.2.0 (sdist tests/test_parser.py,
tests/test_json5.py, tests/test_regressions.py).
Run: pip download partialjson==1.2.0 --no-deps --no-binary :all: -d /tmp/pysd && tar xzf ... ;
     python3 partialjson_extract.py [/tmp/pysd/partialjson-1.2.0]
Cases: JSONParser(**opts).parse(LIT) == LITERAL (or `is True/False`). The parser options
(strict=..., json5_enabled=...) are recorded in `source` as "(options: ...)".
create_json_parser()/create_json5_parser() are accepted too (recorded in the options note).
A `parse` whose parser is not built from literal options is skipped.
"""
import glob, json, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _pylit import extract, plain, PCall
from _rustlit import finish, dump_jsonl

PKG = "partialjson"
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pysd/partialjson-1.2.0"
# test_regressions.py's `parser` fixture is JSONParser() (also run with json5_enabled=True,
# with the same expectations): read as the default parser.
_default = PCall("JSONParser", [], {}); _default.recv = None
files = [(f"{root}/tests/{n}", f"tests/{n}") for n in ("test_parser.py", "test_json5.py")] + \
        [(f"{root}/tests/test_regressions.py", "tests/test_regressions.py", {"parser": _default})]

def make_case(call, x, y):
    if call.name != "parse" or x is not call:
        return None, "not a parse() result"
    if not (len(call.args) == 1 and isinstance(call.args[0], str)) or call.kw:
        return None, "input not a literal / extra arguments"
    if not isinstance(call.recv, PCall) or call.recv.name not in ("JSONParser", "create_json_parser", "create_json5_parser") or call.recv.args:
        return None, "parser options not literal"
    if not plain(y):
        return None, "expected value not a literal"
    opts = ",".join(f"{k}={v}" for k, v in sorted(call.recv.kw.items()))
    if call.recv.name != "JSONParser":  # create_json5_parser() is the JSON5 parser (strict=True by default)
        opts = call.recv.name + "(" + opts + ")"
    return {"input": call.args[0], "expected": y, "_opts": opts}, None

cases, skips = extract(files, {"parse", "JSONParser", "create_json_parser", "create_json5_parser"}, make_case)
for c in cases:
    o = c.pop("_opts")
    if o:
        c["source"] += f" (options: {o})"
cases, skips = finish(PKG, cases, skips)
dump_jsonl(f"{HERE}/{PKG}.jsonl", cases)
print(PKG, len(cases), "cases; skipped:", dict(skips))
